#!/bin/sh
# Times fwview decoding every instruction of real ROCm code objects against
# llvm-objdump-22 -d of the same objects, unbundled, in the same run, and
# prints the ratios and the peak memory of each command.
#
#   scripts/code-speed.sh [N [FROM]]
#
# The code objects are those of N (default 12) clang offload bundles,
# from bundle FROM (default 0), in the .hip_fatbin of Debian's
# librocsparse.so.0.1 (fetched by
# scripts/rocm-library.sh; 7 code objects a bundle, gfx803 to gfx1030).
# Each bundle is written to a file of its own, and its code objects beside
# it, with `fwview --extract` (tests/it/offload.rs checks those bytes
# against clang-offload-bundler-22's), so that both tools read the same
# bytes from the page cache.
#
# Four comparisons, medians of RUNS (default 5) runs made in turns:
#   per bundle  one `fwview --json --code BUNDLE` for each bundle against
#               one `llvm-objdump-22 -d OBJECTS…` for each bundle's objects
#   one process the same fwview runs against a single llvm-objdump-22
#               process over every bundle's objects (its cheapest form)
#   one kernel  the largest function of the first bundle, from the bundle:
#               `fwview --json --code --at PATH BUNDLE` against
#               clang-offload-bundler-22 --unbundle of its code object, then
#               `llvm-objdump-22 -d --disassemble-symbols=NAME` of it
#   unbundled   the same fwview against that llvm-objdump-22 alone, on the
#               code object unbundled beforehand
# fwview's output holds every node of the bundle and of each code object
# (headers, sections, symbols, notes, kernel descriptors) as well as the
# instructions; llvm-objdump's only the instructions.
set -eu
cd "$(dirname "$0")/.."
N=${1:-12}
FROM=${2:-0}
RUNS=${RUNS:-5}
FW=${FWVIEW:-${CARGO_TARGET_DIR:-target}/release/fwview}
OBJDUMP=${LLVM_OBJDUMP:-llvm-objdump-22}

[ -x "$FW" ] || cargo build --release --quiet
command -v "$OBJDUMP" > /dev/null || { echo "$OBJDUMP is not installed"; exit 1; }
SO=$(scripts/rocm-library.sh) || { echo "the ROCm library could not be fetched"; exit 1; }

DIR=${CARGO_TARGET_DIR:-target}/code-speed/$FROM-$N
if [ ! -f "$DIR/done" ]; then
    rm -rf "$DIR"
    mkdir -p "$DIR"
    "$FW" --targets "$SO" | cut -f4 | sed -n 's|^\(.*/bundle \[\([0-9]*\)\]\)/.*|\2\t\1|p' |
        sort -n -u | awk -v from="$FROM" '$1 >= from' | head -n "$N" |
        while IFS="$(printf '\t')" read -r i path; do
            d=$DIR/$(printf '%03d' "$i")
            mkdir -p "$d"
            "$FW" --extract "$path" -o "$d/bundle" "$SO" 2> /dev/null
            "$FW" --targets "$d/bundle" | cut -f4 |
                while read -r entry; do
                    "$FW" --extract "$entry" -o "$d/$(basename "$entry" | tr ':' '_').co" \
                        "$d/bundle" 2> /dev/null
                done
        done
    touch "$DIR/done"
fi
BUNDLES=$(ls -d "$DIR"/*/ | wc -l)
OBJECTS=$(ls "$DIR"/*/*.co | wc -l)
BYTES=$(cat "$DIR"/*/*.co | wc -c)
INSNS=$("$OBJDUMP" -d --no-show-raw-insn "$DIR"/*/*.co | grep -c '^	')
echo "$BUNDLES bundles, $OBJECTS code objects, $BYTES bytes, $INSNS instructions"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
. scripts/timing.sh

echo "median of $RUNS runs each, in turns, output to /dev/null; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
pair "per bundle" \
    "for d in $DIR/*/; do $FW --json --code \$d/bundle; done" \
    "for d in $DIR/*/; do $OBJDUMP -d \$d*.co; done" "llvm-objdump"
pair "one process" \
    "for d in $DIR/*/; do $FW --json --code \$d/bundle; done" \
    "$OBJDUMP -d $DIR/*/*.co" "llvm-objdump"

# The largest function of the first bundle, and its address in the bundle.
READELF=${LLVM_READELF:-llvm-readelf-22}
BUNDLER=${CLANG_OFFLOAD_BUNDLER:-clang-offload-bundler-22}
first=$(ls -d "$DIR"/*/ | head -n 1)
if command -v "$READELF" > /dev/null && command -v "$BUNDLER" > /dev/null; then
    set -- $(for co in "$first"*.co; do
        "$READELF" -sW "$co" | awk -v co="$co" '$4 == "FUNC" { print $3, $8, co }'
    done | sort -n -r | head -n 1)
    ksize=$1 kname=$2 kco=$3
    entry=$("$FW" --targets "$first/bundle" | cut -f4 | while read -r e; do
        if [ "$(basename "$e" | tr ':' '_').co" = "$(basename "$kco")" ]; then echo "$e"; fi
    done)
    kat=$("$FW" --code --find "n:$kname" "$first/bundle" | sed 's/^[^ ]*  //' |
        awk -v e="$entry/" -v n="/$kname" \
            'index($0, e) == 1 && substr($0, length($0) - length(n) + 1) == n' | head -n 1)
    echo "one kernel: $kname, $ksize bytes, in $entry"
    unbundle="$BUNDLER --unbundle --type=o --targets=$entry --input=$first/bundle --output=$TMP/k.co"
    # clang-offload-bundler-22 refuses some of these bundles (an entry id
    # of the older form, without an environment, read before the target).
    if sh -c "$unbundle" 2> /dev/null; then
        pair "one kernel" "$FW --json --code --at '$kat' $first/bundle" \
            "$unbundle && $OBJDUMP -d --disassemble-symbols=$kname $TMP/k.co" \
            "unbundle+objdump"
    else
        echo "one kernel: $BUNDLER cannot unbundle $entry from this bundle; compared unbundled only"
    fi
    pair "unbundled" "$FW --json --code --at '$kat' $first/bundle" \
        "$OBJDUMP -d --disassemble-symbols=$kname $kco" "llvm-objdump"
else
    echo "one kernel: $READELF or $BUNDLER not installed; skipped"
fi
