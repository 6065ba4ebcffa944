#!/usr/bin/env bash
# Builds libdeflate 1.25 from the bundled source in ../shared/tools/checksum-anchor (plain gcc,
# as its build.sh does), links checksum_pair against it and runs it pinned to one core
# (CPU, default 1). Arguments go to checksum_pair, e.g. ./run.sh -sizes 64,514,4096 -pairs 500.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=${ANCHOR:-$here/../../../shared/tools/checksum-anchor/libdeflate-1.25-src.tar.gz}
[ -f "$src" ] || { echo "checksum_pair: $src not found (set ANCHOR to libdeflate-1.25-src.tar.gz)" >&2; exit 1; }
w=$(mktemp -d); trap 'rm -rf "$w"' EXIT
tar xzf "$src" -C "$w"
mkdir "$w/o"
for f in "$w"/libdeflate/lib/*.c "$w"/libdeflate/lib/x86/cpu_features.c; do
  gcc -O2 -DNDEBUG -std=c99 -I"$w/libdeflate" -c "$f" -o "$w/o/$(basename "$(dirname "$f")")_$(basename "$f" .c).o"
done
ar rcs "$w/libdeflate.a" "$w"/o/*.o
cd "$here"
CGO_ENABLED=1 CGO_CFLAGS="-O2 -I$w/libdeflate" CGO_LDFLAGS="$w/libdeflate.a" go build -o "$w/checksum_pair" .
taskset -c "${CPU:-1}" "$w/checksum_pair" "$@"
