#!/bin/sh
# Times `.ksy` descriptions against fwview's own ELF reader on the object
# of 1,000,000 symbols that scripts/compare.sh times, in the same run, and
# prints the ratios, the peak memory of each command and how many nodes
# each writes.
#
#   scripts/ksy-speed.sh [OBJECT]
#
# Two descriptions: the gallery's executable/elf.ksy (Kaitai Struct's,
# tests/data/ksy/), which computes nine instances for each symbol, and
# scripts/elf64-symbols.ksy, which reads each symbol's six fields and
# nothing more, the nodes the native reader shows. Each is timed with
# `--json` against `fwview --json` with the default threads and with one
# (FWVIEW_THREADS=1), medians of RUNS (default 5) runs made in turns; the
# "per node" ratio divides each wall time by the lines `--tree` writes.
set -eu
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
FW=${FWVIEW:-${CARGO_TARGET_DIR:-target}/release/fwview}

[ -x "$FW" ] || cargo build --release --quiet
. scripts/objects.sh
OBJ=${1:-${CARGO_TARGET_DIR:-target}/compare/1m-symbols.o}
million_symbols "$OBJ"
GALLERY=tests/data/ksy/executable/elf.ksy
PLAIN=scripts/elf64-symbols.ksy

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
. scripts/timing.sh

native=$("$FW" --tree "$OBJ" | wc -l)
echo "object: $OBJ ($(wc -c < "$OBJ") bytes); native reader: $native nodes"
echo "median of $RUNS runs each, in turns, output to /dev/null; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for threads in default 1; do
    env="env "
    [ "$threads" = default ] || env="env FWVIEW_THREADS=$threads "
    for k in "$GALLERY" "$PLAIN"; do
        nodes=$("$FW" --ksy "$k" --tree "$OBJ" | wc -l)
        pair "$(basename "$k"), $threads thread(s)" \
            "$env$FW --ksy $k --json $OBJ" "$env$FW --json $OBJ" "native"
        echo "    $nodes nodes (x$(awk -v a="$nodes" -v b="$native" 'BEGIN { printf "%.2f", a / b }')), per node x$(awk -v a="$a" -v b="$b" -v n="$nodes" -v m="$native" 'BEGIN { printf "%.2f", (a / n) / (b / m) }')"
    done
done
# What the first frame needs: the header read, nothing below it.
once "$FW --ksy $GALLERY --extract header/e_type -o - $OBJ" > "$TMP/f"
echo "open and read to header/e_type: $(cut -d' ' -f1 "$TMP/f") s, $(cut -d' ' -f3 "$TMP/f") KiB"
