#!/bin/sh
# vs-minimalloc-check.sh BUILD_DIR OUT_DIR: checks scripts/vs-minimalloc.sh itself, without MiniMalloc. Two
# stand-ins take MiniMalloc's command line: one writes every buffer at offset 0 (overlapping), which the
# harness must reject (a BUG line, counted as not placed); the other writes gca-pack's placement, which it
# must accept; at half the capacity, gca's proof that no placement exists is counted. On one planted problem
# of 20 buffers, which gca places in a few nodes.
set -eu
build=$1; dir=$2
here=$(dirname "$0")
mkdir -p "$dir"
cat > "$dir/overlapping" <<'STUB'
#!/bin/sh
for a in "$@"; do case $a in --input=*) in=${a#--input=} ;; --output=*) out=${a#--output=} ;; esac; done
awk -F, 'NR == 1 { print $0 ",offset"; next } { print $0 ",0" }' "$in" > "$out"
STUB
cat > "$dir/by-gca-pack" <<STUB
#!/bin/sh
for a in "\$@"; do case \$a in --capacity=*) cap=\${a#--capacity=} ;; --input=*) in=\${a#--input=} ;; --output=*) out=\${a#--output=} ;; esac; done
exec "$build/examples/gca-pack" --capacity "\$cap" --search -o "\$out" "\$in" > /dev/null 2>&1
STUB
chmod +x "$dir/overlapping" "$dir/by-gca-pack"
row() { grep '^| cut ~20 at 1' "$1"; }
"$here/vs-minimalloc.sh" --minimalloc "$dir/overlapping" --families cut --sizes 20 --seeds 1-1 --tightness 1 \
  --ms 60000 "$build" > "$dir/bad.md" 2> "$dir/bad.err"
grep -q "BUG: MiniMalloc's placement of cut-20-1-seed1 fails the check" "$dir/bad.err" ||
  { echo "no BUG line for an overlapping placement:"; cat "$dir/bad.err"; exit 1; }
row "$dir/bad.md" | grep -q '^| cut ~20 at 1, seeds 1-1 | 1 | 1 | [0-9]*/[0-9]* | 0 | - | 1 | 0 |$' ||
  { echo "expected gca 1, MiniMalloc 0:"; cat "$dir/bad.md"; exit 1; }
"$here/vs-minimalloc.sh" --minimalloc "$dir/by-gca-pack" --families cut --sizes 20 --seeds 1-1 --tightness 1 \
  --ms 60000 "$build" > "$dir/good.md" 2> "$dir/good.err"
[ ! -s "$dir/good.err" ] || { echo "unexpected stderr:"; cat "$dir/good.err"; exit 1; }
row "$dir/good.md" | grep -q '^| cut ~20 at 1, seeds 1-1 | 1 | 1 | [0-9]*/[0-9]* | 1 | [0-9]*/[0-9]* | 0 | 0 |$' ||
  { echo "expected both placed:"; cat "$dir/good.md"; exit 1; }
# Half the capacity of a problem whose busiest point is full: gca proves it infeasible (the last column).
"$here/vs-minimalloc.sh" --minimalloc "$dir/by-gca-pack" --families cut --sizes 20 --seeds 1-1 --tightness 1 \
  --ms 60000 --scale 0.5 --log "$dir/half.log" "$build" > "$dir/half.md" 2> "$dir/half.err"
row "$dir/half.md" | grep -q '^| cut ~20 at 1, seeds 1-1 | 1 | 0 | - | 0 | - | 0 | 0 | 1 |$' ||
  { echo "expected a proof of infeasibility at half the capacity:"; cat "$dir/half.md" "$dir/half.err"; exit 1; }
grep -q '^cut-20-1-seed1 0 [0-9]* 0 [0-9]* infeasible$' "$dir/half.log" || { echo "log:"; cat "$dir/half.log"; exit 1; }
echo "rejects an overlapping placement, accepts a valid one, counts a proof of infeasibility"
