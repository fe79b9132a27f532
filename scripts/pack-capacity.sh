#!/usr/bin/env bash
# pack-capacity.sh GCA-GEN GCA-PACK... — gca-pack with a capacity on dense generated traces (docs/PERFORMANCE.md
# section 7, "With a capacity"): where the coloring does not fit, the exact search is due, and it builds the
# interference graph. For each trace (gca-gen --trace BUFFERS --live N --seed S) and capacity (its
# max-live, and one byte less), one row per gca-pack given (e.g. a build of an earlier commit, then this
# one): wall and CPU seconds, peak RSS, and the summary line's fits / search / nodes. The search's clock is
# gca-pack's default (2 s).
set -euo pipefail
gen=$1; shift
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo "| trace | capacity | gca-pack | wall | CPU | RSS | fits | search | nodes |"
echo "|---|---|---|---:|---:|---:|---|---|---:|"
for spec in "18000 100 79" "18000 500 80" "18000 1000 78" "62000 9000 77"; do
  read -r n live seed <<< "$spec"
  f="$tmp/t$n-$live.csv"
  "$gen" --trace "$n" --live "$live" --seed "$seed" > "$f"
  ml=$("${1}" "$f" -o /dev/null 2>&1 | sed -nE 's/.*max_live=([0-9]+).*/\1/p')
  for cap in "$ml" "$((ml - 1))"; do
    [ "$cap" = "$ml" ] && which="max-live" || which="max-live - 1"
    for pack in "$@"; do
      /usr/bin/time -o "$tmp/time" -f "%e %U %S %M" "$pack" --capacity "$cap" "$f" -o /dev/null 2> "$tmp/err" || true
      read -r wall user sys rss < <(tail -n 1 "$tmp/time")
      line=$(grep -E '^buffers=' "$tmp/err")
      fits=$(echo "$line" | sed -E 's/.*fits=([a-z]+).*/\1/'); search=$(echo "$line" | sed -E 's/.*search=([a-z-]+).*/\1/')
      nodes=$(echo "$line" | sed -E 's/.*nodes=([0-9]+).*/\1/')
      awk -v t="$n buffers, ~$live live (seed $seed)" -v c="$which" -v p="$(basename "$(dirname "$pack")")/$(basename "$pack")" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" \
          -v f="$fits" -v q="$search" -v k="$nodes" \
        'BEGIN {printf "| %s | %s | %s | %.2f s | %.2f s | %d MiB | %s | %s | %s |\n", t, c, p, w, u + s, r / 1024, f, q, k}'
    done
  done
done
