#!/usr/bin/env python3
"""planted_sb_bench.py [--first-seed F] [--seeds K] [--sizes N,...] [--timeout S] [--build DIR]
                       [--before DIR] [--no-colorer] [--opt L] [--allocator color|lsa] [--holes H]
                       [--memory sb|psum] [--construction epochs|sweep] [--tightness T] [--spills]
                       [--peaks]
Fit rate and time of gca-alloc -O2 (or -OL, and --allocator) on planted SB kernels (gca-gen --planted-sb: a spill-free placement
exists by construction), seeds F..F+K-1. Columns: the colorer alone (--no-placement-search, unless
--no-colorer), then, with --before DIR, the colorer plus the exact placement search of another build (e.g.
one made from an earlier commit), then the colorer plus the search of --build (default: build). Every
kernel is made by --build's gca-gen and run by each build in turn, in one run. "Fit" means allocated with 0
webs spilled; a refusal, a spill or the watchdog (--timeout) is a miss. Prints a Markdown table for
docs/PERFORMANCE.md; --log FILE appends one line per kernel and build (fit, seconds, exit code).
--holes H passes gca-gen --holes (a share of the unpinned tensors removed: free space scattered through
the busiest points); --memory psum plants the kernels in PSUM instead (gca-gen --planted-psum);
--construction sweep passes gca-gen --construction sweep (places cut anew as tensors die, no epochs).
--tightness T passes gca-gen --tightness (the planted placement uses that share of the bytes: room to spare
above it in every partition).
--spills adds, per build, the webs spilled by the kernels it allocated with a spill (their sum, and how
many such kernels), for the quality of the misses rather than their count.
--peaks adds, per build, the median high-water of the planted memory (gca-alloc --json: bytes per
partition, SB or PSUM) over the kernels every build allocated without a spill, as a share of the memory's
capacity; and, with --before, how many of those kernels the --build build leaves lower / higher than the
--before build."""
import argparse, json, os, re, statistics, subprocess, tempfile, time

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
families = [("mixed partitions", ["--family", "mixed"]), ("128-only", ["--family", "128"]),
            ("mixed, 20 % pinned", ["--family", "mixed", "--pins", "0.2"]), ("tight partition mixes", ["--family", "tight"]),
            ("tight, 20 % pinned", ["--family", "tight", "--pins", "0.2"])]

ap = argparse.ArgumentParser()
ap.add_argument("--first-seed", type=int, default=1)
ap.add_argument("--seeds", type=int, default=5)
ap.add_argument("--sizes", default="20,60,150,300")
ap.add_argument("--families", default="", help="comma-separated prefixes of family names (default: all)")
ap.add_argument("--timeout", type=float, default=20)
ap.add_argument("--build", default=os.path.join(root, "build"))
ap.add_argument("--before", default="")
ap.add_argument("--no-colorer", action="store_true")
ap.add_argument("--log", default="")
ap.add_argument("--opt", default="2", help="gca-alloc's optlevel (1, 2, 3, 6, 7)")
ap.add_argument("--allocator", default="", help="gca-alloc --allocator (color or lsa; default: its own)")
ap.add_argument("--holes", default="", help="gca-gen --holes (default: none)")
ap.add_argument("--memory", default="sb", choices=["sb", "psum"], help="plant in SB (default) or PSUM")
ap.add_argument("--construction", default="", choices=["", "epochs", "sweep"], help="gca-gen --construction")
ap.add_argument("--tightness", default="", help="gca-gen --tightness (default: 1, full busiest points)")
ap.add_argument("--spills", action="store_true", help="add the webs spilled by the kernels that spill")
ap.add_argument("--peaks", action="store_true", help="add the median high-water, and lower/higher counts")
args = ap.parse_args()
sizes = [int(s) for s in args.sizes.split(",")]
gen = os.path.join(args.build, "examples", "gca-gen")
alloc = os.path.join(args.build, "examples", "gca-alloc")
columns = []  # (key, title, gca-alloc, extra flags)
if not args.no_colorer:
    columns.append(("colorer", "colorer alone", alloc, ["--no-placement-search"]))
