#!/usr/bin/env bash
# The committed corpora: fuzz/corpora/<target>.tar.zst holds what fuzzing
# found for that target, minimised (`cargo fuzz cmin`). Seeds are not in
# them (seed.sh makes those again). Inputs made from the samples repeat
# each other, so the archives are a small part of the corpora's size.
# `cargo test --release --test hostile` replays every input in them.
#
#   fuzz/corpus.sh unpack [TARGET...]   archives -> fuzz/corpus/<target>/ (files there stay)
#   fuzz/corpus.sh pack [TARGET...]     fuzz/corpus/<target>/ -> minimised -> archive
#
# Packing without minimising first: NOCMIN=1.
set -euo pipefail
cd "$(dirname "$0")"
cmd=${1:-}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  case $cmd in
    unpack) for a in corpora/*.tar.zst; do [ -f "$a" ] && targets+=("$(basename "$a" .tar.zst)"); done ;;
    pack) for d in corpus/*/; do targets+=("$(basename "$d")"); done ;;
  esac
fi
# Names libFuzzer gives what it finds: the SHA-1 of the contents.
found='^[0-9a-f]{40}$'

case $cmd in
  unpack)
    for t in "${targets[@]}"; do
      a=corpora/$t.tar.zst
      [ -f "$a" ] || continue
      mkdir -p corpus
      zstd -dq --long=27 -c "$a" | tar -x -C corpus --skip-old-files
      printf '%-8s %6d inputs\n' "$t" "$(find "corpus/$t" -type f | wc -l)"
    done
    ;;
  pack)
    export RUSTC_BOOTSTRAP=1
    mkdir -p corpora
    printf '%-8s %6s %12s %10s\n' target inputs bytes archive
    for t in "${targets[@]}"; do
      [ -d "corpus/$t" ] || continue
      # Seeds copied in by older set-ups are not part of what is kept.
      { find "corpus/$t" -type f | grep -Ev "/$t/[0-9a-f]{40}$" || true; } | xargs -r rm -f
      if [ -z "${NOCMIN:-}" ]; then
        cargo fuzz cmin "$t" -s none "corpus/$t" -- -max_len="${MAXLEN:-65536}" \
          -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048 >"logs/cmin-$t.log" 2>&1 ||
          { echo "$t: cmin failed, see logs/cmin-$t.log" >&2; exit 1; }
      fi
      ls "corpus/$t" | grep -E "$found" | sed "s|^|$t/|" |
        tar -C corpus --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf - -T - |
        zstd -19 --long=27 -q -c >"corpora/$t.tar.zst"
      printf '%-8s %6d %12d %10d\n' "$t" "$(ls "corpus/$t" | grep -cE "$found")" \
        "$(find "corpus/$t" -type f -exec cat {} + | wc -c)" "$(stat -c %s "corpora/$t.tar.zst")"
    done
    printf 'all archives: %d bytes\n' "$(cat corpora/*.tar.zst | wc -c)"
    ;;
  *)
    echo "usage: $0 unpack|pack [TARGET...]" >&2
    exit 2
    ;;
esac
