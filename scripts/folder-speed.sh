#!/bin/bash
# `fwview --targets DIR` (one process, files read in parallel) against a
# loop that starts one `fwview --targets FILE` per file, one after the
# other, over the same regular files (symbolic links not followed, as the
# folder run does), in the same run, with a warm page cache. Prints the
# files and bytes, both wall times, their ratio, the folder run's rate, and
# the peak memory of each (/usr/bin/time -v: the folder process; the
# largest single process of the loop). Where llvm-objdump-22 is installed
# (or $OBJDUMP names another), also one `llvm-objdump --offloading FILE`
# per file, the peer that lists (and extracts) clang offload bundles, with
# the device entries it found.
#
# usage: scripts/folder-speed.sh [FWVIEW [DIR]]
#   FWVIEW  the binary (default: target/release/fwview, or
#           $CARGO_TARGET_DIR/release/fwview)
#   DIR     the tree to read (default: /usr/lib/x86_64-linux-gnu)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-${CARGO_TARGET_DIR:-target}/release/fwview}
DIR=${2:-/usr/lib/x86_64-linux-gnu}
[ -x "$BIN" ] || { echo "no fwview binary at $BIN (cargo build --release)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (Debian: apt-get install time)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The files the folder run reads: regular files, links not followed.
find "$DIR" -type f -print0 | sort -z > "$work/list"
files=$(tr -cd '\0' < "$work/list" | wc -c)
bytes=$(xargs -0 stat -c %s < "$work/list" | awk '{ s += $1 } END { printf "%.0f", s }')

load=$(cut -d' ' -f1-3 /proc/loadavg)

# A warm page cache for both.
xargs -0 cat < "$work/list" > /dev/null

now() { date +%s%N; }
# rc 1 (no image) is not a failure here.
t0=$(now)
/usr/bin/time -v -o "$work/folder.time" "$BIN" --targets "$DIR" > "$work/folder.out" 2> "$work/folder.err" || true
t1=$(now)
/usr/bin/time -v -o "$work/loop.time" \
    sh -c 'xargs -0 -n 1 "$1" --targets < "$2" 2> /dev/null || true' sh "$BIN" "$work/list" \
    > "$work/loop.out"
t2=$(now)
# llvm-objdump --offloading, one process a file, where it is installed. It
# writes each bundle entry it finds to a file beside its input, so each
# file is given to it through a link in a folder of its own, emptied after.
OBJDUMP=${OBJDUMP:-llvm-objdump-22}
if command -v "$OBJDUMP" > /dev/null; then
    mkdir "$work/x"
    /usr/bin/time -v -o "$work/objdump.time" bash -c '
        while IFS= read -r -d "" f; do
            ln -s "$(realpath "$f")" "$2/in"
            (cd "$2" && "$1" --offloading in 2> /dev/null || true)
            rm -f "$2"/in*
        done < "$3"' sh "$OBJDUMP" "$work/x" "$work/list" > "$work/objdump.out" 2>&1 || true
    t3=$(now)
fi

secs() { # m:ss.ss or h:mm:ss -> seconds
    grep 'Elapsed (wall clock)' "$1" | awk '{ print $NF }' |
        awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.2f", s }'
}
rss() { grep 'Maximum resident set size' "$1" | awk '{ printf "%.0f", $NF / 1024 }'; }
cpu() { grep 'Percent of CPU' "$1" | awk '{ print $NF }'; }

ms() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'; }
tf=$(ms "$t0" "$t1")
tl=$(ms "$t1" "$t2")
echo "tree:            $DIR"
echo "files:           $files regular files, $(awk -v b="$bytes" 'BEGIN { printf "%.2f GiB", b / 2^30 }')"
echo "cores:           $(nproc), load average before: $load"
echo "images found:    folder $(wc -l < "$work/folder.out"), loop $(wc -l < "$work/loop.out")"
echo "folder run:      ${tf} s, CPU $(cpu "$work/folder.time"), peak $(rss "$work/folder.time") MiB, $(awk -v b="$bytes" -v t="$tf" 'BEGIN { printf "%.2f GB/s", b / t / 1e9 }')"
echo "loop (1/file):   ${tl} s, CPU $(cpu "$work/loop.time"), largest process $(rss "$work/loop.time") MiB"
echo "ratio:           $(awk -v a="$tl" -v b="$tf" 'BEGIN { printf "%.2f", a / b }')x faster in one process"
if [ -n "${t3:-}" ]; then
    to=$(ms "$t2" "$t3")
    found=$(grep '^Extracting offload bundle: ' "$work/objdump.out" | grep -vc -- '-host-\|\.host-' || true)
    echo "$OBJDUMP --offloading (1/file): ${to} s, $found device entries, largest process $(rss "$work/objdump.time") MiB; $(awk -v a="$to" -v b="$tf" 'BEGIN { printf "%.2f", a / b }')x the folder run"
fi
grep '^fwview: [0-9]* files read' "$work/folder.err" || true
