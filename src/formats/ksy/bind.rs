//! Bindings: `bindings.yaml` in a formats folder binds descriptions to the
//! sections of containers fwview reads, so that a section known by its
//! name (an ELF section) or its kind (an XCLBIN section) opens in place
//! with the description, where no magic could find it:
//!
//! ```yaml
//! elf:
//!   .acme_hdr: acme_hdr.ksy     # an ELF section, by name
//! xclbin:
//!   USER_METADATA: acme_meta.ksy # an XCLBIN section, by kind name
//!   16: acme_meta.ksy            # ... or number
//! ```
//!
//! A description is named by its file, relative to the folder.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::spec::{self, Spec};
use crate::formats::yaml::{self, Y};

/// The file of a formats folder that holds its bindings.
pub const FILE: &str = "bindings.yaml";

/// Where a description is bound.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Bound {
    /// An ELF section, by name.
    ElfSection(String),
    /// An XCLBIN section, by kind (`axlf_section_kind`).
    XclbinKind(u32),
}

/// The bindings of folder `dir` (none if it has no [`FILE`]), each with
/// its description read; `search` as for [`spec::load`]; `kinds` names
/// the XCLBIN section kinds. Errors are `file:line:col: message`.
pub fn load(
    dir: &Path,
    search: &[PathBuf],
    kinds: &[(u32, &str)],
) -> (Vec<(Bound, Arc<Spec>)>, Vec<String>) {
    let path = dir.join(FILE);
    let mut out = Vec::new();
    let mut errors = Vec::new();
    let Ok(src) = std::fs::read_to_string(&path) else {
        return (out, errors);
    };
    let place = |at: u64| {
        let off = (at as usize).min(src.len());
        let before = src.get(..off).unwrap_or("");
        let line = before.matches('\n').count() + 1;
        let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        format!("{}:{line}:{col}", path.display())
    };
    let doc = yaml::read(&src, 0);
    if let Some((at, msg)) = doc.error {
        errors.push(format!("{}: YAML: {msg}", place(at)));
        return (out, errors);
    }
    let Some(Y::Map { entries, .. }) = doc.root else {
        if doc.root.is_some() {
            errors.push(format!(
                "{}: bindings are a mapping (elf, xclbin)",
                place(0)
            ));
        }
        return (out, errors);
    };
    for (container, at, _, body) in &entries {
        let Y::Map { entries: binds, .. } = body else {
            errors.push(format!(
                "{}: {container}: a mapping of sections to descriptions",
                place(*at)
            ));
            continue;
        };
        for (key, kat, _, file) in binds {
            let target = match container.as_str() {
                "elf" => Some(Bound::ElfSection(key.clone())),
                "xclbin" => xclbin_kind(key, kinds).map(Bound::XclbinKind),
                _ => {
                    errors.push(format!(
                        "{}: unknown container \"{container}\" (elf, xclbin)",
                        place(*at)
                    ));
                    break;
                }
            };
            let Some(target) = target else {
                errors.push(format!(
                    "{}: \"{key}\" is no XCLBIN section kind",
                    place(*kat)
                ));
                continue;
            };
            let Y::Scalar { text, start, .. } = file else {
                errors.push(format!("{}: {key}: a .ksy file name", place(*kat)));
                continue;
            };
            let ksy = dir.join(text);
            if !ksy.is_file() {
                errors.push(format!(
                    "{}: {}: no such file",
                    place(*start),
                    ksy.display()
                ));
                continue;
            }
            match spec::load(&ksy, search) {
                Ok(s) => out.push((target, Arc::new(s))),
                Err(e) => errors.extend(e),
            }
        }
    }
    (out, errors)
}

/// A kind given by name (as `kinds` names it, in any case) or number.
fn xclbin_kind(key: &str, kinds: &[(u32, &str)]) -> Option<u32> {
    if let Ok(n) = key.parse::<u32>() {
        return Some(n);
    }
    kinds
        .iter()
        .find(|k| k.1.eq_ignore_ascii_case(key))
        .map(|k| k.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_by_name_or_number() {
        let kinds = [(16, "USER_METADATA")];
        assert_eq!(xclbin_kind("user_metadata", &kinds), Some(16));
        assert_eq!(xclbin_kind("29", &kinds), Some(29));
        assert_eq!(xclbin_kind("NOPE", &kinds), None);
    }
}
