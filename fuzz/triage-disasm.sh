#!/usr/bin/env bash
# Sorts what the disasm target ran past (fuzz/artifacts/disasm/, see
# campaign.sh FLAGS): each input is decoded by llvm-mc-22 for the target its
# first byte picks (the TARGETS table of src/shape.rs, read from there).
# An input that ends llvm-mc-22 too is a crash of LLVM's decoder, which
# fwview survives by decoding in a worker process; any other is fwview's
# and is printed with FWVIEW to be replayed (`cargo fuzz run disasm FILE`).
#
#   fuzz/triage-disasm.sh [ARTIFACT...]
set -uo pipefail
cd "$(dirname "$0")"
MC=${LLVM_MC:-llvm-mc-22}
command -v "$MC" >/dev/null || { echo "$MC is not installed" >&2; exit 2; }
mapfile -t rows < <(sed -n '/^pub const TARGETS/,/^];/p' src/shape.rs |
  sed -n 's/^ *("\([^"]*\)", "\([^"]*\)", "\([^"]*\)"),$/\1|\2|\3/p')
[ ${#rows[@]} -gt 0 ] || { echo "no TARGETS in src/shape.rs" >&2; exit 2; }
[ $# -gt 0 ] || set -- artifacts/disasm/crash-*
llvm=0 ours=0
for f in "$@"; do
  [ -f "$f" ] || continue
  pick=$(od -An -tu1 -N1 "$f" | tr -d ' ')
  # `|` between the fields: an empty processor is kept as one.
  IFS='|' read -r triple cpu features <<<"${rows[$((pick % ${#rows[@]}))]}"
  args=(--disassemble -triple="$triple")
  [ -n "$cpu" ] && args+=(-mcpu="$cpu")
  [ -n "$features" ] && args+=(-mattr="$features")
  (tail -c +2 "$f" | od -An -v -tx1 | sed 's/\([0-9a-f][0-9a-f]\)/0x\1/g' |
    timeout 60 "$MC" "${args[@]}" >/dev/null 2>&1) 2>/dev/null
  rc=$?
  if [ $rc -eq 124 ]; then
    llvm=$((llvm + 1))
    echo "LLVM    $triple ${cpu:--} hangs past 60 s: $f"
  elif [ $rc -ge 128 ]; then
    llvm=$((llvm + 1))
    echo "LLVM    $triple ${cpu:--} signal $((rc - 128)): $f"
  else
    ours=$((ours + 1))
    echo "FWVIEW  $triple ${cpu:--} (llvm-mc-22 exits $rc): $f"
  fi
done
echo "$llvm end llvm-mc-22 too, $ours do not"
[ $ours -eq 0 ]
