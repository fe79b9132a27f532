#!/usr/bin/env python3
"""planted_sb_bench.py [--seeds K] [--sizes N,...] [--timeout S]: fit rate and time of gca-alloc -O2 on
planted SB kernels (gca-gen --planted-sb: a spill-free placement exists by construction), the colorer
alone (--no-placement-search) against the colorer plus the exact placement search, in one run. "Fit" means
allocated with 0 webs spilled; a refusal, a spill or the watchdog (--timeout) is a miss. Prints a Markdown
table for docs/PERFORMANCE.md."""
import argparse, os, re, statistics, subprocess, tempfile, time

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
gen = os.path.join(root, "build", "examples", "gca-gen")
alloc = os.path.join(root, "build", "examples", "gca-alloc")
families = [("mixed partitions", ["--family", "mixed"]), ("128-only", ["--family", "128"]),
            ("mixed, 20 % pinned", ["--family", "mixed", "--pins", "0.2"]), ("tight partition mixes", ["--family", "tight"])]

ap = argparse.ArgumentParser()
ap.add_argument("--seeds", type=int, default=5)
ap.add_argument("--sizes", default="20,60,150,300")
ap.add_argument("--timeout", type=float, default=20)
args = ap.parse_args()
sizes = [int(s) for s in args.sizes.split(",")]

def run(path, extra):
    t0 = time.perf_counter()
    p = subprocess.run([alloc, "-O2", "--threads", "1", "--timeout", str(args.timeout)] + extra + [path],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    dt = time.perf_counter() - t0
    fit = p.returncode == 0 and re.search(r", 0 webs spilled,", p.stderr) is not None
    return fit, dt, p.returncode

print("| family | tensors (requested) | colorer alone: fit | median | max | + exact search: fit | median | max | refused/timeout after |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
with tempfile.TemporaryDirectory() as tmp:
    for name, fam in families:
        for n in sizes:
            res = {"before": [], "after": []}
            bad_after = 0
            for seed in range(1, args.seeds + 1):
                path = os.path.join(tmp, "k.gca")
                with open(path, "w") as f:
                    subprocess.run([gen, "--planted-sb", str(n), "--seed", str(seed)] + fam, stdout=f, check=True)
                res["before"].append(run(path, ["--no-placement-search"]))
                r = run(path, [])
                res["after"].append(r)
                bad_after += r[2] != 0
            row = f"| {name} | {n}"
            for k in ("before", "after"):
                fits = sum(1 for r in res[k] if r[0])
                times = [r[1] for r in res[k]]
                row += f" | {fits}/{len(times)} | {statistics.median(times):.2f} s | {max(times):.2f} s"
            print(row + f" | {bad_after} |", flush=True)
