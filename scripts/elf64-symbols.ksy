# A plain description of a little-endian ELF64 file's header, section
# headers and symbol tables: each symbol the six fields the native ELF
# reader shows, and nothing computed. scripts/ksy-speed.sh times it
# beside the gallery's elf.ksy, which computes nine instances a symbol.
meta:
  id: elf64_symbols
  endian: le
seq:
  - id: magic
    contents: [0x7f, "ELF"]
  - id: ident
    size: 12
  - id: e_type
    type: u2
  - id: e_machine
    type: u2
  - id: e_version
    type: u4
  - id: e_entry
    type: u8
  - id: e_phoff
    type: u8
  - id: e_shoff
    type: u8
  - id: e_flags
    type: u4
  - id: e_ehsize
    type: u2
  - id: e_phentsize
    type: u2
  - id: e_phnum
    type: u2
  - id: e_shentsize
    type: u2
  - id: e_shnum
    type: u2
  - id: e_shstrndx
    type: u2
instances:
  sections:
    pos: e_shoff
    type: section
    repeat: expr
    repeat-expr: e_shnum
types:
  section:
    seq:
      - id: sh_name
        type: u4
      - id: sh_type
        type: u4
      - id: sh_flags
        type: u8
      - id: sh_addr
        type: u8
      - id: sh_offset
        type: u8
      - id: sh_size
        type: u8
      - id: sh_link
        type: u4
      - id: sh_info
        type: u4
      - id: sh_addralign
        type: u8
      - id: sh_entsize
        type: u8
    instances:
      symbols:
        if: sh_type == 2
        pos: sh_offset
        size: sh_size
        type: symbols
  symbols:
    seq:
      - id: entries
        type: symbol
        repeat: eos
  symbol:
    seq:
      - id: st_name
        type: u4
      - id: st_info
        type: u1
      - id: st_other
        type: u1
      - id: st_shndx
        type: u2
      - id: st_value
        type: u8
      - id: st_size
        type: u8
