#!/usr/bin/env bash
# scripts/vs-minimalloc.sh — gca's 1-D search and MiniMalloc on the same planted problems, in one run, with
# the same wall-clock limit each (docs/PERFORMANCE.md section 1, "Against MiniMalloc, in the same run").
#
#   scripts/vs-minimalloc.sh --minimalloc PATH [--seeds FIRST-LAST] [--sizes 150,300] [--tightness 1,0.95]
#                            [--families cut,uniform] [--ms MS] [--files F.csv,...] [--log FILE]
#                            [--scale F] BUILD_DIR
#
# MiniMalloc is not part of gca: build it yourself (github.com/google/minimalloc) and pass its command-line
# binary, which is called as `PATH --capacity=C --input=IN --output=OUT --timeout=Ts`. Each instance is
# `gca-gen --planted-dsa FAMILY --buffers SIZE --seed S --tightness T` (feasible by construction at the
# capacity gca-gen prints), or each of --files at the capacity in its name (A.1048576.csv: 1048576). gca runs
# `gca-pack --capacity C --search --search-ms MS --threads 1`; both get MS milliseconds (default 5000).
# Either tool's placement is checked here (every buffer inside the capacity, no two live at once
# overlapping) before it counts; a placement that fails the check is printed as a BUG line. Per row: how many
# each tool placed, the median and largest time of those it placed (ms), and how many only one of them placed.
# --log FILE appends one line per problem: its name, then gca's placed (1/0) and ms, then MiniMalloc's, then
# gca-pack's search= field (found, infeasible, gave-up; off: its coloring placed it). --scale F asks both
# for a placement inside F x the capacity (rounded down; F < 1 makes problems that may have none), and
# --scale max-live (planted problems only) inside the problem's max-live, the least capacity that no count of
# bytes rules out: then a last column counts gca's proofs that none exists, and a problem that gca proves
# infeasible and MiniMalloc places (checked) is a BUG line: an independent check of gca's proofs.
set -uo pipefail
mm=""; first=10301; last=10305; sizes=150,300; tight=1; families=cut; ms=5000; files=""; log=/dev/null; scale=""
usage() { echo "usage: $0 --minimalloc PATH [--seeds FIRST-LAST] [--sizes a,b] [--tightness t1,t2] [--families a,b] [--ms MS] [--files F.csv,...] [--log FILE] [--scale F] BUILD_DIR" >&2; exit 1; }
while [ $# -gt 0 ]; do
  case $1 in
    --minimalloc) mm=$2; shift 2 ;;
    --seeds) first=${2%-*}; last=${2#*-}; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --tightness) tight=$2; shift 2 ;;
    --families) families=$2; shift 2 ;;
    --ms) ms=$2; shift 2 ;;
    --files) files=$2; shift 2 ;;
    --log) log=$2; shift 2 ;;
    --scale) scale=$2; shift 2 ;;
    -*) usage ;;
    *) break ;;
  esac
