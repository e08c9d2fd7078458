#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""Checks rdma_fuzzing_async.py, the classes upstream.py writes for
liuyi-thu/rdma-fuzzing, on the host; writes the guest's program of them.

  python3 test_upstream.py [-v] [--tap]
  python3 test_upstream.py --emit FILE.c

The generated file imports lib.codegen_context, lib.contracts, lib.value
and lib.verbs of that project.  Here those are small stand-ins written
for this test from the interface its lib/*.py documents (the names,
signatures and behaviour the classes rely on), not that project's code.
The tests: the committed file is what verbs.py gives now (a drift fails);
its contracts say what verbs.py says; apply() registers and checks
resources as that project's tracker and contract table would (an unacked
event cannot be read again under its name, an ack needs a live event);
from_trace() reads key=value lines; generate_c() gives C that compiles
(C11, and C++17 as that project's programs are built) for every
combination of the mutable fields.
--emit writes ib_async_upstream_async.c: those combinations' C inside
upstream_rt.h's scenarios (a port flap, a QP error, a drained SQ), which
ib_async_upstream_async.sh runs in the guest on ib_uverbs and over the
shim.
"""
import dataclasses
import difflib
import enum
import os
import shutil
import subprocess
import sys
import tempfile
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import upstream  # noqa: E402
import verbs  # noqa: E402

GENERATED = os.path.join(HERE, "rdma_fuzzing_async.py")
NONBLOCK = (0, 1)
TIMEOUTS = (0, 10, 100, 1000)


# ---- stand-ins for that project's lib modules ------------------------------
class State(enum.Enum):
    ALLOCATED = 1
    DESTROYED = 2


@dataclasses.dataclass
class RequireSpec:
    rtype: str
    state: object
    name_attr: str


@dataclasses.dataclass
class ProduceSpec:
    rtype: str
    state: object
    name_attr: str


@dataclasses.dataclass
class TransitionSpec:
    rtype: str
    from_state: object
    to_state: object
    name_attr: str


@dataclasses.dataclass
class Contract:
    requires: list
    produces: list
    transitions: list


class ContractError(RuntimeError):
    pass


class ContractTable:
    """put/require/transition as that project's table does them: a name
    may be put again only once destroyed; field values are unwrapped."""

    def __init__(self):
        self.store = {}

    def put(self, rtype, name, state):
        old = self.store.get((rtype, name))
        if old is not None and old is not State.DESTROYED:
            raise ContractError(f"{rtype} {name} exists")
        self.store[(rtype, name)] = state

    def snapshot(self):
        return dict(self.store)

    def apply_contract(self, verb, contract):
        def name(attr):
            return str(getattr(verb, attr).value)
        for s in contract.requires:
            st = self.store.get((s.rtype, name(s.name_attr)))
            if st is None or (s.state is not None and st is not s.state):
                raise ContractError(f"require {s.rtype} {name(s.name_attr)}")
        for s in contract.transitions:
            key = (s.rtype, name(s.name_attr))
            if self.store.get(key) is not s.from_state:
                raise ContractError(f"transition {key}")
            self.store[key] = s.to_state
        for s in contract.produces:
            self.put(s.rtype, name(s.name_attr), s.state)


class Tracker:
    def __init__(self):
        self.objs = {"context": {}, "cq": {}}

    def create(self, typ, name):
        if name in self.objs[typ]:
            raise ValueError(f"{typ} {name} exists")
        self.objs[typ][name] = {"alive": True}

    def use(self, typ, name):
        if name not in self.objs[typ]:
            raise ValueError(f"{typ} {name} does not exist")
        self.objs[typ][name]["used"] = True

    def destroy(self, typ, name):
        if name in self.objs[typ]:
            self.objs[typ][name]["alive"] = False

    def is_alive(self, typ, name):
        return self.objs[typ].get(name, {}).get("alive", False)


class CodeGenContext:
    def __init__(self):
        self.ib_ctx = "ctx"
        self.tracker = Tracker()
        self.contracts = ContractTable()
        self.variables = {}

    def alloc_variable(self, name, ctype, init_value=None):
        self.variables.setdefault(name, (ctype, init_value))


class Value:
    def __init__(self, value, mutable=True):
        self.value = value
        self.mutable = mutable

    def __str__(self):
        return str(self.value)


class IntValue(Value):
    def __init__(self, value=None, range=None, mutable=True):
        super().__init__(value, mutable)
        self.range = range


class ResourceValue(Value):
    def __init__(self, value=None, resource_type=None, mutable=True):
        super().__init__(value, mutable)
        self.resource_type = resource_type


class VerbCall:
    pass


def parse_kv(info):
    return dict(t.split("=", 1) for t in info.replace(",", " ").split()
                if "=" in t)


def load_generated():
    """rdma_fuzzing_async.py imported over the stand-ins."""
    mods = {
        "lib": {},
        "lib.codegen_context": {"CodeGenContext": CodeGenContext},
        "lib.contracts": {"Contract": Contract, "ProduceSpec": ProduceSpec,
                          "RequireSpec": RequireSpec, "State": State,
                          "TransitionSpec": TransitionSpec},
        "lib.value": {"IntValue": IntValue, "ResourceValue": ResourceValue},
        "lib.verbs": {"VerbCall": VerbCall, "_parse_kv": parse_kv},
    }
    for name, attrs in mods.items():
        m = types.ModuleType(name)
        m.__dict__.update(attrs)
        sys.modules[name] = m
    ns = {"__name__": "rdma_fuzzing_async"}
    with open(GENERATED, encoding="utf-8") as f:
        exec(compile(f.read(), GENERATED, "exec"), ns)
    return types.SimpleNamespace(**ns)


G = load_generated()


def combos():
    return [(nb, tmo) for nb in NONBLOCK for tmo in TIMEOUTS]


def c_program(pairs):
    """C for [(nonblock, timeout_ms)]: each pair's generated get and ack as
    functions, in a table upstream_rt.h's scenarios run."""
    ctx = CodeGenContext()
    funcs, rows = [], []
    for i, (nb, tmo) in enumerate(pairs):
        ev = f"async_ev{i}"
        get = G.GetAsyncEvent(event=ev, nonblock=nb, timeout_ms=tmo)
        ack = G.AckAsyncEvent(event=ev)
        get.apply(ctx)
        ack.apply(ctx)
        funcs.append(
            f"static int get_{i}(struct ibv_async_event *seen)\n{{{get.generate_c(ctx)}"
            f"    if (!{ev}_live)\n        return 0;\n    *seen = {ev};\n"
            f"    return 1;\n}}\n\n"
            f"static int ack_{i}(void)\n{{{ack.generate_c(ctx)}"
            f"    return {ev}_live;\n}}\n")
        rows.append(f'\t{{ "nonblock={nb} timeout_ms={tmo}", {nb}, {tmo}, '
                    f'get_{i}, ack_{i} }},')
    decls = []
    for name, (ctype, init) in ctx.variables.items():
        decls.append(f"static {ctype} {name}" +
                     (f" = {init};" if init is not None else ";"))
    return ("/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */\n"
            "/* Generated by selftests/ib_async/gen/test_upstream.py --emit:"
            " rdma_fuzzing_async.py's\n * GetAsyncEvent and AckAsyncEvent "
            "for each combination of their mutable fields. */\n"
            '#include "upstream_rt.h"\n\n' + "\n".join(decls) + "\n\n" +
            "\n".join(funcs) +
            "\nconst struct up_combo up_combos[] = {\n" + "\n".join(rows) +
            "\n};\nconst int up_ncombos = " + str(len(rows)) + ";\n")


