#!/usr/bin/env bash
# bench_flush.sh — the flush's regression guard: perf_fast_forward --populate of the current
# tree and of a given commit, built alike, run alternately in one window, each round printed
# with its paired ratio (current / base) and the median of those ratios at the end.
#
# A benchmark comparison in CI would be noise on shared 2-core machines; a paired run of two
# builds, alternating, is what stays reproducible: both see the same machine at nearly the same
# time. Run it by hand (make bench-flush BASE=<commit>) before and after a change of the write
# path and quote its last lines.
#
#   BASE     the commit to compare with (required), e.g. b06768d (round 1) or main
#   ROUNDS   rounds (default 5); each round runs base then current, or current then base on
#            odd rounds, so neither always runs first
#   ARGS     perf_fast_forward's arguments (default: 1M small partitions, one 2 GiB memtable,
#            mc, LZ4, one compression job)
#   TAGS     build tags (default: what make print-tags finds)
#   BURN     1: keep one core busy with `yes > /dev/null` during the runs (the "one core taken
#            by another process" case); cpu-ns/row is then the per-core figure to compare
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
: "${BASE:?set BASE to the commit to compare with, e.g. make bench-flush BASE=b06768d}"
ROUNDS=${ROUNDS:-5}
ARGS=${ARGS:---rows 1000000 --datasets small-part --flush-threshold 2GiB --compression lz4 --jobs 1 --sstable-format mc}
TAGS=${TAGS-}
w=$(mktemp -d)
burner=
cleanup() {
  [ -n "$burner" ] && kill "$burner" 2>/dev/null || true
  rm -rf "$w"
}
trap cleanup EXIT

tagflag=
[ -n "$TAGS" ] && tagflag="-tags $TAGS"
base=$(git -C "$here" rev-parse --short "$BASE")
echo "building current tree ($(git -C "$here" rev-parse --short HEAD)$(git -C "$here" diff --quiet || echo +dirty)) and $base ${TAGS:+with -tags $TAGS}"
(cd "$here" && go build $tagflag -o "$w/current" ./perf/perf_fast_forward)
mkdir "$w/src"
git -C "$here" archive "$base" | tar -x -C "$w/src"
(cd "$w/src" && go build $tagflag -o "$w/base" ./perf/perf_fast_forward)

if [ "${BURN:-0}" = 1 ]; then
  yes > /dev/null &
  burner=$!
  echo "one core taken by yes (pid $burner)"
fi

# run BIN -> prints "frag/s cpu-ns/row" of the (one) flush configuration ARGS name; with several
# configurations, the mean over them.
run() {
  local json="$w/out.json" data="$w/data"
  rm -rf "$data"
  # shellcheck disable=SC2086
  "$1" --populate $ARGS --data-directory "$data" --json-output "$json" > /dev/null
  awk '
    /"frag\/s":/ { gsub(/[,]/, "", $2); f += $2; n++ }
    /"frags":/   { gsub(/[,]/, "", $2); frags = $2 }
    /"time":/    { gsub(/[,]/, "", $2); t = $2 }
    /"cpu":/     { gsub(/[,]/, "", $2); c += $2 * t * 1e9 / frags }
    END { if (n == 0) exit 1; printf "%.0f %.1f\n", f / n, c / n }' "$json"
}

echo "perf_fast_forward --populate $ARGS"
printf '%-6s %14s %14s %14s %14s %10s %10s\n' round "base frag/s" "cur frag/s" "base cpu-ns" "cur cpu-ns" "ratio f/s" "ratio cpu"
ratios=()
cratios=()
for r in $(seq 1 "$ROUNDS"); do
  if [ $((r % 2)) = 1 ]; then
    read -r bf bc < <(run "$w/base")
    read -r cf cc < <(run "$w/current")
  else
    read -r cf cc < <(run "$w/current")
    read -r bf bc < <(run "$w/base")
  fi
  ratio=$(awk -v a="$cf" -v b="$bf" 'BEGIN { printf "%.3f", a / b }')
  cratio=$(awk -v a="$cc" -v b="$bc" 'BEGIN { printf "%.3f", b / a }')
  ratios+=("$ratio")
  cratios+=("$cratio")
  printf '%-6s %14s %14s %14s %14s %10s %10s\n' "$r" "$bf" "$cf" "$bc" "$cc" "$ratio" "$cratio"
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "paired ratio current/$base: frag/s median $(median "${ratios[@]}") [$(printf '%s ' "${ratios[@]}")]; CPU per row (base/current, >1 = current cheaper) median $(median "${cratios[@]}") [$(printf '%s ' "${cratios[@]}")]"
