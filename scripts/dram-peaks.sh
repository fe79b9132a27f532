#!/bin/sh
# dram-peaks.sh KERNEL...: the local and debug DRAM peak of each function at -O2 and at -O7 (the 1-D exact
# search of spill/dram_peak.hpp), with -O7's verdict, as Markdown table rows (docs/PERFORMANCE.md,
# section 9). Runs build/examples/gca-alloc with --verify at both levels; a failed verification fails.
set -e
alloc=${GCA_ALLOC:-build/examples/gca-alloc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for k in "$@"; do
  "$alloc" -O2 --verify --json "$tmp/o2.json" "$k" 2>"$tmp/o2.err" >/dev/null
  "$alloc" -O7 --verify --json "$tmp/o7.json" "$k" 2>"$tmp/o7.err" >/dev/null
  grep -q 'verify: ok' "$tmp/o2.err" && grep -q 'verify: ok' "$tmp/o7.err" || { echo "$k: not verified" >&2; exit 1; }
  python3 - "$k" "$tmp/o2.json" "$tmp/o7.json" "$tmp/o7.err" <<'PY'
import json, sys
name, o2, o7, err = sys.argv[1:]
def peaks(path):
    out = {}
    for p in json.load(open(path))["passes"]:
        if p["pass"] in ("coloring_allocator_dram", "coloring_allocator_dram_debug"):
            for f in p["functions"]:
                out.setdefault((p["pass"], f["function"]), f["peak"])
    return out
a, b = peaks(o2), peaks(o7)
verdicts = {}
for line in open(err):
    if line.startswith("smt-allocation: coloring_allocator_dram"):
        head, v = line.split(": DRAM: ", 1)
        pas = head.split(": ")[1]
        fn = head.split("function '")[1].rstrip("'")
        verdicts.setdefault((pas, fn), v.split(" (")[0])
for key in sorted(a):
    pas, fn = key
    space = "debug" if pas.endswith("debug") else "local"
    print(f"| `{name.split('/')[-1]}` | {fn} | {space} | {a[key]} | {b[key]} | {verdicts.get(key, '?')} |")
PY
done