class Drift(unittest.TestCase):
    def test_committed_file_is_what_verbs_py_gives(self):
        with open(GENERATED, encoding="utf-8") as f:
            have = f.read()
        diff = list(difflib.unified_diff(
            have.splitlines(True), upstream.render().splitlines(True),
            "rdma_fuzzing_async.py", "upstream.py now"))
        if diff:
            self.fail("drifted from verbs.py: make -C selftests/ib_async/gen "
                      "upstream\n" + "".join(diff[:40]))


class Contracts(unittest.TestCase):
    def test_get_requires_a_context_and_produces_an_event(self):
        c = G.GetAsyncEvent.CONTRACT
        self.assertEqual(verbs.BY_NAME["ibv_get_async_event"].requires, ("ctx",))
        self.assertEqual([(s.rtype, s.name_attr) for s in c.requires],
                         [("context", "context")])
        self.assertEqual([(s.rtype, s.state, s.name_attr) for s in c.produces],
                         [("async_event", State.ALLOCATED, "event")])
        self.assertEqual(c.transitions, [])

    def test_ack_consumes_the_event(self):
        c = G.AckAsyncEvent.CONTRACT
        self.assertEqual(verbs.BY_NAME["ibv_ack_async_event"].destroys,
                         ("event",))
        self.assertEqual([(s.rtype, s.state) for s in c.requires],
                         [("async_event", State.ALLOCATED)])
        self.assertEqual([(s.from_state, s.to_state) for s in c.transitions],
                         [(State.ALLOCATED, State.DESTROYED)])

    def test_element_table_is_verbs_py(self):
        want = {f"IBV_EVENT_{n}": m for _, n, m in verbs.EVENTS}
        self.assertEqual(set(G.ASYNC_EVENT_ELEMENT), set(want))
        for name, kind in G.ASYNC_EVENT_ELEMENT.items():
            with self.subTest(event=name):
                self.assertEqual(kind, "none" if name == "IBV_EVENT_DEVICE_FATAL"
                                 else upstream.KIND[want[name]])

    def test_mutable_fields(self):
        self.assertEqual(G.GetAsyncEvent.MUTABLE_FIELDS,
                         ["event", "nonblock", "timeout_ms"])
        g = G.GetAsyncEvent(event="e")
        self.assertEqual(g.nonblock.range, list(NONBLOCK))
        self.assertEqual(g.timeout_ms.range, list(TIMEOUTS))
        self.assertFalse(g.event.mutable)


