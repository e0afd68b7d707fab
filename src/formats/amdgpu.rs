//! AMDGPU code objects: the target id an ELF header names (`e_flags`
//! with its xnack and sramecc settings) and the code object version
//! behind `EI_ABIVERSION`.

use std::sync::Arc;

use super::{elf, msgpack};
use crate::disasm::Target;
use crate::model::record::{record, Record};
use crate::model::{bits as bits_of, Builder, Endian, Fact, Fields, NodeId, Span, Value};

/// `n_type` of the code object metadata note (owner "AMDGPU").
pub const NT_AMDGPU_METADATA: u32 = 32;

/// What AMDGPU code objects add to the ELF reader.
pub struct Amdgpu;

/// The AMDGPU vendor.
pub static AMDGPU: Amdgpu = Amdgpu;

impl elf::Vendor for Amdgpu {
    fn code_target(&self, _b: &Builder<'_>, elf: &elf::Elf) -> Option<Target> {
        code_target(elf)
    }
    /// GPU code for the processor and features e_flags name.
    fn device_code(&self, flags: u32, abiversion: u8) -> Option<Fact> {
        Some(Fact::DeviceCode {
            target: Some(target_id(flags, abiversion).into()),
        })
    }
    fn abi_version(&self, osabi: u8, v: u8) -> Option<String> {
        (osabi == ELFOSABI_AMDGPU_HSA)
            .then(|| code_object_version(v))
            .flatten()
            .map(|n| format!("code object v{n}"))
    }
    fn owns_note(&self, owner: &[u8]) -> bool {
        owner == b"AMDGPU"
    }
    fn note_type(&self, _owner: &[u8], t: u32) -> Option<&'static str> {
        (t == NT_AMDGPU_METADATA).then_some("NT_AMDGPU_METADATA")
    }
    fn note_desc(
        &self,
        b: &mut Builder<'_>,
        parent: NodeId,
        _owner: &[u8],
        typ: u32,
        at: Span,
        _e: Endian,
    ) {
        if typ != NT_AMDGPU_METADATA || at.is_empty() {
            b.raw(parent, "desc", at.offset, at.len);
            return;
        }
        let g = b.group(parent, "desc", at.offset, at.len);
        b.set_value(g, "MessagePack");
        // Decoded when opened: a library holds thousands of code objects.
        b.lazy(g, Arc::new(move |b, g| msgpack::parse(b, g, at)));
    }
    fn sections(&self) -> Box<dyn elf::Sections> {
        Box::new(Descriptors)
    }
}

record! {
    /// `kernel_descriptor_t` (LLVM's AMDGPUUsage): the 64 bytes at each
    /// `.kd` symbol. The registers and properties are shown bit by bit,
    /// each a group of its own.
    mod kd: KernelDescriptor (Endian::Little) {
        group_segment_fixed_size: u32 = "group_segment_fixed_size", Show::Wide(Value::dec),
        private_segment_fixed_size: u32 = "private_segment_fixed_size", Show::Wide(Value::dec),
        kernarg_size: u32 = "kernarg_size", Show::Wide(Value::dec),
        reserved0: [u8; 4] = "reserved", Show::Bytes,
        kernel_code_entry_byte_offset: i64 = "kernel_code_entry_byte_offset", Show::Int,
        reserved1: [u8; 20] = "reserved", Show::Bytes,
        compute_pgm_rsrc3: u32 = "compute_pgm_rsrc3", Show::Hidden,
        compute_pgm_rsrc1: u32 = "compute_pgm_rsrc1", Show::Hidden,
        compute_pgm_rsrc2: u32 = "compute_pgm_rsrc2", Show::Hidden,
        kernel_code_properties: u16 = "kernel_code_properties", Show::Hidden,
        kernarg_preload: u16 = "kernarg_preload", Show::Hidden,
        reserved2: [u8; 4] = "reserved", Show::Bytes,
    }
}

/// Kernel descriptors: the 64 bytes at each `.kd` symbol, decoded under
/// the section that holds them once every section is built.
struct Descriptors;

