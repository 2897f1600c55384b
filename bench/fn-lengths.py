#!/usr/bin/env python3
"""Functions over 80 lines in crates/modules (tests left out), and how many say why beside them.

A function is measured from its `fn` line to the closing brace at its own indentation. A reason is
a `// long: …` comment on one of the lines just above the `fn` (among its doc comments and
attributes): a table of declarations or routes, say, which splitting would scatter.
    python3 bench/fn-lengths.py [--list]
"""
import re
import subprocess
import sys

LIMIT = 80
files = subprocess.check_output(["git", "ls-files", "crates/modules"], text=True).split()
long_fns = []
for f in files:
    if not f.endswith(".rs") or "/tests/" in f:
        continue
    lines = open(f, encoding="utf-8").read().split("\n")
    in_test = False
    for i, line in enumerate(lines):
        if line.startswith("#[cfg(test)]"):
            in_test = True
        m = re.match(r"^(\s*)(pub(\([a-z]+\))? )?(async )?fn (\w+)", line)
        if not m or in_test:
            continue
        indent = m.group(1)
        for j in range(i + 1, len(lines)):
            if lines[j] == indent + "}":
                n = j - i + 1
                if n > LIMIT:
                    above = []
                    k = i - 1
                    while k >= 0 and lines[k].strip().startswith(("//", "#[")):
                        above.append(lines[k])
                        k -= 1
                    reason = any("// long:" in a for a in above)
                    long_fns.append((n, f, i + 1, m.group(5), reason))
                break
without = [x for x in long_fns if not x[4]]
print(f"functions over {LIMIT} lines: {len(long_fns)} ({len(without)} without a reason beside them)")
if "--list" in sys.argv:
    for n, f, line, name, reason in sorted(long_fns, reverse=True):
        print(f"  {n:4} {f}:{line} {name}{'' if not reason else '  (reason given)'}")
