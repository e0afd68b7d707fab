#!/bin/bash
# `fwview --targets DIR` (one process, files read in parallel) against a
# loop that starts one `fwview --targets FILE` per file, one after the
# other, over the same regular files (symbolic links not followed, as the
# folder run does), in the same run, with a warm page cache. Prints the
# files and bytes, both wall times, their ratio, the folder run's rate, and
# the peak memory of each (/usr/bin/time -v: the folder process; the
# largest single process of the loop).
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
bytes=$(xargs -0 stat -c %s < "$work/list" | awk '{ s += $1 } END { printf "%d", s }')

load=$(cut -d' ' -f1-3 /proc/loadavg)

# A warm page cache for both.
xargs -0 cat < "$work/list" > /dev/null

# rc 1 (no image) is not a failure here.
/usr/bin/time -v -o "$work/folder.time" "$BIN" --targets "$DIR" > "$work/folder.out" 2> "$work/folder.err" || true
/usr/bin/time -v -o "$work/loop.time" \
    sh -c 'xargs -0 -n 1 "$1" --targets < "$2" 2> /dev/null || true' sh "$BIN" "$work/list" \
    > "$work/loop.out"

secs() { # m:ss.ss or h:mm:ss -> seconds
    grep 'Elapsed (wall clock)' "$1" | awk '{ print $NF }' |
        awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.2f", s }'
}
rss() { grep 'Maximum resident set size' "$1" | awk '{ printf "%.0f", $NF / 1024 }'; }
cpu() { grep 'Percent of CPU' "$1" | awk '{ print $NF }'; }

tf=$(secs "$work/folder.time")
tl=$(secs "$work/loop.time")
echo "tree:            $DIR"
echo "files:           $files regular files, $(awk -v b="$bytes" 'BEGIN { printf "%.2f GiB", b / 2^30 }')"
echo "cores:           $(nproc), load average before: $load"
echo "images found:    folder $(wc -l < "$work/folder.out"), loop $(wc -l < "$work/loop.out")"
echo "folder run:      ${tf} s, CPU $(cpu "$work/folder.time"), peak $(rss "$work/folder.time") MiB, $(awk -v b="$bytes" -v t="$tf" 'BEGIN { printf "%.2f GB/s", b / t / 1e9 }')"
echo "loop (1/file):   ${tl} s, CPU $(cpu "$work/loop.time"), largest process $(rss "$work/loop.time") MiB"
echo "ratio:           $(awk -v a="$tl" -v b="$tf" 'BEGIN { printf "%.2f", a / b }')x faster in one process"
grep '^fwview: [0-9]* files read' "$work/folder.err" || true
