//! What an offload binary's numbers name: image kinds, offload kinds (bit
//! flags), entry flags, and the formats an image kind promises.

use crate::model::{text, Format, Raw, Value};

/// LLVM's image kinds.
pub fn image_kind_name(k: u16) -> Option<&'static str> {
    Some(match k {
        0 => "none",
        1 => "object",
        2 => "bitcode",
        3 => "cubin",
        4 => "fatbinary",
        5 => "PTX",
        6 => "SPIR-V",
        _ => return None,
    })
}

/// The offload kind, a set of bit flags: `4 (HIP)`, `5 (OpenMP | HIP)`.
pub fn offload_kind_text(k: u16) -> String {
    if k == 0 {
        return "0 (none)".to_string();
    }
    const KINDS: &[(u64, &str)] = &[(1, "OpenMP"), (2, "CUDA"), (4, "HIP"), (8, "SYCL")];
    format!("{k} ({})", text::flag_names(k.into(), KINDS, "unknown "))
}

pub(super) fn offload_kind_short(k: u16) -> String {
    offload_kind_short_of(&offload_kind_text(k)).to_string()
}

/// What the parentheses of `4 (HIP)` hold.
pub(super) fn offload_kind_short_of(t: &str) -> &str {
    t.split_once('(')
        .and_then(|(_, r)| r.rsplit_once(')'))
        .map_or(t, |(inner, _)| inner)
}

/// The offload kind as a value: `4 (HIP)`.
pub(super) fn offload_kind_value(k: u16) -> Value {
    let t = offload_kind_text(k);
    Value::note(Raw::U(u64::from(k)), offload_kind_short_of(&t))
}

pub(super) fn flags_value(flags: u32, version: u32) -> Value {
    if version >= 2 && flags & 1 != 0 {
        let rest = flags & !1;
        let note = if rest == 0 {
            "metadata only, no image".to_string()
        } else {
            format!("metadata only, no image | 0x{rest:x}")
        };
        Value::note(Raw::U(u64::from(flags)), note)
    } else {
        Value::uint(u64::from(flags)).with_width(4)
    }
}

/// The formats an image kind promises.
pub(super) fn expected(kind: u16) -> Option<&'static [Format]> {
    Some(match kind {
        1 => &[Format::Elf, Format::Zebin],
        2 => &[Format::Bitcode],
        3 => &[Format::Elf],
        4 => &[
            Format::CudaFatbin,
            Format::ClangBundle,
            Format::ClangBundleCompressed,
        ],
        5 => &[Format::Ptx],
        6 => &[Format::SpirV],
        _ => return None,
    })
}
