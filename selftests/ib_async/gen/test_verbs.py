#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""Checks verbs.py against rdma-core's header and the shim's symbol map.

  python3 selftests/ib_async/gen/test_verbs.py [-v]

- every VerbCall's signature (return type, parameter types and count)
  matches the prototype or static inline definition in
  /usr/include/infiniband/verbs.h (VERBS_H overrides the path); where the
  call reaches another function through a macro (ibv_query_port ->
  ___ibv_query_port), the header's #define is checked too;
- every ibv_* symbol exported by user/libibasync.map is described or
  listed in NOT_DESCRIBED with a reason, and the lists do not overlap;
- every static inline of the header that calls through the context's op
  tables (verbs_get_ctx_op(), verbs_get_ctx(), ctx->ops.X()) is described
  or listed in INLINE_NOT_DESCRIBED with a reason: an inline a newer
  rdma-core adds is reported, since a program built against it reaches
  the shim through a slot nobody looked at;
- the table is self-consistent (unique names, known resources).
"""
import os
import re
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import verbs  # noqa: E402

VERBS_H = os.environ.get("VERBS_H", "/usr/include/infiniband/verbs.h")
MAP = os.path.join(HERE, "..", "..", "..", "user", "libibasync.map")


def norm_type(t):
    """'struct ibv_pd  * ' -> 'struct ibv_pd *': one spelling per type."""
    t = re.sub(r"\s+", " ", t).strip()
    t = re.sub(r"\s*\*\s*", " *", t).replace("* *", "**")
    return t.replace(" *", "*").replace("*", " *").strip()


def split_param(decl):
    """'struct ibv_pd *pd' -> ('struct ibv_pd *', 'pd')."""
    decl = decl.strip()
    m = re.match(r"^(.*?)(\w+)$", decl)
    if not m or not m.group(1).strip():
        return norm_type(decl), ""
    return norm_type(m.group(1)), m.group(2)


def header_text():
    with open(VERBS_H, encoding="utf-8") as f:
        text = f.read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def find_function(text, name):
    """(return type, [(type, name)]) of a prototype or definition."""
    pat = re.compile(r"(?:^|[;}\n])\s*((?:__attribute__\(\(\w+\)\)\s*)?"
                     r"(?:static\s+)?(?:inline\s+)?"
                     r"(?:const\s+)?(?:struct\s+|union\s+|enum\s+)?"
                     r"\w+[\s*]+)" + re.escape(name) +
                     r"\s*\(([^()]*)\)\s*[;{]", re.S)
    m = pat.search(text)
    if not m:
        return None
    ret = re.sub(r"__attribute__\(\(\w+\)\)|\bstatic\b|\binline\b", " ",
                 m.group(1))
    params = [p for p in m.group(2).split(",") if p.strip()]
    if [p.strip() for p in params] == ["void"]:
        params = []
    return norm_type(ret), [split_param(p) for p in params]


# The ways an inline reaches an op: struct verbs_context through
# verbs_get_ctx_op()/verbs_get_ctx(), struct ibv_context_ops through
# `->ops.`.  Calls through an object's own pointers (ibv_wr_*, the
# ibv_cq_ex readers) are not the context's and stay out.
DISPATCH = re.compile(r"\bverbs_get_ctx(?:_op)?\s*\(|->ops\.\w+\s*\(")
INLINE_DEF = re.compile(r"\bstatic\s+inline\s+[\w\s*]+?\b(\w+)\s*"
                        r"\([^()]*\)\s*\{")


def dispatching_inlines(text):
    """Names of the static inline functions whose body calls an op."""
    names = set()
    for m in INLINE_DEF.finditer(text):
        depth, i = 1, m.end()
        while depth and i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        if DISPATCH.search(text[m.end():i]):
            names.add(m.group(1))
    return names


def map_symbols():
    with open(MAP, encoding="utf-8") as f:
        text = re.sub(r"/\*.*?\*/", " ", f.read(), flags=re.S)
    return set(re.findall(r"^\s*(\w+);", text, re.M)) - {"local"}


class Signatures(unittest.TestCase):
    text = header_text()

    def test_every_signature_matches_the_header(self):
        for v in verbs.VERBS:
            with self.subTest(verb=v.name):
                found = find_function(self.text, v.c_name)
                self.assertIsNotNone(found, f"{v.c_name} not in {VERBS_H}")
                ret, params = found
                self.assertEqual(norm_type(v.ret), ret, "return type")
                self.assertEqual([norm_type(p.ctype) for p in v.params],
                                 [t for t, _ in params], "parameter types")

    def test_macro_routes_to_the_described_function(self):
        for v in verbs.VERBS:
            if v.header and v.header != v.name:
                with self.subTest(verb=v.name):
                    self.assertRegex(self.text, r"#define\s+" + v.name +
                                     r"\([^)]*\)\s*\\?\s*" + v.header + r"\(")


class Inlines(unittest.TestCase):
    text = header_text()
    found = dispatching_inlines(text)

    def test_the_header_has_dispatching_inlines(self):
        # a parser that finds nothing would pass everything below
        for name in ("ibv_alloc_td", "ibv_post_send", "___ibv_query_port"):
            self.assertIn(name, self.found)

    def test_every_dispatching_inline_is_accounted_for(self):
        described = {v.c_name for v in verbs.VERBS}
        for name in sorted(self.found):
            with self.subTest(inline=name):
                self.assertTrue(name in described or
                                name in verbs.INLINE_NOT_DESCRIBED,
                                f"{name}: an inline of {VERBS_H} over the "
                                "context's ops, neither described in "
                                "verbs.py nor in INLINE_NOT_DESCRIBED")

    def test_inline_not_described_entries_are_inlines_with_reasons(self):
        described = {v.c_name for v in verbs.VERBS}
        for name, why in verbs.INLINE_NOT_DESCRIBED.items():
            with self.subTest(inline=name):
                self.assertIn(name, self.found)
                self.assertNotIn(name, described)
                self.assertTrue(why.strip())


class Symbols(unittest.TestCase):
    exported = map_symbols()

    def test_every_exported_ibv_symbol_is_accounted_for(self):
        described = set()
        for v in verbs.VERBS:
            described.update(verbs.exported_symbol_names(v))
        for sym in sorted(s for s in self.exported if "ibv_" in s):
            with self.subTest(symbol=sym):
                self.assertTrue(sym in described or sym in verbs.NOT_DESCRIBED,
                                f"{sym}: neither described nor listed")

    def test_described_symbols_are_exported(self):
        for v in verbs.VERBS:
            for sym in verbs.exported_symbol_names(v):
                with self.subTest(symbol=sym):
                    self.assertIn(sym, self.exported)

    def test_not_described_entries_are_exported_and_have_reasons(self):
        for sym, why in verbs.NOT_DESCRIBED.items():
            with self.subTest(symbol=sym):
                self.assertIn(sym, self.exported)
                self.assertNotIn(sym, verbs.BY_NAME)
                self.assertTrue(why.strip())


class Table(unittest.TestCase):
    RESOURCES = {"ctx", "pd", "mr", "cq", "qp", "srq", "ah", "wq",
                 "devlist", "event", "channel", "cq_event", "td", "xrcd",
                 "dm", "flow", "flow_action", "counters", "rwq_ind_table",
                 "mw"}

    def test_names_unique(self):
        self.assertEqual(len(verbs.BY_NAME), len(verbs.VERBS))

    def test_resources_known(self):
        for v in verbs.VERBS:
            for r in v.requires + v.produces + v.destroys:
                base, _, state = r.partition(":")
                with self.subTest(verb=v.name, resource=r):
                    self.assertIn(base, self.RESOURCES)
                    if state:
                        self.assertIn(state, verbs.QP_STATES)

    def test_every_verb_has_a_return_contract(self):
        for v in verbs.VERBS:
            with self.subTest(verb=v.name):
                self.assertIn("ret", v.contract)

    def test_inline_verbs_say_how_they_end_on_both_stacks(self):
        for v in verbs.VERBS:
            if v.group == "inline":
                with self.subTest(verb=v.name):
                    self.assertEqual(len(v.outcome), 2, "(uverbs, shim)")
                    self.assertTrue(all(o.strip() for o in v.outcome))

    def test_async_event_rules(self):
        c = verbs.BY_NAME["ibv_get_async_event"].contract
        for key in ("blocking", "element", "ack", "destroy", "concurrency"):
            self.assertIn(key, c)
        self.assertIn("EAGAIN", c["errno"])
        self.assertEqual(len(c["element"]), 20)
        self.assertEqual(c["element"]["SRQ_LIMIT_REACHED"], "srq")
        self.assertEqual(c["element"]["CQ_ERR"], "cq")
        self.assertEqual(c["element"]["GID_CHANGE"], "port_num")

    def test_completion_event_rules(self):
        c = verbs.BY_NAME["ibv_get_cq_event"].contract
        for key in ("blocking", "element", "ack", "end", "concurrency"):
            self.assertIn(key, c)
        self.assertIn("EAGAIN", c["errno"])
        self.assertIn("cq_event", verbs.BY_NAME["ibv_ack_cq_events"].destroys)
        self.assertIn("completion", verbs.BY_NAME["ibv_destroy_cq"]
                      .contract["blocks"])
        self.assertIn("EBUSY", verbs.BY_NAME["ibv_destroy_comp_channel"]
                      .contract["errno"])


class TapResult(unittest.TestResult):
    """One TAP line per test, for make check's counting."""

    def __init__(self):
        super().__init__()
        self.n = 0

    def _line(self, test, ok, why=""):
        self.n += 1
        print("%s %d - %s%s" % ("ok" if ok else "not ok", self.n,
                                test.id().rsplit(".", 1)[-1], why))

    def addSuccess(self, test):
        super().addSuccess(test)
        self._line(test, True)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._line(test, False)
        print("# " + self._exc_info_to_string(err, test).replace("\n", "\n# "))

    def addError(self, test, err):
        super().addError(test, err)
        self._line(test, False)
        print("# " + self._exc_info_to_string(err, test).replace("\n", "\n# "))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._line(test, True, " # SKIP " + reason)


def main_tap(module=None):
    """Run `module`'s tests (this one's by default) as TAP."""
    suite = unittest.defaultTestLoader.loadTestsFromModule(
        module or sys.modules[__name__])
    print("TAP version 13")
    print("1..%d" % suite.countTestCases())
    result = TapResult()
    suite.run(result)
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    if "--tap" in sys.argv:
        sys.exit(main_tap())
    unittest.main(verbosity=2 if "-v" in sys.argv else 1)
