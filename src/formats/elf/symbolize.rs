//! What decoded instructions are annotated with, gathered once per ELF when
//! instructions are asked for: the symbols of each section, to name a
//! branch target as `llvm-objdump` does (`<sym+0x10>`: the last symbol at
//! or before the target, in the target's section) and to find the bytes
//! it lands on; and, in a relocatable file, the relocations of each code
//! section, to show at the instruction they patch (`[R_X86_64_PLT32
//! ext-0x4]`: type, symbol and addend, spelled as `llvm-objdump -dr`
//! spells them).

use super::relocations::{rels, riscv_vendor};
use super::shared::{Names, Section};
use super::symbols::{read_sym, real_section, relocatable, resolve, sym_entry, sym_name};
use super::{constants, Elf};
use crate::model::Builder;

/// Symbols read for naming, at most.
const MAX_SCAN: u64 = 1 << 22;

/// `STT_SECTION` and `STT_FILE`.
const STT_SECTION: u8 = 3;
const STT_FILE: u8 = 4;

/// A branch target as shown: the symbol it falls in and where its bytes
/// are.
pub(super) struct Resolved {
    /// `<sym>` or `<sym+0x10>`; `None` when no symbol precedes it.
    pub label: Option<String>,
    /// The offset of the target's byte, in the space the ELF is in.
    pub at: Option<u64>,
}

/// True for the symbols `llvm-objdump` does not name targets by: the
/// mapping symbols of Arm, AArch64 and RISC-V (`$x`, `$d.1`) and RISC-V's
/// fake labels (`.L0 `).
fn unnamed(name: &str, machine: u16) -> bool {
    let mapping = |n: &str| {
        ["$x", "$d", "$a", "$t"]
            .iter()
            .any(|m| n == *m || n.strip_prefix(m).is_some_and(|r| r.starts_with('.')))
    };
    match machine {
        constants::EM_RISCV => name == ".L0 " || mapping(name),
        constants::EM_AARCH64 | constants::EM_ARM => mapping(name),
        _ => false,
    }
}

impl Names {
    /// Whether the ELF is relocatable: its addresses are offsets in their
    /// section.
    pub fn relocatable(&self) -> bool {
        self.relocatable
    }

    /// Reads the symbol table (the dynamic one where there is none) of
    /// `elf`.
    pub fn read(b: &Builder<'_>, elf: &Elf) -> Names {
        let mut secs: Vec<Section> = elf
            .secs
            .iter()
            .map(|s| Section {
                addr: s.addr,
                size: s.size,
                alloc: s.flags & constants::SHF_ALLOC != 0,
                at: elf.data(s).map(|at| at.offset),
                syms: Vec::new(),
                relocs: Vec::new(),
            })
            .collect();
        if relocatable(elf) {
            read_relocs(b, elf, &mut secs);
        }
        let table = elf
            .secs
            .iter()
            .find(|s| s.typ == constants::SHT_SYMTAB)
            .or_else(|| elf.secs.iter().find(|s| s.typ == constants::SHT_DYNSYM));
        if let Some(t) = table {
            let strtab = t.link;
            let n = (t.size / elf.sym_size().max(1)).min(MAX_SCAN);
            for i in 1..n {
                let Some(mut sym) = sym_entry(elf, t.index, i).and_then(|o| read_sym(b, elf, o))
                else {
                    break;
                };
                resolve(b, elf, t.index, i, &mut sym);
                if sym.typ() == STT_FILE {
                    continue;
                }
                let Some(sec) = real_section(&sym) else {
                    continue;
                };
                let name = if sym.typ() == STT_SECTION {
                    elf.sec_name(sec.into())
                } else if sym.name == 0 {
                    continue;
                } else {
                    match elf.string(b, strtab, sym.name.into()) {
                        Ok(s) => s.text,
                        Err(_) => continue,
                    }
                };
                if unnamed(&name, elf.machine) {
                    continue;
                }
                if let Some(s) = secs.get_mut(sec as usize) {
                    s.syms.push((sym.value, name));
                }
            }
        }
        for s in &mut secs {
            s.syms.sort_unstable();
        }
        Names {
            relocatable: relocatable(elf),
            secs,
        }
    }

    /// The relocations that patch `[off, off+len)` of section `sec`, in
    /// offset order.
    pub fn relocs(&self, sec: u32, off: u64, len: u64) -> impl Iterator<Item = &str> {
        let r = self
            .secs
            .get(sec as usize)
            .map_or(&[][..], |s| &s.relocs[..]);
        let lo = r.partition_point(|x| x.0 < off);
        let hi = r.partition_point(|x| x.0 < off.saturating_add(len));
        r.get(lo..hi).unwrap_or(&[]).iter().map(|x| x.1.as_str())
    }