/// Symbols looked at for `.kd` names at most.
const MAX_SYMBOLS: u64 = 1 << 20;
/// Kernel descriptors decoded at most.
const MAX_KERNELS: usize = 4096;

impl elf::Sections for Descriptors {
    fn section(
        &mut self,
        _b: &mut Builder<'_>,
        _id: NodeId,
        _elf: &elf::Elf,
        _s: &elf::Sec,
        _at: Span,
    ) -> bool {
        false
    }

    fn finish(&mut self, b: &mut Builder<'_>, e: &elf::Elf, built: &[(usize, NodeId)]) {
        // The processor, for the register granules.
        let (flags, abi) = (e.flags, e.abiversion);
        let proc_name = processor(flags).unwrap_or("");
        let Some(st) = e.symtab().or_else(|| {
            e.secs
                .iter()
                .find(|s| s.typ == elf::SHT_DYNSYM)
                .map(|s| s.index)
        }) else {
            return;
        };
        let Some(sec) = e.sec(st.into()) else { return };
        let mut found = 0;
        for i in 1..MAX_SYMBOLS {
            let Some((sym, entry)) = elf::sym_and_entry(b, e, st, i) else {
                break;
            };
            let Ok(name) = e.string(b, sec.link, sym.name.into()) else {
                continue;
            };
            let Some(kernel) = name.text.strip_suffix(".kd") else {
                continue;
            };
            let Some(kd_at) = elf::sym_bytes(e, &sym) else {
                continue;
            };
            let Some(&(_, node)) = built.iter().find(|(k, _)| *k == usize::from(sym.shndx)) else {
                continue;
            };
            if found >= MAX_KERNELS {
                b.warn(
                    entry.offset,
                    entry.len,
                    format!("more than {MAX_KERNELS} kernel descriptors; the rest are not decoded"),
                );
                break;
            }
            found += 1;
            if kd_at.len < kd::SIZE {
                b.error(
                    kd_at.offset,
                    kd_at.len,
                    format!(
                        "kernel descriptor {kernel}: {} bytes, {} expected",
                        kd_at.len,
                        kd::SIZE
                    ),
                );
                continue;
            }
            let g = b.group(
                node,
                format!("kernel descriptor {kernel}"),
                kd_at.offset,
                kd::SIZE,
            );
            b.set_value(g, Value::str(kernel));
            let entry = kernel_entry(b, e, &sym, kd_at.offset);
            let (at, endian) = (kd_at.offset, e.e);
            // Its fields are built when it is opened: a library's fat
            // binary holds hundreds of code objects of hundreds of kernels.
            b.lazy(
                g,
                Arc::new(move |b, g| descriptor(b, g, at, endian, proc_name, abi, entry)),
            );
        }
    }
}

/// `R_AMDGPU_REL64`, and `SHT_RELA`.
const R_AMDGPU_REL64: u64 = 5;
const SHT_RELA: u32 = 4;

/// Where the kernel that the descriptor of symbol `kd` (its bytes at `at`)
/// starts: kernel_code_entry_byte_offset counts from the descriptor's
/// address. A relocatable object leaves the field to an `R_AMDGPU_REL64`
/// at it (S + A - P, so the kernel starts at S + A less the field's 16
/// bytes into the descriptor).
fn kernel_entry(b: &Builder<'_>, e: &elf::Elf, kd: &elf::Sym, at: u64) -> Option<u64> {
    const FIELD: u64 = kd::AT.kernel_code_entry_byte_offset.off;
    if !elf::relocatable(e) {
        let off = b.read_u64(at + FIELD, e.e)?;
        return e.addr_to_abs(kd.value.wrapping_add(off));
    }
    let at_field = kd.value.checked_add(FIELD)?;
    for r in e
        .secs
        .iter()
        .filter(|r| r.typ == SHT_RELA && r.info == u32::from(kd.shndx))
    {
        let Some(rel) = elf::rels(b, e, r, MAX_SYMBOLS)?
            .find(|x| x.offset == at_field && x.typ == R_AMDGPU_REL64)
        else {
            continue;
        };
        let s = elf::rel_sym(b, e, r.link, rel.sym)?;
        let code = e.data(e.sec(s.shndx.into())?)?;
        let to = s
            .value
            .wrapping_add(rel.addend.unwrap_or(0))
            .wrapping_sub(FIELD);
        return (to < code.len).then(|| code.offset + to);
    }
    None
}

