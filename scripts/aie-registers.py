#!/usr/bin/env python3
"""Turns aie-rt's register headers into the Rust tables of
src/formats/cdo/aie_regs/ (aieml.rs and aie2p.rs).

aie-rt (MIT) lists every AIE register of a generation in
driver/src/global/<gen>gbl_params.h as macros:

    #define XAIEMLGBL_MEMORY_MODULE_DMA_BD0_1            0x0001D004
    #define XAIEMLGBL_MEMORY_MODULE_DMA_BD0_1_WIDTH      32
    #define XAIEMLGBL_MEMORY_MODULE_DMA_BD0_1_MASK       0xFFFF0000
    #define XAIEMLGBL_MEMORY_MODULE_DMA_BD0_1_ENABLE_PACKET_LSB    30
    #define XAIEMLGBL_MEMORY_MODULE_DMA_BD0_1_ENABLE_PACKET_WIDTH  1
    ...

A register is a macro followed by its _WIDTH and _MASK; the _LSB/_WIDTH
macros after it, up to the next register, are its bit fields. The sizes of
the data and program memories come from <gen>gbl_reginit.c (the memory
modules' `.Size` and the core module's `.ProgMemSize`).

Each generation is read at the aie-rt commit it is pinned to (AIE2PS's
headers were removed from aie-rt after the commit pinned here), through
`git show`, so any clone of aie-rt with its history will do:

    python3 scripts/aie-registers.py /path/to/aie-rt

The tables are written to src/formats/cdo/aie_regs/ beside this script's
repository.
"""

import os
import re
import subprocess
import sys

REPO = "Xilinx/aie-rt"
GLOBAL = "driver/src/global"

# The aie-rt commits the generations are read at: the release branch that
# has AIE2P, and the last commit of the main branch that has AIE2PS.
AIG = "3640b761ded1619ac06478a0985bb4a2fb2b3e26"
AIE2PS = "3999190f7b53045b1cd4b4d4c252d41d0109eafa"

# Tile type: the modules whose registers it holds.
TILES = [
    ("CORE", "compute tile: core module and memory module", ["CORE_MODULE", "MEMORY_MODULE"]),
    ("MEM_TILE", "memory tile", ["MEM_TILE_MODULE"]),
    ("SHIM", "shim tile: NoC module and PL module", ["NOC_MODULE", "PL_MODULE"]),
]

# AIE2PS's shim tile also holds its microcontroller (the uC that runs
# control code) and that controller's memories.
TILES_UC = TILES[:2] + [
    (
        "SHIM",
        "shim tile: NoC module, PL module and microcontroller module",
        ["NOC_MODULE", "PL_MODULE", "UC_MODULE"],
    )
]

# Generation: (output file, macro prefix, params header, reginit source,
# title, commit, tiles).
GENERATIONS = [
    ("aieml.rs", "XAIEMLGBL", "xaiemlgbl_params.h", "xaiemlgbl_reginit.c", "AIE-ML (AIE2)", AIG, TILES),
    ("aie2p.rs", "XAIE2PGBL", "xaie2pgbl_params.h", "xaie2pgbl_reginit.c", "AIE2P", AIG, TILES),
    ("aie2ps.rs", "XAIE2PSGBL", "xaie2psgbl_params.h", "xaie2psgbl_reginit.c", "AIE2PS", AIE2PS, TILES_UC),
]

# Registers whose bit fields are kept: DMA (buffer descriptors, channels),
# locks and stream switches.
FIELDS_OF = re.compile(r"^(DMA_|LOCK|STREAM_SWITCH_)")

DEFINE = re.compile(r"^#define\s+(\w+)\s+(\S+)\s*$")


def number(s):
    s = s.rstrip("uUlL")
    return int(s, 0)


def show(src, commit, path):
    """The text of `path` at `commit` of the aie-rt clone `src`."""
    return subprocess.run(
        ["git", "-C", src, "show", f"{commit}:{path}"], check=True, capture_output=True
    ).stdout.decode("utf-8", errors="replace")


def parse_params(text, prefix, tiles):
    """Registers by module: module -> list of (offset, width, name, fields),
    fields as (name, lsb, width)."""
    defs = []
    for line in text.splitlines():
        m = DEFINE.match(line.strip())
        if m and m.group(1).startswith(prefix + "_"):
            defs.append((m.group(1)[len(prefix) + 1 :], m.group(2)))
    values = dict(defs)
    modules = {}
    current = None
    for name, raw in defs:
        if (
            not name.endswith(("_WIDTH", "_MASK", "_LSB", "_DEFVAL"))
            and name + "_WIDTH" in values
            and name + "_MASK" in values
        ):
            module = next((m for _, _, ms in tiles for m in ms if name.startswith(m + "_")), None)
            if module is None:
                current = None
                continue
            reg = name[len(module) + 1 :]
            current = (module, name, [number(raw), number(values[name + "_WIDTH"]), reg, []])
            modules.setdefault(module, []).append(current[2])
            continue
        if current and name.endswith("_LSB") and name.startswith(current[1] + "_"):
            field = name[len(current[1]) + 1 : -len("_LSB")]
            if not field:
                # AIE2PS's uC memories give themselves an _LSB: no field.
                continue
            width = values.get(current[1] + "_" + field + "_WIDTH")
            if width is None:
                sys.exit(f"{prefix}: {name} without a _WIDTH")
            current[2][3].append((field, number(raw), number(width)))
    return modules


def c_int(expr):
    """Evaluates `16 * 1024` or `0x10000`."""
    v = 1
    for part in expr.split("*"):
        v *= number(part.strip())
    return v


