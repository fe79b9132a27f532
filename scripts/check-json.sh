#!/bin/sh
# check-json.sh [json|svg] GCA_ALLOC KERNEL.gca OUT
# Runs `GCA_ALLOC --json OUT KERNEL.gca` (or --svg) and checks the report: the JSON must parse and carry
# the report's keys, and its per-memory peaks must agree with its tensors' placements; the SVG must be
# well-formed XML with an <svg> root and no scripts. Exit 77 (skipped) when python3 is missing.
mode=json
case $1 in json|svg) mode=$1; shift ;; esac
if [ $# -ne 3 ]; then echo "usage: check-json.sh [json|svg] GCA_ALLOC KERNEL.gca OUT" >&2; exit 2; fi
gca_alloc=$1; kernel=$2; out=$3
command -v python3 >/dev/null 2>&1 || { echo "python3 not found: skipped"; exit 77; }
rm -f "$out"
"$gca_alloc" "--$mode" "$out" "$kernel" || { echo "gca-alloc --$mode failed on $kernel"; exit 1; }
[ -s "$out" ] || { echo "gca-alloc wrote no $mode to $out"; exit 1; }
if [ "$mode" = json ]; then
  python3 - "$out" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1], encoding="utf-8"))
for key in ("module", "target", "functions", "passes"):
    assert key in doc, "missing key %r" % key
assert doc["functions"], "no functions"
for f in doc["functions"]:
    for key in ("name", "core", "peaks", "tensors"):
        assert key in f, "function without %r" % key
    for t in f["tensors"]:
        assert t["memory"] in ("sb", "psum", "dram", "reg"), t
        assert t["role"] in ("tensor", "spill_slot", "reload_temp"), t
    for pk in f["peaks"]:
        ts = [t for t in f["tensors"] if t["memory"] == pk["memory"] and t["space"] == pk["space"]]
        placed = [t for t in ts if t["placement"] is not None]
        def end(t):
            at, sh = t["placement"], t["shape"]
            if t["memory"] == "reg": return at["offset"] + 1
            if t["memory"] == "dram": return at["offset"] + sh["partitions"] * sh["bytes"]
            return at["offset"] + sh["bytes"]
        assert pk["tensors"] == len(ts) and pk["unplaced"] == len(ts) - len(placed), (f["name"], pk)
        assert pk["peak"] == max([end(t) for t in placed], default=0), (f["name"], pk)
for p in doc["passes"]:
    for r in p["functions"]:
        assert "spills" in r and "spilled_webs" in r["spills"], r
print("%s: valid JSON, %d functions, %d pass reports" % (sys.argv[1], len(doc["functions"]), len(doc["passes"])))
EOF
else
  python3 - "$out" <<'EOF'
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "{http://www.w3.org/2000/svg}svg", root.tag
scripts = list(root.iter("{http://www.w3.org/2000/svg}script"))
assert not scripts, "the SVG must not contain scripts"
print("%s: well-formed SVG, %d elements" % (sys.argv[1], sum(1 for _ in root.iter())))
EOF
fi