/// The register granules of a processor: (VGPR granule, SGPR granule;
/// 0 where the SGPR field is not used, GFX10 on).
/// The processor's major generation (`gfx1100` → 11, `gfx90a` → 9).
fn major(proc_name: &str) -> u32 {
    let n = proc_name.strip_prefix("gfx").unwrap_or("");
    n.chars()
        .take(if n.len() >= 4 { 2 } else { 1 })
        .collect::<String>()
        .parse()
        .unwrap_or(9)
}

fn granules(proc_name: &str, wave32: bool) -> (u64, u64) {
    let n = proc_name.strip_prefix("gfx").unwrap_or("");
    if major(proc_name) >= 10 {
        (if wave32 { 8 } else { 4 }, 0)
    } else if proc_name == "gfx90a" || n.starts_with("94") || n.starts_with("95") {
        (8, 8)
    } else {
        (4, 8)
    }
}

/// One bit field: (name, low bit, width). The names are those of the
/// `.amdhsa_` directives where one exists.
type Bits = (&'static str, u32, u32);

/// `COMPUTE_PGM_RSRC3` of GFX10, GFX11 and GFX12 (GFX90A and GFX94x have
/// their own, decoded with the unified register file).
const RSRC3_GFX10: &[Bits] = &[("shared_vgpr_count", 0, 4)];
const RSRC3_GFX11: &[Bits] = &[
    ("shared_vgpr_count", 0, 4),
    ("inst_pref_size", 4, 6),
    ("trap_on_start", 10, 1),
    ("trap_on_end", 11, 1),
    ("image_op", 31, 1),
];
const RSRC3_GFX12: &[Bits] = &[("inst_pref_size", 4, 8), ("image_op", 31, 1)];

const RSRC1: &[Bits] = &[
    ("granulated_workitem_vgpr_count", 0, 6),
    ("granulated_wavefront_sgpr_count", 6, 4),
    ("priority", 10, 2),
    ("float_round_mode_32", 12, 2),
    ("float_round_mode_16_64", 14, 2),
    ("float_denorm_mode_32", 16, 2),
    ("float_denorm_mode_16_64", 18, 2),
    ("priv", 20, 1),
    ("dx10_clamp", 21, 1),
    ("debug_mode", 22, 1),
    ("ieee_mode", 23, 1),
    ("bulky", 24, 1),
    ("cdbg_user", 25, 1),
    ("fp16_overflow", 26, 1),
    ("workgroup_processor_mode", 29, 1),
    ("memory_ordered", 30, 1),
    ("forward_progress", 31, 1),
];

const RSRC2: &[Bits] = &[
    ("system_sgpr_private_segment_wavefront_offset", 0, 1),
    ("user_sgpr_count", 1, 5),
    ("trap_handler", 6, 1),
    ("system_sgpr_workgroup_id_x", 7, 1),
    ("system_sgpr_workgroup_id_y", 8, 1),
    ("system_sgpr_workgroup_id_z", 9, 1),
    ("system_sgpr_workgroup_info", 10, 1),
    ("system_vgpr_workitem_id", 11, 2),
    ("exception_address_watch", 13, 1),
    ("exception_memory", 14, 1),
    ("granulated_lds_size", 15, 9),
    ("exception_fp_ieee_invalid_op", 24, 1),
    ("exception_fp_denorm_src", 25, 1),
    ("exception_fp_ieee_div_zero", 26, 1),
    ("exception_fp_ieee_overflow", 27, 1),
    ("exception_fp_ieee_underflow", 28, 1),
    ("exception_fp_ieee_inexact", 29, 1),
    ("exception_int_div_zero", 30, 1),
];

const PROPERTIES: &[Bits] = &[
    ("user_sgpr_private_segment_buffer", 0, 1),
    ("user_sgpr_dispatch_ptr", 1, 1),
    ("user_sgpr_queue_ptr", 2, 1),
    ("user_sgpr_kernarg_segment_ptr", 3, 1),
    ("user_sgpr_dispatch_id", 4, 1),
    ("user_sgpr_flat_scratch_init", 5, 1),
    ("user_sgpr_private_segment_size", 6, 1),
    ("wavefront_size32", 10, 1),
    ("uses_dynamic_stack", 11, 1),
];

const PRELOAD: &[Bits] = &[
    ("user_sgpr_kernarg_preload_length", 0, 7),
    ("user_sgpr_kernarg_preload_offset", 7, 9),
];

fn bits(b: &mut Builder<'_>, g: NodeId, at: Span, v: u64, list: &[Bits]) {
    for &(name, lo, w) in list {
        b.leaf(g, name, at.offset, at.len, Value::dec(bits_of(v, lo, w)));
    }
}

/// The 64 bytes of a kernel descriptor at `at`, field by field; `entry`
/// is where the kernel's first instruction is, if known.
fn descriptor(
    b: &mut Builder<'_>,
    g: NodeId,
    at: u64,
    e: Endian,
    proc_name: &str,
    abi: u8,
    entry: Option<u64>,
) {
    let r = KernelDescriptor::read_in(b.slice(at, kd::SIZE), e).ok();
    let mut f = Fields::new(b, g, at, e);
    // Up to the registers; the last reserved bytes after them.
    let n = KernelDescriptor::show_part(&mut f, 0, kd::AT.compute_pgm_rsrc3.off);
    if let (Some(x), Some(p)) = (entry, n.kernel_code_entry_byte_offset) {
        b.link(p, b.span(x, 1));
    }
    // The registers and properties, read before their fields are shown.
    let word = |w: fn(&KernelDescriptor) -> u64| r.as_ref().map_or(0, w);
    let (r3, r1, r2) = (
        word(|r| r.compute_pgm_rsrc3.into()),
        word(|r| r.compute_pgm_rsrc1.into()),
        word(|r| r.compute_pgm_rsrc2.into()),
    );
    let (props, preload) = (
        word(|r| r.kernel_code_properties.into()),
        word(|r| r.kernarg_preload.into()),
    );
    let wave32 = bits_of(props, 10, 1) == 1;
    let (vg, sg) = granules(proc_name, wave32);
    let unified = vg == 8 && sg == 8;

    let (r3_at, r1_at, r2_at) = (
        kd::AT.compute_pgm_rsrc3,
        kd::AT.compute_pgm_rsrc1,
        kd::AT.compute_pgm_rsrc2,
    );
    let (props_at, preload_at) = (kd::AT.kernel_code_properties, kd::AT.kernarg_preload);
    let space = b.space();
    let place = |x: crate::model::record::At| Span::new(space, x.of(at), x.size);
    let h3 = b.group(g, "compute_pgm_rsrc3", r3_at.of(at), r3_at.size);
    b.set_value(h3, Value::hex(r3).with_width(4));
    if unified {
        b.leaf(
            h3,
            "accum_offset",
            r3_at.of(at),
            r3_at.size,
            Value::dec((bits_of(r3, 0, 6) + 1) * 4),
        );
        b.leaf(
            h3,
            "tg_split",
            r3_at.of(at),
            r3_at.size,
            Value::dec(bits_of(r3, 16, 1)),
        );
    } else {
        match major(proc_name) {
            10 => bits(b, h3, place(r3_at), r3, RSRC3_GFX10),
            11 => bits(b, h3, place(r3_at), r3, RSRC3_GFX11),
            m if m >= 12 => bits(b, h3, place(r3_at), r3, RSRC3_GFX12),
            _ => {}
        }
    }
    let h1 = b.group(g, "compute_pgm_rsrc1", r1_at.of(at), r1_at.size);
    b.set_value(h1, Value::hex(r1).with_width(4));
    // GFX12 gave bit 21 (DX10_CLAMP before) to round-robin scheduling of
    // work-groups and reserved bit 23 (IEEE_MODE before).
    let gfx12 = major(proc_name) >= 12;
    let rsrc1: Vec<Bits> = RSRC1
        .iter()
        .filter(|&&(_, lo, _)| !(gfx12 && lo == 23))
        .map(|&(name, lo, w)| match (lo, gfx12) {
            (21, true) => ("round_robin_scheduling", lo, w),
            _ => (name, lo, w),
        })
        .collect();
    bits(b, h1, place(r1_at), r1, &rsrc1);
    b.leaf(
        h1,
        "next_free_vgpr",
        r1_at.of(at),
        r1_at.size,
        Value::dec((bits_of(r1, 0, 6) + 1) * vg),
    );
    // GFX10 and later allocate SGPRs whole and reserve the count field; the
    // directive still reads it in granules of 8, as llvm-objdump prints it.
    b.leaf(
        h1,
        "next_free_sgpr",
        r1_at.of(at),
        r1_at.size,
        Value::dec((bits_of(r1, 6, 4) + 1) * if sg > 0 { sg } else { 8 }),
    );
    let h2 = b.group(g, "compute_pgm_rsrc2", r2_at.of(at), r2_at.size);
    b.set_value(h2, Value::hex(r2).with_width(4));
    // With architected flat scratch (GFX940 and later GFX9, GFX11 on) bit 0
    // enables the private segment instead of passing its wave offset.
    let n = proc_name.strip_prefix("gfx").unwrap_or("");
    let architected = major(proc_name) >= 11 || n.starts_with("94") || n.starts_with("95");
    let rsrc2: Vec<Bits> = RSRC2
        .iter()
        .map(|&(name, lo, w)| match (lo, architected) {
            (0, true) => ("enable_private_segment", lo, w),
            _ => (name, lo, w),
        })
        .collect();
    bits(b, h2, place(r2_at), r2, &rsrc2);
    let hp = b.group(g, "kernel_code_properties", props_at.of(at), props_at.size);
    b.set_value(hp, Value::hex(props).with_width(2));
    bits(b, hp, place(props_at), props, PROPERTIES);
    let hk = b.group(g, "kernarg_preload", preload_at.of(at), preload_at.size);
    b.set_value(hk, Value::hex(preload).with_width(2));
    if code_object_version(abi).unwrap_or(0) >= 5 {
        bits(b, hk, place(preload_at), preload, PRELOAD);
    }
    let last = kd::AT.reserved2;
    KernelDescriptor::show_part(&mut Fields::new(b, g, last.of(at), e), last.off, kd::SIZE);
}

/// `EI_OSABI` of AMD HSA code objects.
pub const ELFOSABI_AMDGPU_HSA: u8 = 64;

/// The code object version `EI_ABIVERSION` 0 stands for
/// (`ELFABIVERSION_AMDGPU_HSA_V2`); each later value is the next version.
const FIRST_CODE_OBJECT_VERSION: u8 = 2;

/// The code object version `EI_ABIVERSION` stands for (HSA OS ABI).
pub fn code_object_version(abiversion: u8) -> Option<u8> {
    match abiversion {
        0..=4 => Some(abiversion + FIRST_CODE_OBJECT_VERSION),
        _ => None,
    }
}

/// The processor `e_flags` names (`gfx90a`), if known.
pub fn processor(eflags: u32) -> Option<&'static str> {
    elf::amdgpu_mach_name(eflags & 0xff)
}

