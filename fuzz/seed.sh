#!/usr/bin/env bash
# Fills fuzz/corpus/<target>/ with seeds from the samples in assets/.
# Corpus directories are not committed (.gitignore); run this once before
# fuzzing, and again after new samples arrive. Existing corpus files stay.
set -euo pipefail
cd "$(dirname "$0")"
A=../assets
C=corpus

seed() { # seed TARGET FILE...
  local t=$1; shift
  mkdir -p "$C/$t"
  for f in "$@"; do
    [ -f "$f" ] && cp -f "$f" "$C/$t/$(basename "$f")"
  done
  return 0
}

# carve TARGET PATTERN FILE...: every piece of FILE from an occurrence of
# PATTERN (a grep -P byte pattern) up to the next one or the end, for the
# formats that real files only carry nested (PDIs in XCLBINs, ELFs in XEs).
carve() {
  local t=$1 pat=$2; shift 2
  mkdir -p "$C/$t"
  for f in "$@"; do
    [ -f "$f" ] || continue
    local size offs i n
    size=$(stat -c %s "$f")
    mapfile -t offs < <(LC_ALL=C grep -obUaP "$pat" "$f" | cut -d: -f1 || true)
    n=${#offs[@]}
    for ((i = 0; i < n; i++)); do
      local from=${offs[i]} to=$size
      if ((i + 1 < n)); then to=${offs[i + 1]}; fi
      dd if="$f" of="$C/$t/$(basename "$f").$from" bs=64K status=none \
        iflag=skip_bytes,count_bytes skip="$from" count="$((to - from))"
    done
  done
}

shopt -s nullglob globstar
seed xclbin $A/xclbin/*.xclbin
seed xe $A/xmos/*.xe
seed zebin $A/zebin/**/*.bin
seed ar $A/**/*.ar
seed offload $A/offload/**/*.offloadbin
seed elf $A/offload/**/*.o
carve elf '\x7fELF\x01\x01\x01' $A/xmos/*.xe
carve pdi '\xdd\x00\x00\x00\x44\x33\x22\x11\x88\x77\x66\x55\xcc\xbb\xaa\x99' $A/xclbin/*.xclbin
seed detect $(find $A -type f ! -name '*.md' | sort)

for d in "$C"/*/; do
  printf '%-8s %4d files\n' "$(basename "$d")" "$(find "$d" -type f | wc -l)"
done
