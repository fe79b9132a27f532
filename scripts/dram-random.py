#!/usr/bin/env python3
"""dram-random.py FIRST LAST MIN MAX: random straight-line kernels, seeds FIRST..LAST-1, each with MIN..MAX
local DRAM temporaries (sizes 64..384 bytes, random [store, load) lifetimes), allocated by
build/examples/gca-alloc at -O7 with --verify. Prints, per kernel whose local DRAM verdict is not "coloring's
peak = lower bound", the DRAM line, then a summary (docs/PERFORMANCE.md, section 9). Exits 1 when a kernel
fails to allocate or verify."""
import random, subprocess, sys, tempfile, os

first, last, lo, hi = map(int, sys.argv[1:5])
alloc = os.environ.get("GCA_ALLOC", "build/examples/gca-alloc")
counts = {"kernels": 0, "lowered": 0, "proven optimal": 0, "feasible": 0, "coloring fallback": 0}
before = after = 0
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "k.gca")
    for seed in range(first, last):
        r = random.Random(seed)
        n = r.randint(lo, hi)
        points = 2 * n
        events, decls = [], []
        for k in range(n):
            a = r.randint(0, points - 2)
            b = r.randint(a + 1, points - 1)
            decls.append(f"  tensor %d{k} : dram {64 * r.randint(1, 6)}\n  tensor %t{k} : sb 1x64")
            events.append((a, 0, f"  %d{k} = store %s"))
            events.append((b, 1, f"  %t{k} = load %d{k}\n  %y = store %t{k}"))
        events.sort()
        text = "\n".join([f"module random{seed} target=trn2", "function main core=0 {",
                          "  tensor %x : dram 64 input", "  tensor %y : dram 64 output", "  tensor %s : sb 1x64"]
                         + decls + ["  %s = load %x"] + [e[2] for e in events] + ["}"]) + "\n"
        with open(path, "w") as f:
            f.write(text)
        p = subprocess.run([alloc, "-O7", "--verify", path], capture_output=True, text=True)
        if p.returncode != 0 or "verify: ok" not in p.stderr:
            print(f"seed {seed}: failed\n{p.stderr}")
            sys.exit(1)
        line = next(l for l in p.stderr.splitlines() if "coloring_allocator_dram: function" in l)
        verdict = line.split("DRAM: ", 1)[1]
        counts["kernels"] += 1
        for v in ("proven optimal", "feasible", "coloring fallback"):
            if verdict.startswith(v):
                counts[v] += 1
        if "lowered the peak from" in verdict:
            counts["lowered"] += 1
            x, y = verdict.split("lowered the peak from ", 1)[1].split(",")[0].split(" = ")[0].split(" to ")
            before += int(x)
            after += int(y)
        if "coloring's peak" not in verdict or "=" not in verdict:
            print(f"seed {seed} ({n} DRAM tensors): {verdict}")
print(", ".join(f"{k}: {v}" for k, v in counts.items()) +
      (f"; lowered kernels' peaks: {before} -> {after} bytes ({100.0 * (before - after) / before:.1f} % less)" if before else ""))
