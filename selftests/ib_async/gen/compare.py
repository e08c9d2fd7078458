#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""Reads the guest console of `make difftest` and compares the traces.

  compare.py [--tap] CONSOLE_LOG OUTDIR PROGRAMS

Programs whose traces were identical are counted by the guest.  For the
others, each diff hunk is checked against intended.py; a program with any
hunk no entry explains is a divergence, and both traces are written to
OUTDIR/pN.{uverbs,ibasync}.  Last line, exactly:
  difftest: N programs, M verb calls, D divergences
Exit 1 if D > 0, a program's result is missing, or a regression program
(regress/NAME.c) does not print regress/NAME.expected on both stacks.
--tap (scripts/check.sh): then also TAP, one line for the random programs
as a whole and one for each regression program, and the plan.
"""
import difflib
import os
import re
import sys

from intended import INTENDED


def parse(log):
    res, traces, cur = {}, {}, None
    for raw in log.splitlines():
        line = raw.rstrip("\r")
        m = re.search(r"@@DT (SAME|DIFF) (p\d+|r_\w+) calls=(\d+)@@", line)
        if m:
            res[m.group(2)] = (m.group(1), int(m.group(3)))
            continue
        m = re.search(r"@@DT BEGIN (p\d+|r_\w+) (\w+)@@", line)
        if m:
            cur = (m.group(1), m.group(2))
            traces[cur] = []
            continue
        if re.search(r"@@DT END ", line):
            cur = None
            continue
        if cur:
            traces[cur].append(line)
    return res, traces


def strip_intended(u, a, explained):
    pats = [(e["name"], re.compile(e["uverbs"]), re.compile(e["ibasync"]))
            for e in INTENDED]
    out = []
    for side, t in ((1, u), (2, a)):
        keep = []
        for x in t:
            hit = next((p[0] for p in pats if p[side].fullmatch(x)), None)
            if hit and side == 2:
                explained[hit] = explained.get(hit, 0) + 1
            if not hit:
                keep.append(x)
        out.append(keep)
    return out


def main(log_path, outdir, programs, tap=False):
    with open(log_path, encoding="utf-8", errors="replace") as f:
        res, traces = parse(f.read())
    os.makedirs(outdir, exist_ok=True)
    calls = divergences = 0
    explained = {}
    for i in range(programs):
        name = f"p{i}"
        if name not in res:
            print(f"difftest: {name}: no result (guest stopped?)")
            divergences += 1
            continue
        verdict, n = res[name]
        calls += n
        if verdict == "SAME":
            continue
        u, a = traces.get((name, "uverbs"), []), traces.get((name, "ibasync"), [])
        # Intended differences come from self-contained statements: their
        # lines are taken out of both traces before the diff.
        u, a = strip_intended(u, a, explained)
        bad = [op[1:] for op in difflib.SequenceMatcher(
            a=u, b=a, autojunk=False).get_opcodes() if op[0] != "equal"]
        if not bad:
            continue
        divergences += 1
        for side, t in (("uverbs", u), ("ibasync", a)):
            with open(os.path.join(outdir, f"{name}.{side}"), "w") as f:
                f.write("\n".join(t) + "\n")
        i1, i2, j1, j2 = bad[0]
        print(f"difftest: DIVERGENCE {name} (trace line {i1 + 1}; "
              f"{outdir}/{name}.*):")
        for x in u[max(0, i1 - 2):i1]:
            print(f"    {x}")
        for x in u[i1:i2][:8]:
            print(f"  - {x}")
        for x in a[j1:j2][:8]:
            print(f"  + {x}")
    regress = check_regressions(res, traces)
    for k, v in sorted(explained.items()):
        print(f"difftest: intended ({k}): {v} times")
    counts = (f"{programs} programs, {calls} verb calls, "
              f"{divergences} divergences")
    if tap:
        print("TAP version 13")
        print(f"{'not ok' if divergences else 'ok'} 1 "
              f"difftest_random_programs_agree # {counts}")
        for i, (name, ok) in enumerate(regress, 2):
            print(f"{'ok' if ok else 'not ok'} {i} difftest_regress_{name}")
        print(f"1..{len(regress) + 1}")
    print(f"difftest: {counts}")
    return 1 if divergences or not all(ok for _, ok in regress) else 0


def check_regressions(res, traces):
    """Each regress/NAME.c must give regress/NAME.expected on both stacks:
    [(NAME, whether it did)]."""
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "regress")
    results = []
    # every regression program of the tree, whether or not it reported
    names = sorted("r_" + f[:-2] for f in os.listdir(here) if f.endswith(".c"))
    for name in names:
        with open(os.path.join(here, name[2:] + ".expected")) as f:
            want = f.read().splitlines()
        bad = [side for side in ("uverbs", "ibasync")
               if traces.get((name, side)) != want]
        results.append((name[2:], not bad))
        print(f"difftest: regress {name[2:]}: "
              f"{'FAIL on ' + ' and '.join(bad) if bad else 'ok'}")
        for side in bad:
            for x in difflib.unified_diff(want, traces.get((name, side), []),
                                          "expected", side, lineterm="", n=0):
                print(f"    {x}")
    return results


if __name__ == "__main__":
    args = sys.argv[1:]
    tap = args[:1] == ["--tap"]
    if tap:
        args = args[1:]
    if len(args) != 3:
        sys.exit(__doc__)
    sys.exit(main(args[0], args[1], int(args[2]), tap))