done
[ $# -eq 1 ] && [ -n "$mm" ] && [ -x "$mm" ] || usage
build=$1
gen="$build/examples/gca-gen"; pack="$build/examples/gca-pack"
[ -x "$gen" ] && [ -x "$pack" ] || { echo "$0: no gca-gen / gca-pack in $build/examples" >&2; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# check IN OUT CAP: exit 0 when OUT places every buffer of IN (same id, lower, upper, size) inside
# [0, CAP) with no two buffers that are live at once overlapping.
check() {
  python3 - "$1" "$2" "$3" <<'EOF'
import csv, sys
def rows(p):
    with open(p) as f:
        return {r["id"]: r for r in csv.DictReader(f)}
inp, out, cap = rows(sys.argv[1]), rows(sys.argv[2]), int(sys.argv[3])
if set(inp) != set(out): sys.exit(1)
b = []
for k, r in inp.items():
    o = out[k]
    if any(int(o[c]) != int(r[c]) for c in ("lower", "upper", "size")): sys.exit(1)
    off, size = int(o["offset"]), int(r["size"])
    if off < 0 or off + size > cap: sys.exit(1)
    b.append((int(r["lower"]), int(r["upper"]), off, off + size))
b.sort()
for i, (l, u, a, e) in enumerate(b):  # sorted by lower: only later buffers starting before u can meet it
    for l2, u2, a2, e2 in b[i + 1:]:
        if l2 >= u: break
        if a < e2 and a2 < e: sys.exit(1)
EOF
}

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# run_one NAME CSV CAP: appends "gca_ok gca_ms mm_ok mm_ms gca_infeasible" to $tmp/row
run_one() {
  local name=$1 csv=$2 cap=$3 t0 t1 g=0 gt=0 m=0 mt=0 verdict
  [ -z "$scale" ] || [ "$scale" = max-live ] || cap=$(awk -v c="$cap" -v f="$scale" 'BEGIN { printf "%d", c * f }')
  t0=$(now_ms)
  "$pack" --capacity "$cap" --search --search-ms "$ms" --threads 1 -o "$tmp/g.csv" "$csv" > "$tmp/g.log" 2>&1 && g=1
  t1=$(now_ms); gt=$((t1 - t0))
  verdict=$(grep -oE 'search=[a-z-]+' "$tmp/g.log" | tail -1 | cut -d= -f2)
  if [ $g = 1 ] && ! check "$csv" "$tmp/g.csv" "$cap"; then echo "BUG: gca's placement of $name fails the check" >&2; g=0; fi
  rm -f "$tmp/m.csv"
  t0=$(now_ms)
  "$mm" --capacity="$cap" --input="$csv" --output="$tmp/m.csv" --timeout="$((ms / 1000)).$(printf '%03d' $((ms % 1000)))s" > /dev/null 2>&1 && m=1
  t1=$(now_ms); mt=$((t1 - t0))
  if [ $m = 1 ] && ! check "$csv" "$tmp/m.csv" "$cap"; then echo "BUG: MiniMalloc's placement of $name fails the check" >&2; m=0; fi
  if [ "$verdict" = infeasible ] && [ $m = 1 ]; then echo "BUG: gca proves $name infeasible, MiniMalloc placed it" >&2; fi
  echo "$g $gt $m $mt $([ "$verdict" = infeasible ] && echo 1 || echo 0)" >> "$tmp/row"
  echo "$name $g $gt $m $mt ${verdict:-none}" >> "$log"
}

# summary LABEL: one table row from $tmp/row
summary() {
  awk -v label="$1" -v scaled="$scale" '
    function med(a, n,   i, j, t) { for (i = 1; i <= n; ++i) for (j = i + 1; j <= n; ++j) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
                                    return n ? a[int((n + 1) / 2)] "/" a[n] : "-" }
    { n++; if ($1) { g++; gt[g] = $2 } if ($3) { m++; mt[m] = $4 } if ($1 && !$3) go++; if ($3 && !$1) mo++; inf += $5 }
    END { printf "| %s | %d | %d | %s | %d | %s | %d | %d |%s\n", label, n, g + 0, med(gt, g), m + 0, med(mt, m), go + 0, mo + 0,
                 scaled == "" ? "" : sprintf(" %d |", inf) }' "$tmp/row"
}

for f in ${files//,/ }; do  # every file readable, with its capacity in its name, before any row
  [ -r "$f" ] || { echo "$0: $f: cannot read the file" >&2; exit 1; }
  case $(basename "$f" | cut -d. -f2) in ''|*[!0-9]*) echo "$0: $f: no capacity in its name (NAME.CAPACITY.csv)" >&2; exit 1 ;; esac
done
if [ -z "$scale" ]; then
  echo "| problems | n | gca placed | gca median/max ms | MiniMalloc placed | MiniMalloc median/max ms | only gca | only MiniMalloc |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|"
else
  echo "| problems (capacity $([ "$scale" = max-live ] && echo "= max-live" || echo "x $scale")) | n | gca placed | gca median/max ms | MiniMalloc placed | MiniMalloc median/max ms | only gca | only MiniMalloc | gca proved infeasible |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
fi
if [ -n "$files" ]; then
  [ "$scale" != max-live ] || { echo "$0: --scale max-live takes planted problems, not --files" >&2; exit 1; }
  : > "$tmp/row"
  for f in ${files//,/ }; do
    cap=$(basename "$f" | cut -d. -f2)
    run_one "$(basename "$f")" "$f" "$cap"
  done
  summary "files: $(for f in ${files//,/ }; do basename "$f" | cut -d. -f1; done | tr '\n' ' ' | sed 's/ $//')"
fi
if [ -z "$files" ]; then
  for fam in ${families//,/ }; do
    for n in ${sizes//,/ }; do
      for t in ${tight//,/ }; do
        : > "$tmp/row"
        for ((s = first; s <= last; ++s)); do
          "$gen" --planted-dsa "$fam" --buffers "$n" --seed "$s" --tightness "$t" > "$tmp/p.csv" 2> "$tmp/p.cap"
          cap=$(sed -E 's/.*capacity=([0-9]+).*/\1/' "$tmp/p.cap")
          [ "$scale" != max-live ] || cap=$(sed -E 's/.*max_live=([0-9]+).*/\1/' "$tmp/p.cap")
          run_one "$fam-$n-$t-seed$s" "$tmp/p.csv" "$cap"
        done
        summary "$fam ~$n at $t, seeds $first-$last"
      done
    done
  done
fi