    /// Names `target`, reached from code in section `from`.
    pub fn resolve(&self, from: u32, target: u64) -> Resolved {
        let none = Resolved {
            label: None,
            at: None,
        };
        if self.relocatable {
            let Some(s) = self.secs.get(from as usize) else {
                return none;
            };
            return Resolved {
                label: label(&s.syms, target),
                at: s.at.filter(|_| target < s.size).map(|a| a + target),
            };
        }
        // A linked file: the sections that hold the address, the one the
        // branch is in first.
        let holds = |s: &Section| s.alloc && target >= s.addr && target - s.addr < s.size;
        let here = self.secs.get(from as usize).filter(|s| holds(s));
        let mut found = here
            .into_iter()
            .chain(self.secs.iter().filter(|s| holds(s)));
        let Some(first) = found.next() else {
            return none;
        };
        let at = first.at.map(|a| a + (target - first.addr));
        let label = std::iter::once(first)
            .chain(found)
            .find_map(|s| label(&s.syms, target));
        Resolved { label, at }
    }
}

/// The relocations of every code section, from the REL and RELA sections
/// that apply to it, at most [`MAX_SCAN`] in all.
fn read_relocs(b: &Builder<'_>, elf: &Elf, secs: &mut [Section]) {
    let mut left = MAX_SCAN;
    for r in &elf.secs {
        if !matches!(
            r.typ,
            constants::SHT_REL | constants::SHT_RELA | constants::SHT_CREL
        ) {
            continue;
        }
        let code = elf
            .sec(r.info.into())
            .is_some_and(|t| t.flags & constants::SHF_EXECINSTR != 0);
        let Some(list) = secs.get_mut(r.info as usize).filter(|_| code) else {
            continue;
        };
        let Some(it) = rels(b, elf, r, left) else {
            continue;
        };
        let mut prev = None;
        for x in it {
            left = left.saturating_sub(1);
            let vendor = riscv_vendor(b, elf, r.link, || prev, x.offset, x.typ);
            let mut text = super::relocations::type_text(elf, x.typ, vendor.as_deref());
            text.push(' ');
            // What llvm-objdump names: no symbol is `*ABS*`.
            match (x.sym, sym_name(b, elf, r.link, x.sym)) {
                (0, _) => text.push_str("*ABS*"),
                (_, Some(n)) => text.push_str(&n),
                (i, None) => text.push_str(&format!("symbol [{i}]")),
            }
            // RELA addends as signed numbers of the file's word.
            let addend = x.addend.map(|a| {
                if elf.is64 {
                    a as i64
                } else {
                    i64::from(a as u32 as i32)
                }
            });
            match addend {
                Some(a) if a > 0 => text.push_str(&format!("+0x{a:x}")),
                Some(a) if a < 0 => text.push_str(&format!("-0x{:x}", a.unsigned_abs())),
                _ => {}
            }
            list.relocs.push((x.offset, text));
            prev = Some(x);
        }
    }
    for s in secs {
        // Stable: relocations at one offset keep the table's order.
        s.relocs.sort_by_key(|x| x.0);
    }
}

/// `<sym+0x10>` for the last of `syms` (sorted) at or before `target`.
fn label(syms: &[(u64, String)], target: u64) -> Option<String> {
    let i = syms.partition_point(|(v, _)| *v <= target);
    let (v, name) = syms.get(i.checked_sub(1)?)?;
    Some(match target - v {
        0 => format!("<{name}>"),
        d => format!("<{name}+0x{d:x}>"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_take_the_last_symbol_before_them() {
        let syms = vec![
            (0, ".text".to_string()),
            (0, "sum".to_string()),
            (0x30, "dot".to_string()),
        ];
        assert_eq!(label(&syms, 0).as_deref(), Some("<sum>"));
        assert_eq!(label(&syms, 0x26).as_deref(), Some("<sum+0x26>"));
        assert_eq!(label(&syms, 0x57).as_deref(), Some("<dot+0x27>"));
        assert_eq!(label(&syms[2..], 0x10), None);
    }

    #[test]
    fn mapping_symbols_name_nothing() {
        assert!(unnamed("$x", constants::EM_AARCH64));
        assert!(unnamed("$d.12", constants::EM_RISCV));
        assert!(unnamed(".L0 ", constants::EM_RISCV));
        assert!(!unnamed(".Lpcrel_hi0", constants::EM_RISCV));
        assert!(!unnamed("$x", constants::EM_X86_64));
        assert!(!unnamed("$xyz", constants::EM_AARCH64));
    }
}
