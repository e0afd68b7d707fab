#!/bin/sh
# Times fwview's headless output against readelf and llvm-readelf on an ELF
# object with 1,000,000 symbols, in the same run, and prints the ratios and
# the peak memory of each command.
#
#   scripts/compare.sh [OBJECT]
#
# Without OBJECT, target/compare/1m-symbols.o is assembled with `as` if it
# is not there yet. Prints the median wall time, the median CPU time (user
# and system, all threads) and the median peak resident memory of RUNS runs
# (default 5) of each command; GNU time (/usr/bin/time) gives the last two.
set -eu
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
FW=${FWVIEW:-target/release/fwview}
LLVM_READELF=${LLVM_READELF:-llvm-readelf-22}

[ -x "$FW" ] || cargo build --release --quiet
. scripts/objects.sh
OBJ=${1:-target/compare/1m-symbols.o}
million_symbols "$OBJ"
echo "object: $OBJ ($(wc -c < "$OBJ") bytes)"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
. scripts/timing.sh

echo "median of $RUNS runs each, in turns, output to /dev/null; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
pair "--tree" "$FW --tree $OBJ" "readelf -S -s -W $OBJ" "readelf"
pair "--json" "$FW --json $OBJ" "$LLVM_READELF --elf-output-style=JSON -S -s $OBJ" "llvm-readelf"
