#!/usr/bin/env bash
# Makes the README's screenshots from the real TUI: fwview runs in tmux,
# keys are sent, the screen is captured with its colours and drawn to PNG.
# Needs tmux, python3 with Pillow (pip install pillow) and the DejaVu fonts.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=$PWD/target/release/fwview
sock=fwview-shots-$$
cols=160
rows=44
tmp=$(mktemp -d)
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$tmp"' EXIT

# shot NAME FILE KEYS...: each KEYS word is sent as a tmux key, except
# words starting with '=' which are typed literally.
shot() {
  local name=$1 file=$2
  shift 2
  tmux -L "$sock" kill-server 2>/dev/null || true
  tmux -L "$sock" new-session -d -s s -x "$cols" -y "$rows" "$bin $file"
  sleep 0.5
  for k in "$@"; do
    if [[ $k == =* ]]; then
      tmux -L "$sock" send-keys -t s -l "${k#=}"
    else
      tmux -L "$sock" send-keys -t s "$k"
    fi
    sleep 0.15
  done
  sleep 0.4
  tmux -L "$sock" capture-pane -e -p -t s > "$tmp/$name.ansi"
  python3 scripts/ansi2png.py "$tmp/$name.ansi" "screenshots/$name.png" "$cols"
  echo "screenshots/$name.png"
}

shot xclbin assets/xclbin/riallto__color_threshold_v1_720p.xclbin Down Right Down Down Down Right Down Down
shot xe assets/xmos/COMS20001-game-of-life__pgm_generator.xe Down Down Down Right Down Right Down Down
shot goto assets/zebin/generated_locally/ocloc22.43__add_Gen12LPlp.bin g =0x40 Enter Tab Right Right
