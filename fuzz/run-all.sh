#!/usr/bin/env bash
# Runs every fuzz target for SECONDS (default 60) one after the other, then
# prints the executions and the outcome of each. Logs go to fuzz/logs/.
# Usage: fuzz/run-all.sh [SECONDS] [SANITIZER: none|address] [TARGET...]
# MAXLEN (default 65536) caps the input size: the samples run to 1 MiB, and
# at full size an instrumented run of a real parser manages some 10
# executions a second; at 64 KiB, a few hundred. MAXLEN=0 lets libFuzzer
# take the size of the largest seed.
set -uo pipefail
cd "$(dirname "$0")"
secs=${1:-60}
san=${2:-none}
shift $(( $# > 2 ? 2 : $# ))
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(xclbin xe elf zebin offload ar pdi detect bundle ccob fatbin nvwrap amdgpu msgpack spirv bit cdo npu)
export RUSTC_BOOTSTRAP=1
[ -d seeds/detect ] || ./seed.sh
mkdir -p logs
cargo fuzz build -s "$san" || exit 1
printf '%-8s %12s %8s %s\n' target executions seconds outcome
for t in "${targets[@]}"; do
  log=logs/$t.log
  [ -d "corpus/$t" ] || ./corpus.sh unpack "$t"
  mkdir -p "corpus/$t" "seeds/$t"
  cargo fuzz run "$t" -s "$san" "corpus/$t" "seeds/$t" -- -max_total_time="$secs" -timeout=10 \
    -max_len="${MAXLEN:-65536}" -rss_limit_mb=2048 -malloc_limit_mb=2048 \
    -print_final_stats=1 >"$log" 2>&1
  rc=$?
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
  took=$(grep -o 'Done [0-9]* runs in [0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
  if [ $rc -eq 0 ]; then outcome=ok; else outcome="FAILED (rc $rc): see $log and artifacts/$t/"; fi
  printf '%-8s %12s %8s %s\n' "$t" "${execs:-?}" "${took:-?}" "$outcome"
done
