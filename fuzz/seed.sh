#!/usr/bin/env bash
# Fills fuzz/seeds/<target>/ with seeds from the samples in assets/ and a
# few files written here. Seeds are not committed (.gitignore): they are
# made again from what is committed. The fuzzers read them beside
# fuzz/corpus/<target>/, which holds what fuzzing found (committed,
# minimised). Run this once before fuzzing, and again after new samples
# arrive.
set -euo pipefail
cd "$(dirname "$0")"
A=../assets
C=seeds

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
seed elf $A/offload/**/*.o $A/npu/*.elf
carve elf '\x7fELF\x01\x01\x01' $A/xmos/*.xe
carve pdi '\xdd\x00\x00\x00\x44\x33\x22\x11\x88\x77\x66\x55\xcc\xbb\xaa\x99' $A/xclbin/*.xclbin
seed detect $(find $A -type f ! -name '*.md' | sort)

# ELF symbol versions and hash tables: a small shared library linked with
# both hash styles, a version script (.gnu.version, .gnu.version_d) and a
# libc call (.gnu.version_r). SHT_SYMTAB_SHNDX only appears in objects of
# over 65,279 sections, too large to fuzz; instead a small object gets one
# written in (Python): every defined symbol's st_shndx set to SHN_XINDEX and
# its section index in the new table.
if command -v gcc >/dev/null; then
  t=$(mktemp -d)
  printf 'V1 { global: f1; local: *; };\nV2 { global: f2; } V1;\n' >"$t/v.map"
  printf '#include <stdio.h>\nint f1(int x){return x+1;}\nint f2(int x){puts("f2");return x*2;}\n' >"$t/l.c"
  gcc -shared -fPIC -O1 -Wl,--hash-style=both -Wl,--version-script="$t/v.map" \
    "$t/l.c" -o "$C/elf/libversioned.so" || true
  if gcc -c -O1 "$t/l.c" -o "$t/l.o" && command -v python3 >/dev/null; then
    python3 - "$t/l.o" "$C/elf/symtab_shndx.o" <<'PY' || true
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
shoff, = struct.unpack_from("<Q", d, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x3a)
F = "<IIQQQQIIQQ"  # Elf64_Shdr
heads = [list(struct.unpack_from(F, d, shoff + i * shentsize)) for i in range(shnum)]
sym = next(i for i, h in enumerate(heads) if h[1] == 2)  # SHT_SYMTAB
n = heads[sym][5] // 24
idx = []
for k in range(n):
    at = heads[sym][4] + 24 * k
    x, = struct.unpack_from("<H", d, at + 6)
    if 0 < x < 0xff00:
        struct.pack_into("<H", d, at + 6, 0xffff)
    idx.append(x if 0 < x < 0xff00 else 0)
d += bytes(-len(d) % 8)
tab = len(d)
d += b"".join(struct.pack("<I", v) for v in idx)
st = heads[shstrndx]
names = bytes(d[st[4]:st[4] + st[5]])
name = len(names)
names += b".symtab_shndx\0"
heads[shstrndx][4:6] = [len(d), len(names)]
d += names
heads.append([name, 18, 0, 0, tab, 4 * n, sym, 0, 4, 4])  # SHT_SYMTAB_SHNDX
d += bytes(-len(d) % 8)
struct.pack_into("<Q", d, 0x28, len(d))
struct.pack_into("<H", d, 0x3c, len(heads))
d += b"".join(struct.pack(F, *h) for h in heads)
open(sys.argv[2], "wb").write(d)
PY
  fi
  # Wide merged strings (.rodata.str2.2, .rodata.str4.*).
  printf 'const unsigned short *b(void){return (const unsigned short *)u"sixteen \\u00e9";}\nconst unsigned *c(void){return (const unsigned *)U"thirty-two";}\n' >"$t/w.c"
  gcc -c -O1 "$t/w.c" -o "$C/elf/wide_strings.o" || true
  # DWARF 5 units whose string offsets are RELA relocations, and DWARF 4
  # in a linked library.
  gcc -c -g -O1 "$t/l.c" -o "$C/elf/dwarf5.o" || true
  gcc -shared -fPIC -gdwarf-4 -O1 "$t/l.c" -o "$C/elf/dwarf4.so" || true
  # Line programs compressed (zlib in an object, zstd where gcc has it).
  gcc -c -g -O1 -gz=zlib "$t/l.c" -o "$C/elf/line_zlib.o" || true
  gcc -c -g -O1 -gz=zstd "$t/l.c" -o "$C/elf/line_zstd.o" 2>/dev/null || true
  # Line programs written byte by byte into an object's .debug_line (as
  # assembles them): unknown standard and extended opcodes with their
  # declared lengths, advances that overflow the address and the line, a
  # unit longer than its section, a header longer than its unit, an
  # extended opcode past its unit, a standard opcode declared with other
  # operands, a line_range of 0, and a DWARF 5 header with entry formats.
  if command -v python3 >/dev/null && command -v as >/dev/null; then
    python3 - "$t" <<'PY' || true
import struct, sys
L = [0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1]
def unit4(base, lengths, line_range, program, extra=0, header_extra=0):
    after = bytes([1, 1, 1, 256 - 5, line_range, base]) + bytes(lengths) + b"d\0\0a.c\0\x01\0\0\0"
    return struct.pack("<IHI", 6 + len(after) + len(program) + extra, 4, len(after) + header_extra) + after + program
def unit5(program):
    tables = bytes([1, 1, 0x08, 1]) + b"/d\0" + bytes([2, 1, 0x08, 2, 0x0b, 1]) + b"a.c\0\0"
    after = bytes([1, 1, 1, 256 - 5, 14, 13]) + bytes(L) + tables
    return struct.pack("<IHBBI", 8 + len(after) + len(program), 5, 8, 0, len(after)) + after + program
addr = bytes([0, 9, 2]) + struct.pack("<Q", 0x1000)
good = (addr + bytes([13, 0x81, 0x01, 5, 1, 0, 3, 0x85, 0xaa, 0xbb, 3, 0xc0, 0x84, 0x3d, 1, 2])
        + b"\xff" * 9 + bytes([1, 1, 3, 0x80, 0x80, 0x80, 0x80, 0x70, 0x2f, 8, 5, 7, 6, 7, 10, 11, 12, 3,
                               9, 0x34, 0x12, 0, 2, 4, 9, 1, 0, 1, 1]))
seeds = {
    "line_unknown_opcodes": unit4(14, L + [2], 14, good),
    "line_unit_too_long": unit4(13, L, 14, addr + bytes([1, 0, 1, 1]), extra=1000),
    "line_header_too_long": unit4(13, L, 14, bytes([1]), header_extra=200),
    "line_extended_too_long": unit4(13, L, 14, bytes([0, 0x7f, 1])),
    "line_declared_operands": unit4(13, [0, 3] + L[2:], 14, bytes([2, 1, 1, 1, 1])),
    "line_range_zero": unit4(13, L, 0, addr + bytes([0x20, 0x30, 0, 1, 1])),
    "line_dwarf5": unit5(addr + bytes([0x2f, 0, 1, 1])),
}
for name, data in seeds.items():
    with open(f"{sys.argv[1]}/{name}.s", "w") as f:
        f.write('.section .debug_line,"",@progbits\n')
        f.write("".join(f".byte {b}\n" for b in data))
PY
    for s in "$t"/line_*.s; do
      as "$s" -o "$C/elf/$(basename "$s" .s).o" || true
    done
  fi
  # Call frames: an object's .eh_frame and .debug_frame as compilers
  # write them (RISC-V's advances set by relocations), then entries
  # written byte by byte: an entry past its section, opcodes DWARF does
  # not define, operands and expressions cut by their entry, an FDE whose
  # CIE is past the section or is an FDE, a CIE of an unknown version,
  # advances that overflow the address, an augmentation longer than its
  # entry.
  gcc -c -g -O2 -fno-asynchronous-unwind-tables "$t/l.c" -o "$C/elf/cfi_debug_frame.o" || true
  # Location and range lists of both versions (the RISC-V and AArch64
  # objects below have DWARF 5's).
  gcc -c -gdwarf-4 -O2 "$t/l.c" -o "$C/elf/lists_dwarf4.o" || true
  if command -v clang-22 >/dev/null; then
    printf 'int g(int);\nint f(int x){int s=0;for(int i=0;i<x;i++)s+=g(i*x);return s;}\n' >"$t/cfi.c"
    clang-22 -c -g -O2 --target=riscv64-linux-gnu "$t/cfi.c" -o "$C/elf/cfi_riscv.o" || true
    clang-22 -c -g -O2 --target=aarch64-linux-gnu -mbranch-protection=pac-ret "$t/cfi.c" -o "$C/elf/cfi_aarch64.o" || true
  fi
  if command -v python3 >/dev/null && command -v as >/dev/null; then
    python3 - "$t" <<'PY' || true
import struct, sys
def entry(body, extra=0):
    return struct.pack("<I", len(body) + extra) + body
def cie(version=1, insns=b"", aug=b""):
    return entry(b"\xff\xff\xff\xff" + bytes([version]) + aug + b"\0" + bytes([1, 0x78, 16]) + insns)
def fde(cie_at, insns):
    return entry(struct.pack("<IQQ", cie_at, 0x1000, 0x40) + insns)
good = cie(insns=bytes([0x0c, 7, 8, 0x90, 1]))
seeds = {
    "cfi_entry_too_long": good + entry(fde(0, b"")[4:], 1000),
    "cfi_unknown_opcode": good + fde(0, bytes([0x41, 0x1c, 0x0e, 16])),
    "cfi_operand_cut": good + fde(0, bytes([0x0c, 7, 0x80])),
    "cfi_expression_too_long": good + fde(0, bytes([0x0f, 0xff, 0x7f, 0x70])),
    "cfi_cie_past_end": good + fde(0x100000, b"\0"),
    "cfi_cie_is_fde": good + fde(0, b"\0") + fde(len(good), b"\0"),
    "cfi_cie_version": cie(version=9, insns=b"\0"),
    "cfi_advance_overflow": good + fde(0, bytes([4, 0xff, 0xff, 0xff, 0xff] * 2 + [1])),
    "cfi_augmentation_too_long": cie(aug=b"zR", insns=bytes([0x7f, 0x1b])),
}
for name, data in seeds.items():
    with open(f"{sys.argv[1]}/{name}.s", "w") as f:
        f.write('.section .debug_frame,"",@progbits\n')
        f.write("".join(f".byte {b}\n" for b in data))
PY
    for s in "$t"/cfi_*.s; do
      as "$s" -o "$C/elf/$(basename "$s" .s).o" || true
    done
  fi
  rm -rf "$t"
fi

# SPIR-V: the .spv sections of the zebin samples, and what clang writes
# for the SPIR-V targets.
sections() { # sections TARGET NAME FILE...: the section NAME of each ELF
  local t=$1 name=$2; shift 2
  mkdir -p "$C/$t"
  for f in "$@"; do
    readelf -SW "$f" 2>/dev/null | sed 's/^ *\[ *[0-9]*\]//' |
      awk -v n="$name" '$1 == n { print $4, $5 }' | while read -r o s; do
      dd if="$f" of="$C/$t/$(basename "$f")$name" bs=64K status=none \
        iflag=skip_bytes,count_bytes skip=$((16#$o)) count=$((16#$s))
    done
  done
}
sections spirv .spv $A/zebin/**/*.bin
for clang in clang-22 clang; do
  command -v $clang >/dev/null || continue
  t=$(mktemp -d)
  printf '__kernel void add(__global int *a, __global const int *b)\n{ int i = get_global_id(0); a[i] += b[i]; }\n' >"$t/k.cl"
  printf 'float twice(float x) { return x * 2; }\n' >"$t/f.c"
  $clang --target=spirv64 -c "$t/k.cl" -o "$C/spirv/clang-kernel64.spv" 2>/dev/null || true
  $clang --target=spirv32 -c "$t/k.cl" -o "$C/spirv/clang-kernel32.spv" 2>/dev/null || true
  $clang --target=spirv64 -c "$t/f.c" -o "$C/spirv/clang-function.spv" 2>/dev/null || true
  rm -rf "$t"
  break
