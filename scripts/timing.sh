# Sourced by the benchmark scripts: runs two commands in turns and prints
# the median wall time, CPU time and peak memory of each, and their ratios.
# Needs $TMP (a scratch directory) and $RUNS.

# One run of a command: wall seconds, CPU seconds (user + system, its
# children included) and peak resident KiB, on one line.
once() {
    s=$(date +%s%N)
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -f '%U %S %M' -o "$TMP/t" sh -c "$1 > /dev/null"
    else
        sh -c "$1 > /dev/null"
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

# pair LABEL OURS THEIRS NAME: both commands are run in turns (ours first
# in odd rounds, theirs first in even ones), so that both see the same
# load on the machine, after one warm-up run each.
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
    printf '%-12s fwview %7ss (cpu %6ss) %7.0f KiB | %-12s %7ss (cpu %6ss) %7.0f KiB | time x%s, memory x%s\n' \
        "$label" "$a" "$ca" "$ma" "$name" "$b" "$cb" "$mb" \
        "$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a / b }')" \
        "$(awk -v a="$ma" -v b="$mb" 'BEGIN { if (b + 0 > 0) printf "%.2f", a / b; else print "?" }')"
}