/// The target id of a code object: the processor and, where the code
/// object says so, `sramecc` and `xnack` on (`+`) or off (`-`); "any"
/// settings are left out, as clang writes target ids.
pub fn target_id(eflags: u32, abiversion: u8) -> String {
    let mut s = match processor(eflags) {
        Some(p) => p.to_string(),
        None => format!("mach 0x{:x}", eflags & 0xff),
    };
    let v = code_object_version(abiversion).unwrap_or(4);
    let (sramecc, xnack) = if v <= 3 {
        // v3: one bit each, set means on.
        (
            Some(eflags & 0x200 != 0).filter(|&on| on),
            Some(eflags & 0x100 != 0).filter(|&on| on),
        )
    } else {
        let pick = |m: u32| match m {
            2 => Some(false),
            3 => Some(true),
            _ => None,
        };
        (pick((eflags >> 10) & 3), pick((eflags >> 8) & 3))
    };
    for (name, set) in [("sramecc", sramecc), ("xnack", xnack)] {
        if let Some(on) = set {
            s.push(':');
            s.push_str(name);
            s.push(if on { '+' } else { '-' });
        }
    }
    s
}

/// An AMDGPU code object's target: the processor from e_flags, and xnack
/// and sramecc where e_flags sets them.
fn code_target(elf: &elf::Elf) -> Option<Target> {
    let id = target_id(elf.flags, elf.abiversion);
    let mut parts = id.split(':');
    let cpu = processor(elf.flags)?;
    parts.next();
    let features: Vec<String> = parts
        .filter_map(|p| {
            let (name, sign) = p.split_at(p.len().checked_sub(1)?);
            matches!(sign, "+" | "-").then(|| format!("{sign}{name}"))
        })
        .collect();
    let os = match elf.osabi {
        65 => "amdpal",
        66 => "mesa3d",
        _ => "amdhsa",
    };
    let arch = if elf.flags & 0xff < 0x20 {
        "r600"
    } else {
        "amdgcn"
    };
    Some(Target::new(
        &format!("{arch}-amd-{os}"),
        cpu,
        &features.join(","),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `kernel_descriptor_t` as LLVM's AMDGPUUsage lays it out.
    #[test]
    fn kernel_descriptor_matches_amdgpu_usage_and_short_slices_are_errors() {
        assert_eq!(kd::SIZE, 64);
        assert_eq!(kd::AT.kernarg_size.off, 8);
        assert_eq!(kd::AT.kernel_code_entry_byte_offset, record_at(16, 8));
        assert_eq!(kd::AT.compute_pgm_rsrc3, record_at(44, 4));
        assert_eq!(kd::AT.compute_pgm_rsrc1.off, 48);
        assert_eq!(kd::AT.compute_pgm_rsrc2.off, 52);
        assert_eq!(kd::AT.kernel_code_properties, record_at(56, 2));
        assert_eq!(kd::AT.kernarg_preload, record_at(58, 2));
        assert_eq!(kd::AT.reserved2, record_at(60, 4));
        let e = KernelDescriptor::read(&[0; 50]).unwrap_err();
        assert_eq!((e.field, e.need, e.have), ("compute_pgm_rsrc1", 64, 50));
        let mut d = [0u8; 64];
        d[16..24].copy_from_slice(&(-256i64).to_le_bytes());
        d[56] = 0x8;
        let r = KernelDescriptor::read(&d).unwrap();
        assert_eq!(
            (r.kernel_code_entry_byte_offset, r.kernel_code_properties),
            (-256, 8)
        );
    }

    fn record_at(off: u64, size: u64) -> crate::model::record::At {
        crate::model::record::At { off, size }
    }

    #[test]
    fn target_ids_as_clang_writes_them() {
        // gfx90a (0x3f), xnack any, sramecc any: what clang writes by default.
        assert_eq!(target_id(0x53f, 2), "gfx90a");
        assert_eq!(target_id(0x33f, 2), "gfx90a:xnack+");
        assert_eq!(target_id(0xb3f, 3), "gfx90a:sramecc-:xnack+");
        assert_eq!(target_id(0x13f, 1), "gfx90a:xnack+");
        assert_eq!(code_object_version(3), Some(5));
    }
}
