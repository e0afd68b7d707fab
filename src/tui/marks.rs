//! Marks kept between runs, per file, as vim keeps them: in the XDG state
//! directory (`$XDG_STATE_HOME/fwview/marks`, else
//! `~/.local/state/fwview/marks`), one mark a line:
//! `letter TAB cursor TAB node address TAB file`.

use std::path::{Path, PathBuf};

use super::app::{App, Location};
use super::document::path_bytes;
use crate::model::NodeId;

/// Where marks are kept, if a state directory can be named.
pub fn marks_path() -> Option<PathBuf> {
    let nonempty = |v: &str| std::env::var_os(v).filter(|s| !s.is_empty());
    let dir = match nonempty("XDG_STATE_HOME") {
        Some(d) if Path::new(&d).is_absolute() => PathBuf::from(d),
        _ => PathBuf::from(nonempty("HOME")?).join(".local/state"),
    };
    Some(dir.join("fwview").join("marks"))
}

/// One stored mark.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stored {
    pub letter: char,
    pub cursor: u64,
    pub address: String,
    /// The file's canonical path, as the operating system's bytes (a
    /// name need not be UTF-8).
    pub file: Vec<u8>,
}

/// The marks in a marks file; lines that do not read as a mark are left out.
pub fn parse(text: &[u8]) -> Vec<Stored> {
    text.split(|&b| b == b'\n')
        .filter_map(|l| {
            let l = l.strip_suffix(b"\r").unwrap_or(l);
            let mut f = l.splitn(4, |&b| b == b'\t');
            let mut letter = std::str::from_utf8(f.next()?).ok()?.chars();
            let c = letter.next().filter(|c| c.is_ascii_alphabetic())?;
            if letter.next().is_some() {
                return None;
            }
            Some(Stored {
                letter: c,
                cursor: std::str::from_utf8(f.next()?).ok()?.parse().ok()?,
                address: String::from_utf8(f.next()?.to_vec()).ok()?,
                file: f.next()?.to_vec(),
            })
        })
        .collect()
}

pub fn format(marks: &[Stored]) -> Vec<u8> {
    let mut out = Vec::new();
    for m in marks {
        out.extend_from_slice(format!("{}\t{}\t{}\t", m.letter, m.cursor, m.address).as_bytes());
        out.extend_from_slice(&m.file);
        out.push(b'\n');
    }
    out
}

/// Whether `s` can be a field: no tab or line break in it.
fn fits(s: &[u8]) -> bool {
    !s.iter().any(|b| matches!(b, b'\t' | b'\n' | b'\r'))
}

impl App {
    /// Keeps marks in `store` (the marks file) for this file: loads those
    /// kept before. The file is known by its canonical path's bytes.
    pub fn keep_marks(&mut self, store: PathBuf) {
        let path = std::fs::canonicalize(&self.doc.path).unwrap_or_else(|_| self.doc.path.clone());
        let key = path_bytes(path.as_os_str());
        if !fits(&key) {
            return;
        }
        let text = std::fs::read(&store).unwrap_or_default();
        for m in parse(&text).into_iter().filter(|m| m.file == key) {
            if let Some(node) = self.mark_node(&m.address, m.cursor) {
                self.marks.insert(
                    m.letter,
                    Location {
                        cursor: m.cursor,
                        node,
                    },
                );
            }
        }
        self.marks_store = Some((store, key));
    }

    /// The node a mark at `address` with its cursor at `cursor` is on:
    /// the node at that address, else the smallest holding the cursor.
    pub(super) fn mark_node(&mut self, address: &str, cursor: u64) -> Option<NodeId> {
        match self.doc.tree.find_path(address) {
            Some(id) => Some(id),
            None if cursor < self.file_len() => Some(self.doc.tree.deepest_at(cursor)),
            None => None,
        }
    }

    /// Writes this file's marks to the marks file, keeping other files'.
    pub(super) fn save_marks(&mut self) {
        let Some((store, key)) = self.marks_store.clone() else {
            return;
        };
        let text = std::fs::read(&store).unwrap_or_default();
        let mut all: Vec<Stored> = parse(&text).into_iter().filter(|m| m.file != key).collect();
        for (&letter, loc) in &self.marks {
            let address = self.doc.tree.path_string(loc.node);
            if !fits(address.as_bytes()) {
                continue;
            }
            all.push(Stored {
                letter,
                cursor: loc.cursor,
                address,
                file: key.clone(),
            });
        }
        let write = || -> std::io::Result<()> {
            if let Some(dir) = store.parent() {
                std::fs::create_dir_all(dir)?;
            }
            let tmp = store.with_extension(format!("tmp{}", std::process::id()));
            std::fs::write(&tmp, format(&all))?;
            std::fs::rename(&tmp, &store)
        };
        if let Err(e) = write() {
            self.message = Some((
                format!(
                    "marks not kept in {}: {e}",
                    crate::model::text::clean(&store.display().to_string())
                ),
                true,
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_read_back_as_written() {
        let m = vec![
            Stored {
                letter: 'a',
                cursor: 456,
                address: "header/magic".into(),
                file: b"/tmp/x y.bin".to_vec(),
            },
            Stored {
                letter: 'Z',
                cursor: 0,
                address: String::new(),
                file: b"/f".to_vec(),
            },
            // A name that is not UTF-8 is kept byte for byte.
            Stored {
                letter: 'b',
                cursor: 7,
                address: "body/a".into(),
                file: b"/tmp/\xff\xfe.bin".to_vec(),
            },
        ];
        assert_eq!(parse(&format(&m)), m);
        assert!(parse(b"ab\t1\tx\t/f\n1\t1\tx\t/f\na\tzz\tx\t/f\n").is_empty());
    }
}
