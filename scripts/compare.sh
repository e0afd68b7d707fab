#!/bin/sh
# Times fwview's headless output against readelf and llvm-readelf on an ELF
# object with 1,000,000 symbols, in the same run, and prints the ratios and
# the peak memory of each command.
#
#   scripts/compare.sh [OBJECT]
#
# Without OBJECT, target/compare/1m-symbols.o is assembled with `as` if it
# is not there yet. Uses hyperfine when installed, else a loop of runs.
set -eu
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
FW=${FWVIEW:-target/release/fwview}
LLVM_READELF=${LLVM_READELF:-llvm-readelf-22}

[ -x "$FW" ] || cargo build --release --quiet
OBJ=${1:-target/compare/1m-symbols.o}
if [ ! -f "$OBJ" ]; then
    mkdir -p "$(dirname "$OBJ")"
    python3 -c '
import sys
w = sys.stdout.write
w(".text\n")
for n in range(1000000):
    w(".globl sym_%07d\nsym_%07d:\n" % (n, n))
' > "$OBJ.s"
    as "$OBJ.s" -o "$OBJ"
    rm -f "$OBJ.s"
fi
echo "object: $OBJ ($(wc -c < "$OBJ") bytes)"

# Median wall time of RUNS runs of a command, in seconds.
median() {
    i=0
    : > "$TMP/times"
    while [ $i -lt "$RUNS" ]; do
        s=$(date +%s.%N)
        sh -c "$1" > /dev/null
        e=$(date +%s.%N)
        awk -v s="$s" -v e="$e" 'BEGIN { printf "%.6f\n", e - s }' >> "$TMP/times"
        i=$((i + 1))
    done
    sort -n "$TMP/times" | awk '{ a[NR] = $1 } END { printf "%.3f", a[int((NR + 1) / 2)] }'
}

# Median wall time through hyperfine.
hmedian() {
    hyperfine --runs "$RUNS" --warmup 1 --style none --export-json "$TMP/h.json" "$1" > /dev/null 2>&1
    python3 -c 'import json,sys; print("%.3f" % json.load(open(sys.argv[1]))["results"][0]["median"])' "$TMP/h.json"
}

# Peak resident memory of one run, in KiB.
peak() {
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -f %M sh -c "exec $1 > /dev/null" 2>&1 | tail -1
    else
        echo "?"
    fi
}

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
if command -v hyperfine > /dev/null; then T=hmedian; else T=median; fi

pair() {
    label=$1 ours=$2 theirs=$3 name=$4
    if ! command -v "${theirs%% *}" > /dev/null; then
        echo "$label: ${theirs%% *} not installed; skipped"
        return
    fi
    a=$($T "$ours")
    b=$($T "$theirs")
    ma=$(peak "$ours")
    mb=$(peak "$theirs")
    printf '%-8s fwview %6ss %7s KiB | %-14s %6ss %7s KiB | time x%s, memory x%s\n' \
        "$label" "$a" "$ma" "$name" "$b" "$mb" \
        "$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a / b }')" \
        "$(awk -v a="$ma" -v b="$mb" 'BEGIN { if (b + 0 > 0) printf "%.2f", a / b; else print "?" }')"
}

echo "median of $RUNS runs each, output to /dev/null"
pair "--tree" "$FW --tree $OBJ" "readelf -S -s -W $OBJ" "readelf"
pair "--json" "$FW --json $OBJ" "$LLVM_READELF --elf-output-style=JSON -S -s $OBJ" "llvm-readelf"
