#!/bin/sh
# pack-deadline.sh GCA-GEN GCA-PACK OUT-DIR: gca-pack --search with a 1 ms clock and no node budget on a
# planted problem full at every point (long-short, 300 buffers), which it cannot place in 1 ms: it must
# stop at once with exit 3 (does not fit), search=gave-up and peak=none. Until session 32 its search's
# turns never ended there (their node budget overflowed once the clock had run out), so the suite's
# timeout is the check that it returns at all.
set -eu
gen=$1; pack=$2; dir=$3
mkdir -p "$dir"
"$gen" --planted-dsa long-short --buffers 300 --seed 9603 > "$dir/full.csv" 2> /dev/null
rc=0
"$pack" --capacity 1048576 --search --search-ms 1 -o "$dir/full.out.csv" "$dir/full.csv" 2> "$dir/full.log" || rc=$?
[ "$rc" = 3 ] || { echo "exit status $rc, expected 3"; cat "$dir/full.log"; exit 1; }
grep -q "peak=none .*search=gave-up" "$dir/full.log" || { echo "expected peak=none and search=gave-up:"; cat "$dir/full.log"; exit 1; }
echo "gave up in time: $(cat "$dir/full.log")"