class Apply(unittest.TestCase):
    def test_get_then_ack_then_get_again(self):
        ctx = CodeGenContext()
        G.GetAsyncEvent(event="ev0").apply(ctx)
        self.assertEqual(ctx.contracts.store[("context", "ctx")],
                         State.ALLOCATED)
        self.assertEqual(ctx.contracts.store[("async_event", "ev0")],
                         State.ALLOCATED)
        self.assertTrue(ctx.tracker.is_alive("async_event", "ev0"))
        self.assertTrue(ctx.tracker.objs["context"]["ctx"]["used"])
        self.assertEqual(ctx.variables["ev0"][0], "struct ibv_async_event")
        self.assertEqual(ctx.variables["ev0_live"], ("int", "0"))
        G.AckAsyncEvent(event="ev0").apply(ctx)
        self.assertEqual(ctx.contracts.store[("async_event", "ev0")],
                         State.DESTROYED)
        self.assertFalse(ctx.tracker.is_alive("async_event", "ev0"))
        G.GetAsyncEvent(event="ev0").apply(ctx)   # the name is free again
        self.assertTrue(ctx.tracker.is_alive("async_event", "ev0"))

    def test_an_unacked_event_is_not_read_again(self):
        ctx = CodeGenContext()
        G.GetAsyncEvent(event="ev0").apply(ctx)
        with self.assertRaises(ContractError):
            G.GetAsyncEvent(event="ev0").apply(ctx)

    def test_ack_needs_a_live_event(self):
        ctx = CodeGenContext()
        with self.assertRaises(ContractError):
            G.AckAsyncEvent(event="ev0").apply(ctx)
        G.GetAsyncEvent(event="ev0").apply(ctx)
        G.AckAsyncEvent(event="ev0").apply(ctx)
        with self.assertRaises(ContractError):
            G.AckAsyncEvent(event="ev0").apply(ctx)


