#!/bin/sh
# pack-dense.sh GCA-GEN GCA-PACK OUT-DIR: generates a dense training-step trace (gca-gen --trace 1500
# --live 300), packs it on both interference representations, and checks each packing independently of
# the engine: every buffer has an offset, and no two buffers whose lifetimes overlap share a byte (a
# pairwise check in awk). Fails on any overlap or tool error.
set -eu
gen=$1; pack=$2; dir=$3
mkdir -p "$dir"
"$gen" --trace 1500 --live 300 --seed 4 > "$dir/dense.csv"
for mode in graph intervals; do
  "$pack" --interference "$mode" -o "$dir/dense.$mode.out.csv" "$dir/dense.csv" 2> "$dir/dense.$mode.log"
  grep -q "interference=$mode" "$dir/dense.$mode.log" || { echo "$mode: no summary line"; cat "$dir/dense.$mode.log"; exit 1; }
  awk -F, 'NR > 1 { lo[NR] = $2; hi[NR] = $3; sz[NR] = $4; off[NR] = $5; n = NR
                    if ($5 == "") { print "buffer " $1 " has no offset"; bad = 1 } }
           END { for (i = 2; i <= n; i++) for (j = 2; j < i; j++)
                   if (lo[i] < hi[j] && lo[j] < hi[i] && off[i] < off[j] + sz[j] && off[j] < off[i] + sz[i]) {
                     print "overlap: lines " i " and " j; bad = 1; exit 1 }
                 exit bad }' "$dir/dense.$mode.out.csv" || { echo "$mode: invalid packing"; exit 1; }
done
echo "dense trace: both packings valid"
