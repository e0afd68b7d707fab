#!/usr/bin/env bash
# The long campaign. Each TARGET runs from its corpus until its totals in
# the ledger (fuzz/campaign.tsv) reach 10,000,000 executions or 4 hours, in
# turns of at most SECONDS (default 1800): a machine that stops loses one
# turn at most. Every turn appends a row to the ledger. A turn that fails
# (a crash, a hang, a huge allocation) moves on to the next target; its
# input is in fuzz/artifacts/<target>/ (see README, "When a target fails").
#
#   fuzz/campaign.sh [SECONDS] TARGET...   run the targets in turn
#   fuzz/campaign.sh totals                each target's totals so far
#   fuzz/campaign.sh reset TARGET WHY      start TARGET's totals again (its
#                                          parser changed): a row saying why
#
# UNTIL (seconds since the epoch) stops starting turns, and cuts the last
# one short, at that time. MAXLEN as in run-all.sh (default 65536). FLAGS
# adds libFuzzer flags: `FLAGS="-fork=1 -ignore_crashes=1"` runs on past
# crashes (each input is kept in fuzz/artifacts/<target>/ to be looked
# at), for a target whose crashes are a library's known ones (disasm and
# LLVM's AMDGPU decoder, see README); the row then says how many there were.
#
# The 4 hours are processor time: each row carries the turn's user and
# system seconds (cpu_seconds) beside its wall-clock seconds, and totals
# count those, so that turns sharing a core with other work count what they
# ran. Rows written before that column existed count their wall-clock
# seconds.
set -uo pipefail
cd "$(dirname "$0")"
ledger=campaign.tsv
goal_execs=10000000
goal_secs=14400

[ -f "$ledger" ] || printf 'date\ttarget\tcommit\tsanitizer\tmax_len\tseconds\texecutions\tcorpus_files\toutcome\tcpu_seconds\n' >"$ledger"

# table: each target's totals since its last reset, one line a target:
# target, executions, seconds (processor seconds where the row has them,
# else wall-clock), turns, failures, corpus files, goal.
table() {
  awk -F'\t' -v ge="$goal_execs" -v gs="$goal_secs" '
    NR > 1 && $9 ~ /^reset/ { e[$2] = 0; s[$2] = 0; turns[$2] = 0; bad[$2] = 0; next }
    NR > 1 {
      if (!($2 in e)) order[n++] = $2
      e[$2] += $7; s[$2] += ($10 != "" ? $10 : $6); turns[$2]++
      if ($9 !~ /^ok/) bad[$2]++
      files[$2] = $8
    }
    END {
      for (i = 0; i < n; i++) {
        t = order[i]
        met = (e[t] >= ge || s[t] >= gs) ? "met" : sprintf("%.0f%%", 100 * (e[t] / ge > s[t] / gs ? e[t] / ge : s[t] / gs))
        printf "%-8s %12d %8d %6d %8d %8d %s\n", t, e[t], s[t], turns[t], bad[t] + 0, files[t], met
      }
    }' "$ledger"
}

# totals TARGET: "executions seconds" since the target's last reset.
totals() {
  table | awk -v t="$1" '$1 == t { print $2, $3; f = 1 } END { if (!f) print "0 0" }'
}

