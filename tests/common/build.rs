//! Writers for small files of each format, written from the layouts in the
//! format notes (not from fwview's parsers). Where a real tool reads the
//! format, the tests that use these check the result with it.

pub fn put16(v: &mut Vec<u8>, x: u16) {
    v.extend_from_slice(&x.to_le_bytes());
}
pub fn put32(v: &mut Vec<u8>, x: u32) {
    v.extend_from_slice(&x.to_le_bytes());
}
pub fn put64(v: &mut Vec<u8>, x: u64) {
    v.extend_from_slice(&x.to_le_bytes());
}
pub fn set32(v: &mut [u8], at: usize, x: u32) {
    v[at..at + 4].copy_from_slice(&x.to_le_bytes());
}
pub fn set64(v: &mut [u8], at: usize, x: u64) {
    v[at..at + 8].copy_from_slice(&x.to_le_bytes());
}
pub fn align(v: &mut Vec<u8>, to: usize, fill: u8) {
    while !v.len().is_multiple_of(to) {
        v.push(fill);
    }
}

// ---- ar ----

/// A GNU `ar` archive. Every member name goes through the `//` long-name
/// table, so a name may hold any byte but the `/\n` that ends it.
pub fn ar(members: &[(&[u8], &[u8])]) -> Vec<u8> {
    let mut names = Vec::new();
    let mut refs = Vec::new();
    for (name, _) in members {
        refs.push(names.len());
        names.extend_from_slice(name);
        names.extend_from_slice(b"/\n");
    }
    let mut v = b"!<arch>\n".to_vec();
    ar_member(&mut v, b"//", &names);
    for ((_, data), r) in members.iter().zip(refs) {
        ar_member(&mut v, format!("/{r}").as_bytes(), data);
    }
    v
}

/// An archive whose members keep their names in the header (at most 15
/// bytes each, GNU style `name/`).
pub fn ar_short(members: &[(&[u8], &[u8])]) -> Vec<u8> {
    let mut v = b"!<arch>\n".to_vec();
    for (name, data) in members {
        assert!(name.len() <= 15, "short ar names have at most 15 bytes");
        let mut n = name.to_vec();
        n.push(b'/');
        ar_member(&mut v, &n, data);
    }
    v
}

fn ar_member(v: &mut Vec<u8>, name_field: &[u8], data: &[u8]) {
    let mut h = name_field.to_vec();
    h.resize(16, b' ');
    h.extend_from_slice(
        format!("{:<12}{:<6}{:<6}{:<8}{:<10}`\n", 0, 0, 0, 644, data.len()).as_bytes(),
    );
    assert_eq!(h.len(), 60);
    v.extend_from_slice(&h);
    v.extend_from_slice(data);
    align(v, 2, b'\n');
}

// ---- ELF ----

pub struct Sec {
    pub name: Vec<u8>,
    pub sh_type: u32,
    pub flags: u64,
    pub data: Vec<u8>,
}

impl Sec {
    pub fn new(name: &[u8], sh_type: u32, data: &[u8]) -> Sec {
        Sec {
            name: name.to_vec(),
            sh_type,
            flags: 0,
            data: data.to_vec(),
        }
    }
}

pub const SHT_PROGBITS: u32 = 1;
pub const SHT_LLVM_OFFLOADING: u32 = 0x6fff_4c0b;
pub const EM_X86_64: u16 = 62;
pub const EM_INTELGT: u16 = 205;