def memory_sizes(text, prefix):
    """Macro name (without the prefix) -> size in bytes, for the memories
    the reginit source describes: a memory module's `.Size` at `.MemAddr`,
    a program memory's `.ProgMemSize` at `.ProgMemHostOffset`, and a
    microcontroller's data memories (`.DataMemSize` at `.DataMemAddr`,
    `.PrivDataMemSize` at `.PrivDataMemAddr`) where the address is a macro."""
    sizes = {}
    for m in re.finditer(r"\.Size\s*=\s*([^,]+),\s*\.MemAddr\s*=\s*(\w+)", text):
        sizes[m.group(2)] = c_int(m.group(1))
    # Each struct initializer on its own: sizes pair with addresses inside it.
    for block in re.findall(r"=\s*\{(.*?)\};", text, re.S):
        fields = dict(re.findall(r"\.(\w+)\s*=\s*([^,\n]+?)\s*,", block))
        pairs = [("ProgMemSize", "ProgMemHostOffset")]
        pairs += [("DataMemSize", "DataMemAddr"), ("PrivDataMemSize", "PrivDataMemAddr")]
        for size, addr in pairs:
            a = fields.get(addr, "")
            if size in fields and a.startswith(prefix + "_"):
                sizes[a] = c_int(fields[size])
    out = {}
    for k, v in sizes.items():
        if not k.startswith(prefix + "_"):
            sys.exit(f"{prefix}: {k} is not a {prefix} macro")
        out[k[len(prefix) + 1 :]] = v
    if len(out) < 3:
        sys.exit(f"{prefix}: expected 3 memory sizes at least, found {out}")
    return out


def rust_str(s):
    if not re.fullmatch(r"[A-Za-z0-9_]+", s):
        sys.exit(f"unexpected name {s!r}")
    return f'"{s}"'


def generate(src, out_dir, gen):
    out_name, prefix, params, reginit, title, commit, tiles = gen
    params_text = show(src, commit, f"{GLOBAL}/{params}")
    reginit_text = show(src, commit, f"{GLOBAL}/{reginit}")
    modules = parse_params(params_text, prefix, tiles)
    mems = memory_sizes(reginit_text, prefix)
    notices = []
    for text in (params_text, reginit_text):
        for line in text.splitlines()[:12]:
            m = re.search(r"(Copyright .*?)\s*$", line)
            if m and m.group(1) not in notices:
                notices.append(m.group(1))
    licence = [l.rstrip() for l in show(src, commit, "license.txt").splitlines()]
    lines = [
        f"//! {title} register names, offsets and bit fields. Generated by",
        "//! scripts/aie-registers.py; do not edit.",
        "//!",
        f"//! Source: github.com/{REPO} at commit {commit}:",
        f"//! {GLOBAL}/{params} (names, offsets, fields) and",
        f"//! {GLOBAL}/{reginit} (memory sizes), which say:",
    ]
    lines += [f"//! {n}" for n in notices]
    lines += ["//! SPDX-License-Identifier: MIT", "//!", "//! aie-rt's license.txt:", "//!"]
    lines += [f"//! {l}".rstrip() for l in licence]
    lines += ["", "use super::reg::{f, r, BitField, Reg};", ""]
    # Bit field sets, each kept once: many registers share one (every
    # buffer descriptor's word k, every lock, every stream switch port).
    sets = [()]
    index = {(): 0}
    tables = []
    for tile, what, mods in tiles:
        regs = []
        for mod in mods:
            for off, width, name, fields in modules.get(mod, []):
                size = mems.get(mod + "_" + name, max(4, width // 8))
                key = ()
                if FIELDS_OF.match(name):
                    key = tuple(sorted(fields, key=lambda x: -x[1]))
                if key not in index:
                    index[key] = len(sets)
                    sets.append(key)
                regs.append((off, size, name, index[key]))
        regs.sort(key=lambda r: r[0])
        for a, b in zip(regs, regs[1:]):
            if a[0] + a[1] > b[0]:
                sys.exit(f"{prefix} {tile}: {a[2]} (0x{a[0]:x}+{a[1]}) overlaps {b[2]} (0x{b[0]:x})")
        tables.append((tile, what, regs))
    for tile, what, regs in tables:
        lines.append(f"/// Registers of a {what}, by offset:")
        lines.append("/// offset, size in bytes, name, bit field set (an index into")
        lines.append("/// [`FIELD_SETS`]; 0: none kept).")
        lines.append("#[rustfmt::skip]")
        lines.append(f"pub static {tile}: &[Reg] = &[")
        for off, size, name, k in regs:
            lines.append(f"    r(0x{off:05x}, 0x{size:x}, {rust_str(name)}, {k}),")
        lines.append("];")
        lines.append("")
    lines.append("/// The bit fields of DMA, lock and stream switch registers, highest bits")
    lines.append("/// first: name, least significant bit, width.")
    lines.append("#[rustfmt::skip]")
    lines.append("pub static FIELD_SETS: &[&[BitField]] = &[")
    for key in sets:
        items = ", ".join(f"f({rust_str(n)}, {lsb}, {w})" for n, lsb, w in key)
        lines.append(f"    &[{items}],")
    lines.append("];")
    lines.append("")
    total_regs = sum(len(r) for _, _, r in tables)
    total_fields = sum(len(k) for k in sets)
    with open(os.path.join(out_dir, out_name), "w", encoding="utf-8") as out:
        out.write("\n".join(lines))
    print(f"{out_name}: {total_regs} registers, {len(sets) - 1} bit field sets ({total_fields} fields)")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    src = sys.argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    out_dir = os.path.join(here, "..", "src", "formats", "cdo", "aie_regs")
    os.makedirs(out_dir, exist_ok=True)
    for gen in GENERATIONS:
        generate(src, out_dir, gen)


if __name__ == "__main__":
    main()