class FromTrace(unittest.TestCase):
    def test_keys(self):
        g = G.GetAsyncEvent.from_trace("event=ev3 nonblock=0 timeout_ms=10",
                                       CodeGenContext())
        self.assertEqual((g.event.value, g.nonblock.value, g.timeout_ms.value),
                         ("ev3", 0, 10))
        a = G.AckAsyncEvent.from_trace("event=ev3", CodeGenContext())
        self.assertEqual(a.event.value, "ev3")

    def test_defaults(self):
        g = G.GetAsyncEvent.from_trace("", None)
        self.assertEqual((g.nonblock.value, g.timeout_ms.value), (1, 100))


class GenerateC(unittest.TestCase):
    def c_of(self, nb, tmo):
        ctx = CodeGenContext()
        g = G.GetAsyncEvent(event="ev0", nonblock=nb, timeout_ms=tmo)
        g.apply(ctx)
        return g.generate_c(ctx)

    def test_the_man_page_steps(self):
        for nb, tmo in combos():
            with self.subTest(nonblock=nb, timeout_ms=tmo):
                c = self.c_of(nb, tmo)
                self.assertIn("IF_OK_PTR(ctx, {", c)
                self.assertIn("O_NONBLOCK", c)
                self.assertIn("| O_NONBLOCK" if nb else "& ~O_NONBLOCK", c)
                self.assertIn(f"poll(&ev0_pfd, 1, {tmo})", c)
                self.assertIn("ibv_get_async_event(ctx, &ev0)", c)
                self.assertIn("errno == EAGAIN", c)
                self.assertNotIn("ibv_ack_async_event", c)
                self.assertNotIn("return", c)      # never ends the program
                for name in G.ASYNC_EVENT_ELEMENT:
                    self.assertIn(f"case {name}:", c)

    def test_ack_once(self):
        ctx = CodeGenContext()
        c = G.AckAsyncEvent(event="ev0").generate_c(ctx)
        self.assertEqual(c.count("ibv_ack_async_event(&ev0)"), 1)
        self.assertIn("if (ev0_live)", c)
        self.assertIn("ev0_live = 0;", c)

    def compile(self, cc, flags, src):
        d = tempfile.mkdtemp()
        try:
            path = os.path.join(d, "p.c")
            with open(path, "w") as f:
                f.write(src)
            r = subprocess.run([cc] + flags + ["-I", HERE, "-fsyntax-only",
                                               path], capture_output=True,
                               text=True)
            self.assertEqual(r.returncode, 0, r.stderr[-3000:])
        finally:
            shutil.rmtree(d)

    def test_every_combination_compiles_as_c11(self):
        if not os.path.exists("/usr/include/infiniband/verbs.h"):
            self.skipTest("no rdma-core headers")
        self.compile("cc", ["-std=c11", "-Wall", "-Wextra", "-Werror",
                            "-D_GNU_SOURCE"], c_program(combos()))

    def test_every_combination_compiles_as_cxx17(self):
        if not shutil.which("g++"):
            self.skipTest("no g++")
        if not os.path.exists("/usr/include/infiniband/verbs.h"):
            self.skipTest("no rdma-core headers")
        self.compile("g++", ["-x", "c++", "-std=c++17", "-Wall", "-Werror"],
                     c_program(combos()))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--emit"]:
        with open(sys.argv[2], "w", encoding="utf-8") as out:
            out.write(c_program(combos()))
        sys.exit(0)
    if "--tap" in sys.argv:
        import test_verbs    # reads verbs.h: not for --emit
        sys.exit(test_verbs.main_tap(sys.modules[__name__]))
    unittest.main(verbosity=2 if "-v" in sys.argv else 1)
