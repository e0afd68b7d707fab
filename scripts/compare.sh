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

# One run of a command: wall seconds, CPU seconds (user + system) and peak
# resident KiB, on one line.
once() {
    s=$(date +%s%N)
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -f '%U %S %M' -o "$TMP/t" sh -c "exec $1 > /dev/null"
    else
        sh -c "exec $1 > /dev/null"
        echo "0 0 0" > "$TMP/t"
    fi
    e=$(date +%s%N)
    awk -v s="$s" -v e="$e" '{ printf "%.6f %.2f %s\n", (e - s) / 1e9, $1 + $2, $3 }' "$TMP/t"
}

# The median of column $2 of file $1.
med() {
    awk -v c="$2" '{ print $c }' "$1" | sort -n |
        awk '{ a[NR] = $1 } END { printf "%.3f", a[int((NR + 1) / 2)] }'
}

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# Both commands are run in turns (ours first in odd rounds, theirs first in
# even ones), so that both see the same load on the machine; one warm-up
# run each first.
pair() {
    label=$1 ours=$2 theirs=$3 name=$4
    if ! command -v "${theirs%% *}" > /dev/null; then
        echo "$label: ${theirs%% *} not installed; skipped"
        return
    fi
    : > "$TMP/a"
    : > "$TMP/b"
    once "$ours" > /dev/null
    once "$theirs" > /dev/null
    i=0
    while [ $i -lt "$RUNS" ]; do
        if [ $((i % 2)) -eq 0 ]; then
            once "$ours" >> "$TMP/a"
            once "$theirs" >> "$TMP/b"
        else
            once "$theirs" >> "$TMP/b"
            once "$ours" >> "$TMP/a"
        fi
        i=$((i + 1))
    done
    a=$(med "$TMP/a" 1) b=$(med "$TMP/b" 1)
    ca=$(med "$TMP/a" 2) cb=$(med "$TMP/b" 2)
    ma=$(med "$TMP/a" 3) mb=$(med "$TMP/b" 3)
    printf '%-8s fwview %6ss (cpu %5ss) %7.0f KiB | %-12s %6ss (cpu %5ss) %7.0f KiB | time x%s, memory x%s\n' \
        "$label" "$a" "$ca" "$ma" "$name" "$b" "$cb" "$mb" \
        "$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a / b }')" \
        "$(awk -v a="$ma" -v b="$mb" 'BEGIN { if (b + 0 > 0) printf "%.2f", a / b; else print "?" }')"
}

echo "median of $RUNS runs each, in turns, output to /dev/null; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
pair "--tree" "$FW --tree $OBJ" "readelf -S -s -W $OBJ" "readelf"
pair "--json" "$FW --json $OBJ" "$LLVM_READELF --elf-output-style=JSON -S -s $OBJ" "llvm-readelf"
