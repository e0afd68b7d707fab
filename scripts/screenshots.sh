#!/usr/bin/env bash
# Makes the screenshots of README and docs/ from the real TUI: fwview runs in tmux,
# keys are sent, the screen is captured with its colours and drawn to PNG.
# Needs tmux, python3 with Pillow (pip install pillow) and the DejaVu fonts.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=${CARGO_TARGET_DIR:-$PWD/target}/release/fwview
# With names as arguments, only those screenshots are made.
only=" $* "
sock=fwview-shots-$$
cols=160
rows=44
tmp=$(mktemp -d)
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$tmp"' EXIT

# shot NAME FILE KEYS...: each KEYS word is sent as a tmux key, except
# words starting with '=' which are typed literally, '!' which are run as a
# shell command, and '~', which waits for a background search to finish.
shot() {
  local name=$1 file=$2
  shift 2
  if [[ $only != "  " && $only != *" $name "* ]]; then
    return
  fi
  tmux -L "$sock" kill-server 2>/dev/null || true
  sleep 0.3
  tmux -L "$sock" new-session -d -s s -x "$cols" -y "$rows" "$bin $file"
  sleep 0.5
  for k in "$@"; do
    if [[ $k == "~" ]]; then
      for _ in $(seq 100); do
        tmux -L "$sock" capture-pane -p -t s | grep -q 'searching…' || break
        sleep 0.1
      done
    elif [[ $k == !* ]]; then
      # A shell command (a file rewritten under the viewer), then a pause
      # for the reload to notice it.
      bash -c "${k#!}"
      sleep 1.8
    elif [[ $k == =* ]]; then
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

# Live reload: the file is rewritten (its unique id and timestamp changed,
# renamed over the old one) while the viewer has it open; what changed is
# marked until Esc.
cp assets/xclbin/pynq__pl_server_default.xclbin "$tmp/watched.xclbin"
shot reload "$tmp/watched.xclbin" j j j j j Right \
  "!python3 -c \"import os,sys; p=sys.argv[1]; d=bytearray(open(p,'rb').read()); d[0x128]^=0xff; d[0x138]^=0x01; open(p+'.new','wb').write(d); os.replace(p+'.new', p)\" $tmp/watched.xclbin"

# Two builds of an XE program side by side, on the second change.
shot diff "assets/xmos/UltranetReceiver__bin_Debug_Ultranet_Receiver_Debug.xe assets/xmos/UltranetReceiver__bin_Release_Ultranet_Receiver.xe" !true c c

# An NPU xclbin, searched for a DMA write in the PDI's CDO, with the inspector.
shot xclbin assets/xclbin/riallto__color_threshold_v1_720p.xclbin / '=n:] DMA_WRITE' Enter '~' Right i
# An XMOS XE: the boot order, a CALL selected and its link shown.
shot xe assets/xmos/COMS20001-game-of-life__pgm_generator.xe Down Down Down Right Down Right Down Down
# A host object whose .llvm.offloading section holds two offload binaries.
shot offload assets/offload/generated_locally/clang22__saxpy_omp_gfx1100_gfx90a.o / =n:offload\ binary Enter '~' Right Down Right
# A zebin's .ze_info as a YAML tree.
shot zebin assets/zebin/generated_locally/ocloc22.43__add_Gen12LPlp.bin / =n:simd_size Enter '~'
# The SPIR-V module in a zebin's .spv section: the layout's sections, and
# an instruction with its operands by the grammar.
shot spirv assets/zebin/generated_locally/ocloc22.43__add_Gen12LPlp.bin / =n:OpTypePointer Enter '~' Right
# The DWARF entries of an XMOS debug build: a structure's member, its
# attributes at their bytes, the type reference and the entry it names.
shot dwarf assets/xmos/UltranetReceiver__bin_Debug_Ultranet_Receiver_Debug.xe / '=n:(clock)' Enter '~'
# An AMDGPU kernel in a HIP bundle's code object: its instruction found by
# mnemonic, its row beside its bytes in the hex pane.
shot amdgpu assets/hip/debian-librocsparse0-5.3.0__hip_fatbin-first-bundle.hipfb / =n:s_endpgm Enter '~'
# The tree filtered to the kernels' arguments, then the file's blocks by entropy.
shot filter assets/xclbin/riallto__color_threshold_v1_720p.xclbin F '=<arg>' Enter '~'
shot overview assets/xclbin/ryzenai-sw__cvml_ryzen14_AMD_AIE2P_Nx4_Overlay.xclbin o
# Kaitai Struct's elf.ksy applied to a host object: a symbol's fields and
# the instances computed from them, its name read from the string table
# its section links to.
shot ksy "--ksy tests/data/ksy/executable/elf.ksy --at 'header/section_headers/[17]/body/entries/[10]/name' assets/offload/generated_locally/clang22__saxpy_omp_gfx1100_gfx90a.o"
# A folder of samples: every file's format and device targets, the
# cursor on a HIP bundle.
shot folder assets Down