if args.before:
    columns.append(("before", "+ search, before", os.path.join(args.before, "examples", "gca-alloc"), []))
columns.append(("after", "+ exact search", alloc, []))
wanted = [f for f in families if not args.families or any(f[0].startswith(p) for p in args.families.split(","))]

def peak_of(json_path):
    """The planted memory's high-water and capacity from gca-alloc --json, or None."""
    try:
        with open(json_path) as f:
            d = json.load(f)
        p = [x for x in d["functions"][0]["peaks"] if x["memory"] == args.memory][0]
        return p["peak"], p["capacity"]
    except (OSError, ValueError, KeyError, IndexError):
        return None

def run(exe, path, extra):
    t0 = time.perf_counter()
    alloc_flags = ["--allocator", args.allocator] if args.allocator else []
    json_path = path + ".json"
    json_flags = ["--json", json_path] if args.peaks else []
    if args.peaks and os.path.exists(json_path):
        os.remove(json_path)
    p = subprocess.run([exe, "-O" + args.opt, "--threads", "1", "--timeout", str(args.timeout)] + alloc_flags + json_flags + extra + [path],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    dt = time.perf_counter() - t0
    fit = p.returncode == 0 and re.search(r", 0 webs spilled,", p.stderr) is not None
    m = re.search(r", (\d+) webs spilled,", p.stderr) if p.returncode == 0 else None
    return fit, dt, p.returncode, int(m.group(1)) if m else 0, peak_of(json_path) if args.peaks and fit else None

head = "| family | tensors (requested) |"
rule = "|---|---:|"
for _, title, _, _ in columns:
    head += f" {title}: fit | median | max |" + (" webs spilled (kernels) |" if args.spills else "")
    rule += "---:|---:|---:|" + ("---:|" if args.spills else "")
    if args.peaks:
        head += " median high-water |"
        rule += "---:|"
if args.peaks and args.before:
    head += " high-water lower / higher than before |"
    rule += "---:|"
print(head + " misses (refused/timeout) after |")
print(rule + "---:|")
log = open(args.log, "a") if args.log else None
with tempfile.TemporaryDirectory() as tmp:
    for name, fam in wanted:
        for n in sizes:
            res = {k: [] for k, _, _, _ in columns}
            bad_after = 0
            for seed in range(args.first_seed, args.first_seed + args.seeds):
                path = os.path.join(tmp, "k.gca")
                with open(path, "w") as f:
                    subprocess.run([gen, "--planted-" + args.memory, str(n), "--seed", str(seed)] + fam + (["--holes", args.holes] if args.holes else []) + (["--construction", args.construction] if args.construction else []) + (["--tightness", args.tightness] if args.tightness else []), stdout=f, check=True)
                for key, _, exe, extra in columns:
                    r = run(exe, path, extra)
                    res[key].append(r)
                    if log:
                        print(f"{name}\t{n}\t{seed}\t{key}\t{int(r[0])}\t{r[1]:.2f}\t{r[2]}", file=log, flush=True)
                bad_after += res["after"][-1][2] != 0
            row = f"| {name} | {n}"
            # the kernels every build allocated without a spill, for comparable high-waters
            both = [i for i in range(args.seeds) if all(res[k][i][4] is not None for k, _, _, _ in columns)]
            for key, _, _, _ in columns:
                fits = sum(1 for r in res[key] if r[0])
                times = [r[1] for r in res[key]]
                row += f" | {fits}/{len(times)} | {statistics.median(times):.2f} s | {max(times):.2f} s"
                if args.spills:
                    spilled = [r[3] for r in res[key] if r[3] > 0]
                    row += f" | {sum(spilled)} ({len(spilled)})"
                if args.peaks:
                    shares = [res[key][i][4][0] / res[key][i][4][1] for i in both]
                    row += f" | {100 * statistics.median(shares):.2f} % ({len(both)})" if shares else " | - |"
            if args.peaks and args.before:
                lo = sum(1 for i in both if res["after"][i][4][0] < res["before"][i][4][0])
                hi = sum(1 for i in both if res["after"][i][4][0] > res["before"][i][4][0])
                row += f" | {lo} / {hi}"
            print(row + f" | {bad_after} |", flush=True)
