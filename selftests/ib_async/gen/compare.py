#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""Reads the guest console of `make difftest` and compares the traces.

  compare.py CONSOLE_LOG OUTDIR PROGRAMS

Programs whose traces were identical are counted by the guest.  For the
others, each diff hunk is checked against intended.py; a program with any
hunk no entry explains is a divergence, and both traces are written to
OUTDIR/pN.{uverbs,ibasync}.  Last line, exactly:
  difftest: N programs, M verb calls, D divergences
Exit 1 if D > 0 or a program's result is missing.
"""
import difflib
import os
import re
import sys

from intended import forgiven


def parse(log):
    res, traces, cur = {}, {}, None
    for raw in log.splitlines():
        line = raw.rstrip("\r")
        m = re.search(r"@@DT (SAME|DIFF) (p\d+) calls=(\d+)@@", line)
        if m:
            res[m.group(2)] = (m.group(1), int(m.group(3)))
            continue
        m = re.search(r"@@DT BEGIN (p\d+) (\w+)@@", line)
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


def main(log_path, outdir, programs):
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
        bad = []
        sm = difflib.SequenceMatcher(a=u, b=a, autojunk=False)
        for tag, i1, i2, j1, j2 in sm.get_opcodes():
            if tag == "equal":
                continue
            e = forgiven(u[i1:i2], a[j1:j2])
            if e:
                explained[e["name"]] = explained.get(e["name"], 0) + 1
            else:
                bad.append((i1, i2, j1, j2))
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
    for k, v in sorted(explained.items()):
        print(f"difftest: intended ({k}): {v} hunks")
    print(f"difftest: {programs} programs, {calls} verb calls, "
          f"{divergences} divergences")
    return 1 if divergences else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
