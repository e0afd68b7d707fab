//! The names DWARF gives its constants, from gimli's tables.

/// The name DWARF gives constant `v`, from `known` (gimli's table), else
/// `PREFIX0x…` (for one DWARF does not define, or one past 16 bits).
fn constant_name(prefix: &str, v: u64, known: impl Fn(u16) -> Option<&'static str>) -> String {
    match u16::try_from(v).ok().and_then(known) {
        Some(s) => s.to_string(),
        None => format!("{prefix}0x{v:x}"),
    }
}

/// A tag's name: `DW_TAG_subprogram`.
pub(super) fn tag_name(t: u64) -> String {
    constant_name("DW_TAG_", t, |v| gimli::DwTag(v).static_string())
}

/// An attribute's name: `DW_AT_name`.
pub(super) fn attr_name(a: u64) -> String {
    constant_name("DW_AT_", a, |v| gimli::DwAt(v).static_string())
}

/// A form's name: `DW_FORM_strp`.
pub(super) fn form_name(f: u64) -> String {
    constant_name("DW_FORM_", f, |v| gimli::DwForm(v).static_string())
}
