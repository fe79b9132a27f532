#!/usr/bin/env bash
# loops.sh: what flattened loops (-O6) save over opaque loops (-O2): SB and PSUM peaks (bytes per
# partition) and webs/bytes spilled, per kernel, from gca-alloc's JSON report, for both allocator
# families (coloring and lsa). Prints a Markdown table.
set -uo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
build/examples/gca-gen --points 3000 --pressure 2.2 --seed 3 > "$tmp/gen-pressure.gca"
echo "| kernel | allocator | level | result | PSUM peak | SB peak | webs spilled | bytes/partition spilled |"
echo "|---|---|---|---|---:|---:|---:|---:|"
for k in examples/kernels/attention.gca examples/kernels/matmul.gca tests/tool_inputs/loop_pressure.gca "$tmp/gen-pressure.gca"; do
 for family in coloring lsa; do
  for level in -O2 -O6; do
    build/examples/gca-alloc "$level" --allocator "$family" --json "$tmp/r.json" "$k" 2>"$tmp/err" >/dev/null; rc=$?
    if [ "$rc" = 0 ]; then
      python3 - "$tmp/r.json" "$(basename "$k") | $family" "$level" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
peak = {"psum": 0, "sb": 0}
for f in d["functions"]:
    for p in f["peaks"]:
        if p["memory"] in peak: peak[p["memory"]] = max(peak[p["memory"]], p["peak"])
webs = sum(fr["spills"]["spilled_webs"] for p in d["passes"] for fr in p["functions"] if fr["memory"] in ("psum", "sb"))
byts = sum(fr["spills"]["spilled_bytes"] for p in d["passes"] for fr in p["functions"] if fr["memory"] in ("psum", "sb"))
print(f"| {sys.argv[2]} | {sys.argv[3]} | allocated | {peak['psum']} | {peak['sb']} | {webs} | {byts} |")
PY
    else
      echo "| $(basename "$k") | $family | $level | exit $rc ($(grep -o "spilling can't help" "$tmp/err" | head -1)) | | | | |"
    fi
  done
 done
done
rm -rf "$tmp"