if [ "${1:-}" = reset ]; then
  [ $# -ge 3 ] || { echo "usage: $0 reset TARGET WHY" >&2; exit 2; }
  printf '%s\t%s\t%s\t\t\t0\t0\t\treset: %s\n' "$(date -u +%FT%TZ)" "$2" \
    "$(git rev-parse --short HEAD)" "$3" >>"$ledger"
  exit 0
fi

if [ "${1:-}" = totals ]; then
  printf '%-8s %12s %8s %6s %8s %8s %s\n' target executions seconds turns failures corpus goal
  table
  exit 0
fi

secs=1800
if [[ "${1:-}" =~ ^[0-9]+$ ]]; then
  secs=$1
  shift
fi
[ $# -gt 0 ] || { echo "usage: $0 [SECONDS] TARGET... | $0 totals" >&2; exit 2; }
export RUSTC_BOOTSTRAP=1
[ -d seeds/detect ] || ./seed.sh
mkdir -p logs
cargo fuzz build -s none || exit 1

for t in "$@"; do
  [ -d "corpus/$t" ] || ./corpus.sh unpack "$t"
  mkdir -p "corpus/$t" "seeds/$t"
  while :; do
    read -r done_execs done_secs < <(totals "$t")
    left_execs=$((goal_execs - done_execs))
    left_secs=$((goal_secs - done_secs))
    if [ $left_execs -le 0 ] || [ $left_secs -le 0 ]; then
      echo "$t: goal met ($done_execs executions, $done_secs s)"
      break
    fi
    turn=$((secs < left_secs ? secs : left_secs))
    if [ -n "${UNTIL:-}" ]; then
      now=$(date +%s)
      [ $((UNTIL - now)) -lt 60 ] && exit 0
      [ $((UNTIL - now)) -lt "$turn" ] && turn=$((UNTIL - now))
    fi
    # The code this turn runs: the commit, and + when the parsers or the
    # fuzz targets differ from it.
    commit=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- ../src ../Cargo.toml src fuzz_targets Cargo.toml || echo +)
    log=logs/$t.$(date -u +%Y%m%dT%H%M%S).log
    # Built before the turn, so that its processor time is the fuzzer's.
    nice -n 19 cargo fuzz build -s none "$t" >"$log" 2>&1 || { echo "$t: build failed, see $log"; exit 1; }
    # libFuzzer's -max_total_time is wall-clock: a turn that shares its
    # core counts fewer processor seconds, and the next turns make them up.
    cpu_file=$(mktemp)
    TIMEFORMAT='%3U %3S'
    began=$(date +%s)
    {
      time nice -n 19 cargo fuzz run "$t" -s none "corpus/$t" "seeds/$t" -- -max_total_time="$turn" -runs="$left_execs" \
        -timeout=10 -max_len="${MAXLEN:-65536}" -rss_limit_mb=2048 -malloc_limit_mb=2048 \
        -print_final_stats=1 ${FLAGS:-} >>"$log" 2>&1
    } 2>"$cpu_file"
    rc=$?
    cpu=$(awk 'NF == 2 { printf "%d", $1 + $2 + 0.5 }' "$cpu_file")
    rm -f "$cpu_file"
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
    took=$(grep -o 'Done [0-9]* runs in [0-9]*' "$log" | grep -o '[0-9]*$')
    if [ -z "$execs" ]; then
      # Stopped from outside before the final figures: count the last
      # status line, whose time is the run's.
      last=$(grep -o '^#[0-9]*.*exec/s' "$log" | tail -1)
      execs=$(echo "$last" | grep -o '^#[0-9]*' | tr -d '#')
    fi
    # A turn that failed or was stopped prints no "Done" line: its own
    # wall-clock time.
    [ -n "$took" ] || took=$(($(date +%s) - began))
    # Fork mode's last status line counts the crashes it ran past; it then
    # exits non-zero having run its time.
    crashes=$(grep -o 'oom/timeout/crash: [0-9]*/[0-9]*/[0-9]*' "$log" | tail -1 | cut -d/ -f5)
    if [ "${crashes:-0}" -gt 0 ] && [[ "${FLAGS:-}" == *-ignore_crashes=1* ]]; then
      rc=0
      outcome="ok; ran past $crashes crashes (fuzz/artifacts/$t/)"
    elif [ $rc -eq 0 ]; then
      outcome=ok
    else
      outcome="failed (rc $rc, $log)"
    fi
    files=$(find "corpus/$t" -type f | wc -l)
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$t" "$commit" none \
      "${MAXLEN:-65536}" "$took" "${execs:-0}" "$files" "$outcome" "$cpu" >>"$ledger"
    echo "$t: ${execs:-0} executions in $took s ($cpu s of processor), $outcome"
    [ $rc -eq 0 ] || break
  done
done
