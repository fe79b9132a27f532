#!/usr/bin/env bash
# scripts/planted-dsa-fits.sh — how many planted 1-D problems gca-pack fits at their planted capacity,
# per family and size, for one or more builds side by side (docs/PERFORMANCE.md section 1).
#
#   scripts/planted-dsa-fits.sh [--seeds FIRST-LAST] [--nodes N] [--sizes 50,100,200] [--tightness T]
#                               [--families uniform,cut,...] [--ms MS] [--capacity-scale F] BUILD_DIR...
#
# Each instance is `gca-gen --planted-dsa FAMILY --buffers SIZE --seed S --tightness T` (T = 1 unless given;
# below 1, buffers taken out at random leave free space: the planted offsets still fit; feasible by construction at the
# capacity gca-gen prints); every build gets `gca-pack --capacity C --search-nodes N --threads 1` on the
# same file, one after the other, so the comparison is of one run. Node budgets, not clocks: the counts
# do not depend on the machine (the search's clock, 2 s by default in gca-pack, is set to an hour so that
# it never decides; before session 29 it could, on a loaded machine, at budgets of 500,000 nodes). With
# --ms MS the clock decides instead: MS milliseconds each, no node budget (the targets are times). With
# --capacity-scale F each problem is asked at F x its planted capacity (rounded down; F > 1 gives room beyond
# it, which the search must not lose on: docs/PERFORMANCE.md section 1, "Max-live turns"). Defaults: seeds 301-310 (not the seeds the search was developed on),
# 20000 nodes, sizes 50,100,200. A build's gca-pack that claims "infeasible" on a planted instance is
# reported as a bug. Beside each count: the median and the largest time in ms of the runs that fit. To compare with an older commit: `git worktree add ../base REV`, build its gca-pack
# there (meson setup ../base/build --buildtype=release && ninja -C ../base/build examples/gca-pack), and
# pass both build directories, the newer last (its gca-gen makes the instances).
set -uo pipefail
first=301; last=310; nodes=20000; sizes=50,100,200; tightness=1; ms=""; scale=1; families="uniform heavy long-short identical cut ramp"
while [ $# -gt 0 ]; do
  case $1 in
    --seeds) first=${2%-*}; last=${2#*-}; shift 2 ;;
    --nodes) nodes=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --tightness) tightness=$2; shift 2 ;;
    --ms) ms=$2; shift 2 ;;
    --families) families=${2//,/ }; shift 2 ;;
    --capacity-scale) scale=$2; shift 2 ;;
    -*) echo "usage: $0 [--seeds FIRST-LAST] [--nodes N] [--sizes a,b,c] [--tightness T] [--families a,b] [--ms MS] [--capacity-scale F] BUILD_DIR..." >&2; exit 1 ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || { echo "usage: $0 [--seeds FIRST-LAST] [--nodes N] [--sizes a,b,c] [--tightness T] [--families a,b] [--ms MS] [--capacity-scale F] BUILD_DIR..." >&2; exit 1; }
gen="${!#}/examples/gca-gen"; [ -x "$gen" ] || { echo "$0: no $gen (the last build generates the instances)" >&2; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf '%-16s' "family-size"; for b in "$@"; do printf ' %22s' "$(basename "$(dirname "$b")")/$(basename "$b")"; done; echo
for fam in $families; do
  for n in ${sizes//,/ }; do
    declare -a fit=(); for ((k = 0; k < $#; ++k)); do fit[k]=0; : > "$tmp/ms.$k"; done
    for ((s = first; s <= last; ++s)); do
      "$gen" --planted-dsa "$fam" --buffers "$n" --seed "$s" --tightness "$tightness" > "$tmp/p.csv" 2> "$tmp/p.cap"
      cap=$(sed -E 's/.*capacity=([0-9]+).*/\1/' "$tmp/p.cap")
      cap=$(awk -v c="$cap" -v f="$scale" 'BEGIN { printf "%d", c * f }')
      k=0
      for b in "$@"; do
        if [ -n "$ms" ]; then budget=(--search-ms "$ms"); else budget=(--search-nodes "$nodes" --search-ms 3600000); fi
        out=$("$b/examples/gca-pack" --capacity "$cap" "${budget[@]}" --threads 1 -o "$tmp/o.csv" "$tmp/p.csv" 2>&1)
        rc=$?
        [ $rc = 0 ] && fit[k]=$((fit[k] + 1)) && echo "$out" | grep -oE 'time_ms=[0-9]+' | cut -d= -f2 >> "$tmp/ms.$k"
        if echo "$out" | grep -q 'search=infeasible'; then echo "BUG: $b claims infeasible: $fam $n seed $s" >&2; fi
        k=$((k + 1))
      done
    done
    printf '%-16s' "$fam-$n"
    for ((k = 0; k < $#; ++k)); do  # fits, and the median and largest time (ms) of the ones that fit
      t=$(sort -n "$tmp/ms.$k" | awk '{a[NR] = $1} END {if (NR) printf "%d/%d", a[int((NR + 1) / 2)], a[NR]; else printf "-"}')
      printf ' %22s' "${fit[k]}/$((last - first + 1)) $t"
    done
    echo
  done
done
