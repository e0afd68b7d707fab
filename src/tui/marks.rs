//! Marks kept between runs, per file, as vim keeps them: in the XDG state
//! directory (`$XDG_STATE_HOME/fwview/marks`, else
//! `~/.local/state/fwview/marks`), one mark a line:
//! `letter TAB cursor TAB node address TAB file`.

use std::path::{Path, PathBuf};

use super::app::{App, Location};

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
    pub file: String,
}

pub fn parse(text: &str) -> Vec<Stored> {
    text.lines()
        .filter_map(|l| {
            let mut f = l.splitn(4, '\t');
            let mut letter = f.next()?.chars();
            let c = letter.next().filter(|c| c.is_ascii_alphabetic())?;
            if letter.next().is_some() {
                return None;
            }
            Some(Stored {
                letter: c,
                cursor: f.next()?.parse().ok()?,
                address: f.next()?.to_string(),
                file: f.next()?.to_string(),
            })
        })
        .collect()
}

pub fn format(marks: &[Stored]) -> String {
    marks
        .iter()
        .map(|m| format!("{}\t{}\t{}\t{}\n", m.letter, m.cursor, m.address, m.file))
        .collect()
}

/// A text with no tab or line break, or None.
fn field(s: &str) -> Option<String> {
    (!s.contains(['\t', '\n', '\r'])).then(|| s.to_string())
}

impl App {
    /// Keeps marks in `store` (the marks file) for this file: loads those
    /// kept before.
    pub fn keep_marks(&mut self, store: PathBuf) {
        let key = std::fs::canonicalize(&self.path)
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_else(|_| self.path.clone());
        let Some(key) = field(&key) else {
            return;
        };
        let text = std::fs::read_to_string(&store).unwrap_or_default();
        for m in parse(&text).into_iter().filter(|m| m.file == key) {
            let node = match self.tree.find_path(&m.address) {
                Some(id) => id,
                None if m.cursor < self.file_len() => self.tree.smallest_containing(m.cursor, 1),
                None => continue,
            };
            self.marks.insert(
                m.letter,
                Location {
                    cursor: m.cursor,
                    node,
                },
            );
        }
        self.marks_store = Some((store, key));
    }

    /// Writes this file's marks to the marks file, keeping other files'.
    pub(super) fn save_marks(&mut self) {
        let Some((store, key)) = self.marks_store.clone() else {
            return;
        };
        let text = std::fs::read_to_string(&store).unwrap_or_default();
        let mut all: Vec<Stored> = parse(&text).into_iter().filter(|m| m.file != key).collect();
        for (&letter, loc) in &self.marks {
            let Some(address) = field(&self.tree.path_string(loc.node)) else {
                continue;
            };
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
                file: "/tmp/x y.bin".into(),
            },
            Stored {
                letter: 'Z',
                cursor: 0,
                address: String::new(),
                file: "/f".into(),
            },
        ];
        assert_eq!(parse(&format(&m)), m);
        assert!(parse("ab\t1\tx\t/f\n1\t1\tx\t/f\na\tzz\tx\t/f\n").is_empty());
    }
}
