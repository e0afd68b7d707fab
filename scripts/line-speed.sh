#!/bin/sh
# Times `fwview --json` of a shared library whose debug information is one
# large line program against `llvm-dwarfdump-22 --debug-line` of the same
# file, in the same run, and prints the ratios and the peak memory of each.
#
#   scripts/line-speed.sh [FUNCTIONS]
#
# The library is generated: a C file of FUNCTIONS (default 100000)
# functions of 10 lines each, compiled by clang-22 with -g -O0 into a
# shared library (hidden symbols and no unwind tables, so that the line
# program is most of what --json writes), then every debug section but
# .debug_line and .debug_line_str and the symbol table removed with
# llvm-objcopy-22. 100000 functions make 1,600,001 rows.
# Medians of RUNS (default 5) runs made in turns (scripts/timing.sh).
set -eu
cd "$(dirname "$0")/.."
N=${1:-100000}
RUNS=${RUNS:-5}
FW=${FWVIEW:-${CARGO_TARGET_DIR:-target}/release/fwview}
DUMP=${LLVM_DWARFDUMP:-llvm-dwarfdump-22}
CC=${CLANG:-clang-22}
OBJCOPY=${LLVM_OBJCOPY:-llvm-objcopy-22}

[ -x "$FW" ] || cargo build --release --quiet
for t in "$DUMP" "$CC" "$OBJCOPY"; do
    command -v "$t" > /dev/null || { echo "$t is not installed"; exit 1; }
done

DIR=${CARGO_TARGET_DIR:-target}/line-speed/$N
LIB=$DIR/lines.so
if [ ! -f "$LIB" ]; then
    mkdir -p "$DIR"
    python3 - "$N" > "$DIR/lines.c" <<'PY'
import sys
w = sys.stdout.write
for i in range(int(sys.argv[1])):
    w(f"int f{i}(int a) {{\n  int x = a;\n  x += {i % 7};\n  x *= 3;\n  x -= a;\n"
      f"  x ^= 5;\n  x += 2;\n  x |= 1;\n  return x;\n}}\n")
PY
    "$CC" -g -O0 -fPIC -shared -fvisibility=hidden -fno-asynchronous-unwind-tables \
        -fno-unwind-tables "$DIR/lines.c" -o "$DIR/full.so"
    drop=$(llvm-readelf-22 -S -W "$DIR/full.so" | grep -o '\.debug_[a-z_]*' | sort -u |
        grep -v -x -e .debug_line -e .debug_line_str | sed 's/^/-R /')
    # shellcheck disable=SC2086
    "$OBJCOPY" $drop -R .symtab -R .strtab "$DIR/full.so" "$LIB"
fi
ROWS=$("$DUMP" --debug-line "$LIB" | grep -c '^0x')
echo "$LIB: $(wc -c < "$LIB") bytes, $ROWS rows; fwview --json writes $("$FW" --json "$LIB" | wc -c) bytes, llvm-dwarfdump $("$DUMP" --debug-line "$LIB" | wc -c)"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
. scripts/timing.sh

echo "median of $RUNS runs each, in turns, output to /dev/null; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
pair "--json" "$FW --json $LIB" "$DUMP --debug-line $LIB" "llvm-dwarfdump"
pair "1 thread" "FWVIEW_THREADS=1 $FW --json $LIB" "$DUMP --debug-line $LIB" "llvm-dwarfdump"