done

# Words as bytes, for the hand-written seeds below.
le32() { for w; do printf "$(printf '\\x%02x' $((w & 255)) $((w >> 8 & 255)) $((w >> 16 & 255)) $((w >> 24 & 255)))"; done; }
be32() { for w; do printf "$(printf '\\x%02x' $((w >> 24 & 255)) $((w >> 16 & 255)) $((w >> 8 & 255)) $((w & 255)))"; done; }
be16() { printf "$(printf '\\x%02x' $(($1 >> 8 & 255)) $(($1 & 255)))"; }
# bitfield KEY STRING: a .bit header field, a 2-byte length and the string
# with its NUL.
bitfield() { printf '%s' "$1"; be16 $((${#2} + 1)); printf '%s\0' "$2"; }
bitstart() { printf '\x00\x09\x0f\xf0\x0f\xf0\x0f\xf0\x0f\xf0\x00\x00\x01'; }

# Xilinx .bit, written by hand as the header is laid out: the 13 bytes
# every file starts with, fields a (design), b (part), c (date), d (time),
# then e with a 4-byte length and the configuration data: padding, the
# bus-width pattern, the sync word and a few type 1 packets (RCRC, IDCODE,
# DESYNC). The second has an unknown key and no sync word.
mkdir -p "$C/bit"
cfg() {
  printf '\xff%.0s' $(seq 16)
  be32 0x000000bb 0x11220044 0xffffffff 0xffffffff 0xaa995566 0x20000000 \
    0x30008001 0x00000007 0x20000000 0x30018001 0x04a56093 0x30008001 \
    0x0000000d 0x20000000 0x20000000
}
{
  bitstart
  bitfield a 'top;UserID=0XFFFFFFFF;Version=2026.1'
  bitfield b 'xcku5p-ffvb676-2-e'
  bitfield c '2026/11/23'
  bitfield d '18:00:00'
  printf 'e'; be32 $((16 + 15 * 4)); cfg
} >"$C/bit/hand.bit"
{
  bitstart
  bitfield a 'design'
  bitfield z 'unknown key'
  printf 'e'; be32 64; printf '\xff%.0s' $(seq 64)
} >"$C/bit/nosync.bit"

# CDO: version 2 streams cut from the XCLBIN samples (each cut to the
# length its header gives), and a version 1 stream written as bootgen
# writes one: header (4, XNLX, version, sections, checksum), then sections
# (id, words after the length word, command count, commands).
carve cdo '\x04\x00\x00\x00CDO\x00' $A/xclbin/*.xclbin
for f in "$C"/cdo/*.xclbin.*; do
  words=$(od -An -tu4 -j12 -N4 "$f" | tr -d ' ')
  if [ $((20 + 4 * words)) -lt "$(stat -c %s "$f")" ]; then
    truncate -s $((20 + 4 * words)) "$f"
  fi
done
{
  le32 4 0x584c4e58 0x100 2 $((~(4 + 0x584c4e58 + 0x100 + 2) & 0xffffffff))
  le32 0x10 21 4 0x103 0xf1234000 0xab 0x102 0xf1234004 0xff00 0x1200 \
    0x105 0xf0000000 3 1 0 0x11 0x22 0x33 0x101 0xf1234008 1 1 5
  le32 0x20 49 9 0x108 1 0xf0000010 0xcd 0x104 20 \
    0x109 0 0 2 0x30000000 2 5 0xaa 0xbb 0x203 0xf6000000 1 2 0xc0 0xc1 \
    0x301 1 0xdeadbeef 0x301 0 0x309 7 1 0x20000000 16 $(seq 256 271) 0xffffffff
} >"$C/cdo/v1.cdo"

# NPU control code: the samples behind the byte that keeps them as they
# are (odd), the transaction's ops behind one that writes a header (even),
# and a sequence as binary words.
mkdir -p "$C/npu"
for f in $A/npu/*; do
  { printf '\x01'; cat "$f"; } >"$C/npu/$(basename "$f")"
done
for f in $A/npu/*.bin; do
  { printf '\x00'; tail -c +17 "$f"; } >"$C/npu/$(basename "$f").ops"
done
{
  printf '\x01'
  for w in $(cat $A/npu/riallto__edge_detect_720p.seq); do le32 "0x$w"; done
} >"$C/npu/edge_detect.seqbin"

# Machine code: `code` takes an ELF behind a byte that picks its machine
# (fuzz/src/shape.rs: x86-64, i386, AArch64, RISC-V, XCore, AMDGPU, Intel
# GT, in that order), `disasm` bare code behind a byte that picks the
# target (fuzz/src/lib.rs: x86-64, i386, AArch64, riscv64, riscv32, XCore,
# gfx90a, gfx1100, gfx1200, gfx700, gfx1300, r600). The objects are built
# here from one C file, the AMDGPU and Intel GT ones taken from the samples.
mkdir -p "$C/code" "$C/disasm"
behind() { # behind BYTE FILE OUT: FILE behind the byte
  [ -f "$2" ] || return 0
  { printf "\\x$(printf %02x "$1")"; cat "$2"; } >"$3"
}
text_of() { # text_of ELF OUT: its .text alone
  command -v llvm-objcopy-22 >/dev/null || return 0
  llvm-objcopy-22 -O binary --only-section=.text "$1" "$2" 2>/dev/null || rm -f "$2"
}
if command -v clang-22 >/dev/null; then
  t=$(mktemp -d)
  printf 'int g(int);\nint f(int *a, int n) { int s = 0; for (int i = 0; i < n; i++) s += g(a[i]) * i; return s; }\nstatic int h(int x) { return x > 3 ? f(&x, 1) : x; }\nint k(int x) { return h(x) + g(x); }\n' >"$t/c.c"
  # machine index, clang target, disasm index (- for none)
  for row in 0:x86_64-linux-gnu:0 1:i386-linux-gnu:1 2:aarch64-linux-gnu:2 \
    3:riscv64-linux-gnu:3 3:riscv32-linux-gnu:4; do
    IFS=: read -r m tgt d <<<"$row"
    clang-22 --target="$tgt" -O1 -c "$t/c.c" -o "$t/$tgt.o" 2>/dev/null || continue
    behind "$m" "$t/$tgt.o" "$C/code/$tgt.o"
    text_of "$t/$tgt.o" "$t/$tgt.text" && behind "$d" "$t/$tgt.text" "$C/disasm/$tgt.text"
  done
  for row in gfx90a:6 gfx1100:7 gfx1200:8; do
    IFS=: read -r cpu d <<<"$row"
    clang-22 --target=amdgcn-amd-amdhsa -mcpu="$cpu" -nogpulib -O1 -c "$t/c.c" \
      -o "$t/$cpu.o" 2>/dev/null || continue
    behind 5 "$t/$cpu.o" "$C/code/amdgcn-$cpu.o"
    text_of "$t/$cpu.o" "$t/$cpu.text" && behind "$d" "$t/$cpu.text" "$C/disasm/amdgcn-$cpu.text"
  done
  rm -rf "$t"
fi
for f in $A/offload/**/*amdgpu*.o; do
  behind 5 "$f" "$C/code/$(basename "$f")"
done
for f in "$C"/elf/*.xe.*; do
  behind 4 "$f" "$C/code/$(basename "$f")"
  text_of "$f" "$C/disasm/$(basename "$f").text.raw" &&
    behind 5 "$C/disasm/$(basename "$f").text.raw" "$C/disasm/$(basename "$f").text"
  rm -f "$C/disasm/$(basename "$f").text.raw"
done
for f in $A/zebin/**/*.bin; do
  behind 6 "$f" "$C/code/$(basename "$f")"
done

# Kaitai Struct: `ksy_data` takes a file behind a byte that picks a gallery
# description (fuzz/src/lib.rs KSY: ELF, zip, PNG, DTB, WAV, ext2, ASN.1
# DER, gzip), `ksy_spec` a description's text, a NUL and the file.
mkdir -p "$C/ksy_data" "$C/ksy_spec"
t=$(mktemp -d)
printf 'int n = 3;\nconst char *s(int i) { return i < n ? "fwview" : 0; }\n' >"$t/e.c"
for cc in clang-22 gcc; do
  command -v $cc >/dev/null && $cc -O1 -c "$t/e.c" -o "$t/elf" 2>/dev/null && break
done
if command -v python3 >/dev/null; then
  python3 - "$t" <<'PY' || true
import gzip, io, struct, sys, wave, zipfile, zlib
t = sys.argv[1]
with zipfile.ZipFile(f"{t}/zip", "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("a.txt", "fwview " * 40)
    z.writestr("b/", "")
    z.writestr("b/c.bin", bytes(range(64)), compress_type=zipfile.ZIP_STORED)
def chunk(k, d):
    return struct.pack(">I", len(d)) + k + d + struct.pack(">I", zlib.crc32(k + d))
rows = b"".join(b"\0" + bytes((x * 16 + y) & 255 for x in range(8) for _ in range(3)) for y in range(8))
open(f"{t}/png", "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 8, 8, 8, 2, 0, 0, 0))
    + chunk(b"tEXt", b"Comment\0fuzz seed") + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
with wave.open(f"{t}/wav", "wb") as w:
    w.setnchannels(2); w.setsampwidth(2); w.setframerate(8000)
    w.writeframes(bytes(range(256)) * 4)
def der(tag, body):
    n = len(body)
    return bytes([tag]) + (bytes([n]) if n < 128 else bytes([0x82, n >> 8, n & 255])) + body
open(f"{t}/der", "wb").write(der(0x30, der(0x02, b"\x01\x00") + der(0x06, b"\x2a\x86\x48\x86\xf7\x0d")
    + der(0x0c, "fwview é".encode()) + der(0x31, der(0x05, b"") + der(0x01, b"\xff")) + der(0x04, bytes(200))))
open(f"{t}/gzip", "wb").write(gzip.compress(b"fwview fuzz seed\n" * 20, mtime=0))
PY
fi
command -v dtc >/dev/null &&
  printf '/dts-v1/;\n/ { model = "fuzz"; #address-cells = <1>; cpus { cpu@0 { reg = <0>; }; }; memory@0 { reg = <0 0x1000>; }; };\n' |
  dtc -I dts -O dtb -o "$t/dtb" - 2>/dev/null
command -v mke2fs >/dev/null && {
  truncate -s 64K "$t/ext2" && mke2fs -q -t ext2 -b 1024 -N 16 -F "$t/ext2" >/dev/null 2>&1 || rm -f "$t/ext2"
}
# In the order of KSY, so that the loop's count is the byte that picks each.
i=0
for row in elf:executable/elf zip:archive/zip png:image/png dtb:hardware/dtb wav:media/wav \
  ext2:filesystem/ext2 der:serialization/asn1/asn1_der gzip:archive/gzip; do
  IFS=: read -r name ksy <<<"$row"
  if [ -f "$t/$name" ]; then
    behind "$i" "$t/$name" "$C/ksy_data/$name"
    { cat "../tests/data/ksy/$ksy.ksy"; printf '\0'; cat "$t/$name"; } >"$C/ksy_spec/$name"
  fi
  i=$((i + 1))
done
rm -rf "$t"

for d in "$C"/*/; do
  printf '%-8s %4d files\n' "$(basename "$d")" "$(find "$d" -type f | wc -l)"
done