/// A little-endian ELF64 relocatable object: the given sections, then
/// `.symtab`, `.strtab` and `.shstrtab`, then the section headers. Symbols
/// are (name, section index counted from 1 for the first given section,
/// value, size), all global functions.
pub fn elf64(machine: u16, secs: &[Sec], syms: &[(&[u8], u16, u64, u64)]) -> Vec<u8> {
    let mut v = vec![0u8; 64];
    // (name offset, type, flags, offset, size, link, info, align, entsize)
    type Shdr = (u32, u32, u64, u64, u64, u32, u32, u64, u64);
    let mut hdrs: Vec<Shdr> = Vec::new();
    let mut shstr = vec![0u8];
    let mut name = |n: &[u8]| {
        let at = shstr.len() as u32;
        shstr.extend_from_slice(n);
        shstr.push(0);
        at
    };
    for s in secs {
        align(&mut v, 8, 0);
        let off = v.len() as u64;
        v.extend_from_slice(&s.data);
        hdrs.push((
            name(&s.name),
            s.sh_type,
            s.flags,
            off,
            s.data.len() as u64,
            0,
            0,
            8,
            0,
        ));
    }
    let n = secs.len() as u32;
    // .symtab at index n+1, .strtab at n+2, .shstrtab at n+3.
    let mut strtab = vec![0u8];
    let mut symtab = vec![0u8; 24];
    for (sname, shndx, value, size) in syms {
        let at = strtab.len() as u32;
        strtab.extend_from_slice(sname);
        strtab.push(0);
        put32(&mut symtab, at);
        symtab.push(0x12); // STB_GLOBAL, STT_FUNC
        symtab.push(0);
        put16(&mut symtab, *shndx);
        put64(&mut symtab, *value);
        put64(&mut symtab, *size);
    }
    align(&mut v, 8, 0);
    let symoff = v.len() as u64;
    v.extend_from_slice(&symtab);
    hdrs.push((
        name(b".symtab"),
        2,
        0,
        symoff,
        symtab.len() as u64,
        n + 2,
        1,
        8,
        24,
    ));
    let stroff = v.len() as u64;
    v.extend_from_slice(&strtab);
    hdrs.push((
        name(b".strtab"),
        3,
        0,
        stroff,
        strtab.len() as u64,
        0,
        0,
        1,
        0,
    ));
    let shname = name(b".shstrtab");
    let shoff_str = v.len() as u64;
    v.extend_from_slice(&shstr);
    hdrs.push((shname, 3, 0, shoff_str, shstr.len() as u64, 0, 0, 1, 0));
    align(&mut v, 8, 0);
    let shoff = v.len() as u64;
    v.extend_from_slice(&[0u8; 64]);
    for (nm, ty, fl, off, size, link, info, al, es) in &hdrs {
        put32(&mut v, *nm);
        put32(&mut v, *ty);
        put64(&mut v, *fl);
        put64(&mut v, 0);
        put64(&mut v, *off);
        put64(&mut v, *size);
        put32(&mut v, *link);
        put32(&mut v, *info);
        put64(&mut v, *al);
        put64(&mut v, *es);
    }
    let shnum = hdrs.len() as u16 + 1;
    let mut e = Vec::with_capacity(64);
    e.extend_from_slice(b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0");
    put16(&mut e, 1); // ET_REL
    put16(&mut e, machine);
    put32(&mut e, 1);
    put64(&mut e, 0); // e_entry
    put64(&mut e, 0); // e_phoff
    put64(&mut e, shoff);
    put32(&mut e, 0); // e_flags
    put16(&mut e, 64);
    put16(&mut e, 0);
    put16(&mut e, 0);
    put16(&mut e, 64);
    put16(&mut e, shnum);
    put16(&mut e, shnum - 1);
    v[..64].copy_from_slice(&e);
    v
}

// ---- LLVM offload binary, version 1 ----

/// One offload binary: header, one entry, its string table, the image.
/// Every offset counts from the binary's first byte.
pub fn offload(image: &[u8], strings: &[(&[u8], &[u8])], image_kind: u16) -> Vec<u8> {
    let mut v = Vec::new();
    v.extend_from_slice(&[0x10, 0xff, 0x10, 0xad]);
    put32(&mut v, 1);
    put64(&mut v, 0); // size, set below
    put64(&mut v, 32);
    put64(&mut v, 40);
    // entry
    put16(&mut v, image_kind);
    put16(&mut v, 1); // OpenMP
    put32(&mut v, 0);
    put64(&mut v, 72); // string table
    put64(&mut v, strings.len() as u64);
    put64(&mut v, 0); // image offset, set below
    put64(&mut v, image.len() as u64);
    let table = v.len();
    v.resize(table + 16 * strings.len(), 0);
    for (i, (k, val)) in strings.iter().enumerate() {
        let ko = v.len() as u64;
        v.extend_from_slice(k);
        v.push(0);
        let vo = v.len() as u64;
        v.extend_from_slice(val);
        v.push(0);
        set64(&mut v, table + 16 * i, ko);
        set64(&mut v, table + 16 * i + 8, vo);
    }
    align(&mut v, 8, 0);
    let io = v.len() as u64;
    v.extend_from_slice(image);
    align(&mut v, 8, 0);
    let size = v.len() as u64;
    set64(&mut v, 8, size);
    set64(&mut v, 56, io);
    v
}

// ---- XCLBIN ----

/// A section header of an XCLBIN: kind, name (at most 16 bytes), and where
/// its payload is.
pub struct XHdr {
    pub kind: u32,
    pub name: Vec<u8>,
    pub offset: u64,
    pub size: u64,
}

/// An XCLBIN with the given platform name (at most 64 bytes) and one
/// section a payload, the payloads 8-aligned after the headers.
pub fn xclbin(vbnv: &[u8], secs: &[(u32, &[u8], &[u8])]) -> Vec<u8> {
    let hdr_end = 0x1c8 + 40 * secs.len();
    let mut body = vec![0u8; hdr_end];
    let mut hdrs = Vec::new();
    for (kind, name, data) in secs {
        align(&mut body, 8, 0);
        hdrs.push(XHdr {
            kind: *kind,
            name: name.to_vec(),
            offset: body.len() as u64,
            size: data.len() as u64,
        });
        body.extend_from_slice(data);
    }
    align(&mut body, 8, 0);
    xclbin_raw(vbnv, &hdrs, body)
}

/// Writes the XCLBIN header and the given section headers over the start
/// of `body` (which must leave room for them), m_length = body's size.
pub fn xclbin_raw(vbnv: &[u8], hdrs: &[XHdr], mut body: Vec<u8>) -> Vec<u8> {
    let need = 0x1c8 + 40 * hdrs.len();
    if body.len() < need {
        body.resize(need, 0);
    }
    let len = body.len() as u64;
    let v = &mut body;
    v[..8].copy_from_slice(b"xclbin2\0");
    set32(v, 8, u32::MAX); // signature length -1: unsigned
    v[0x0c..0x28].fill(0xff);
    v[0x28..0x128].fill(0xff);
    v[0x128..0x130].fill(0);
    let h = 0x130;
    set64(v, h, len);
    set64(v, h + 8, 1_600_000_000);
    set64(v, h + 0x10, 0);
    v[h + 0x18..h + 0x1a].copy_from_slice(&0u16.to_le_bytes());
    v[h + 0x1a] = 2;
    v[h + 0x1b] = 14;
    v[h + 0x1c..h + 0x20].fill(0);
    v[h + 0x20..h + 0x30].fill(0);
    v[h + 0x30..h + 0x70].fill(0);
    v[h + 0x30..h + 0x30 + vbnv.len().min(64)].copy_from_slice(&vbnv[..vbnv.len().min(64)]);
    for (i, b) in v[h + 0x70..h + 0x80].iter_mut().enumerate() {
        *b = i as u8 + 1;
    }
    v[h + 0x80..h + 0x90].fill(0);
    set32(v, h + 0x90, hdrs.len() as u32);
    set32(v, h + 0x94, 0);
    for (i, s) in hdrs.iter().enumerate() {
        let at = 0x1c8 + 40 * i;
        set32(v, at, s.kind);
        v[at + 4..at + 20].fill(0);
        v[at + 4..at + 4 + s.name.len().min(16)].copy_from_slice(&s.name[..s.name.len().min(16)]);
        set32(v, at + 20, 0);
        set64(v, at + 24, s.offset);
        set64(v, at + 32, s.size);
    }
    body
}

// ---- XMOS XE ----

/// An XE file: the 8-byte header, one sector a (type, data), then the
/// LAST sector. Each sector's contents end in the xCORE CRC.
pub fn xe(sectors: &[(u16, &[u8])]) -> Vec<u8> {
    let mut v = b"XMOS\x02\x00\x00\x00".to_vec();
    for (ty, data) in sectors {
        let start = v.len();
        let pad = (4 - data.len() % 4) % 4;
        put16(&mut v, *ty);
        put16(&mut v, 0);
        put64(&mut v, (4 + data.len() + pad + 4) as u64);
        v.push(pad as u8);
        v.extend_from_slice(&[0, 0, 0]);
        v.extend_from_slice(data);
        v.resize(v.len() + pad, 0);
        let mut h = crc32fast::Hasher::new_with_initial(0x2144_df1c);
        h.update(&v[start..]);
        put32(&mut v, h.finalize());
    }
    put16(&mut v, 0x5555);
    put16(&mut v, 0);
    put64(&mut v, 0);
    v
}
