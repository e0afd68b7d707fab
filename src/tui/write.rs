//! Copying (OSC 52) and writing a node's bytes to a file.

use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::app::{App, MAX_COPY};
use super::message::{Message, Writing};
use super::popup::{Popup, Prompt, PromptKind};
use crate::model::{text, Source};

/// The bytes a write reads, kept alive for its thread.
enum Held {
    File(Arc<Source>),
    Space(crate::model::space::SpaceBytes),
}

impl Held {
    fn bytes(&self) -> &[u8] {
        match self {
            Held::File(s) => s.bytes(),
            Held::Space(b) => b,
        }
    }
}

/// `~` and `~/…` in a path typed at the prompt are the home directory.
pub fn expand_home(path: &str) -> std::path::PathBuf {
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty());
    match (path, home) {
        ("~", Some(h)) => h.into(),
        (p, Some(h)) if p.starts_with("~/") => Path::new(&h).join(&p[2..]),
        (p, _) => p.into(),
    }
}

/// A file name made of a node's name: letters, digits, `.`, `-` and `_`
/// kept, any other run of characters one `_`, no leading dot, `.bin` added
/// when there is no extension.
pub fn file_name_for(node: &str) -> String {
    let mut out = String::new();
    for c in node.chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
            out.push(c);
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    let t = out.trim_matches(|c| c == '_' || c == '.');
    let mut name: String = t.chars().take(80).collect();
    if name.is_empty() {
        name = "node".into();
    }
    if !name.contains('.') {
        name.push_str(".bin");
    }
    name
}

/// Opens `path` for writing: a new file, or with `force` an existing one
/// emptied.
fn open_out(path: &Path, force: bool) -> std::io::Result<File> {
    let mut o = std::fs::OpenOptions::new();
    o.write(true);
    if force {
        o.create(true).truncate(true);
    } else {
        o.create_new(true);
    }
    o.open(path)
}

/// Copies `bytes` to `out` a chunk at a time, reporting the bytes written
/// and stopping when `cancel` is set. The chunk goes through a buffer: the
/// bytes may be a map of a file truncated since, which reads as zeros in
/// user space where write(2) of the mapped pages fails.
fn copy(
    mut out: File,
    bytes: &[u8],
    cancel: &AtomicBool,
    report: &mut dyn FnMut(u64),
) -> std::io::Result<()> {
    const CHUNK: usize = 1 << 20;
    let mut buf = vec![0u8; CHUNK.min(bytes.len())];
    let mut done = 0u64;
    for c in bytes.chunks(CHUNK) {
        if cancel.load(Ordering::Relaxed) {
            return Ok(());
        }
        let b = buf.get_mut(..c.len()).unwrap_or_default();
        b.copy_from_slice(c);
        out.write_all(b)?;
        done += c.len() as u64;
        report(done);
    }
    out.flush()
}

impl App {
    // ---- copy and save ----

    pub(super) fn copy(&mut self, what: char) {
        let (text, said) = match what {
            'o' => {
                let sp = self.space();
                let said = match sp == crate::model::FILE {
                    true => format!("offset 0x{:x}", self.cursor),
                    false => format!("offset 0x{:x} of space {sp}", self.cursor),
                };
                (sp.offset_text(self.cursor), said)
            }
            'v' => match self.doc.tree.value_in(self.selected, self.numbers) {
                Some(v) => {
                    let insn = self
                        .doc
                        .tree
                        .node(self.selected)
                        .and_then(|n| n.value.as_ref())
                        .is_some_and(|v| v.is_insn());
                    let what = if insn {
                        "the instruction's text"
                    } else {
                        "the node's value"
                    };
                    (v, what.to_string())
                }
                None => {
                    self.message = Some(("the node has no value to copy".into(), true));
                    return;
                }
            },
            'b' => {
                let (space, s, e) = self.chosen_bytes();
                let data = self.doc.tree.space_bytes(space);
                let all = usize::try_from(s)
                    .ok()
                    .zip(usize::try_from(e).ok())
                    .and_then(|(s, e)| data.get(s..e))
                    .unwrap_or_default();
                let b = all
                    .get(..all.len().min(MAX_COPY as usize))
                    .unwrap_or_default();
                let more = if all.len() as u64 > MAX_COPY {
                    " (the first 64 KiB)"
                } else {
                    ""
                };
                (
                    text::hex(b, b.len()),
                    format!("{} as hex{more}", super::status::bytes(b.len() as u64)),
                )
            }
            'p' => (
                self.doc.tree.path_string(self.selected),
                "the node's path".to_string(),
            ),
            c => {
                let c = text::clean(&c.to_string()).into_owned();
                self.message = Some((
                    format!("y {c}: nothing to copy (p path, v value, o offset, b bytes)"),
                    true,
                ));
                return;
            }
        };
        self.clipboard = Some(text);
        self.message = Some((format!("copied {said} to the clipboard"), false));
    }

    /// Writes the selected node's bytes to `path`: in the background
    /// when the app has a channel (progress in the status bar, Esc
    /// cancels), else at once. An existing file is replaced only with
    /// `force`; without it the user is asked.
    /// What the `x` prompt offers: the selected node's name as a file name.
    pub(super) fn suggested_file_name(&self) -> String {
        let name = self.doc.tree.name(self.selected);
        match self.visual_range() {
            Some((s, e)) => file_name_for(&format!("{name}_0x{s:x}-0x{e:x}")),
            None => file_name_for(name),
        }
    }

    pub(super) fn save(&mut self, path: &str, force: bool) {
        if self.writing.is_some() {
            self.message = Some(("a write is already running (Esc cancels it)".into(), true));
            return;
        }
        let (space, from, to) = self.chosen_bytes();
        let held = match self
            .doc
            .tree
            .spaces()
            .get(space.index())
            .and_then(|s| s.bytes.clone())
        {
            Some(b) => Held::Space(b),
            None => Held::File(self.doc.tree.source().clone()),
        };
        let all = held.bytes();
        let start = usize::try_from(from).unwrap_or(usize::MAX).min(all.len());
        let end = usize::try_from(to)
            .unwrap_or(usize::MAX)
            .min(all.len())
            .max(start);
        let out = expand_home(path);
        let shown = text::clean(path).into_owned();
        if out.is_dir() {
            self.message = Some((format!("{shown} is a directory: give a file name"), true));
            return;
        }
        if let (Ok(a), Ok(b)) = (out.canonicalize(), self.doc.path.canonicalize()) {
            if a == b {
                self.message = Some((format!("{shown} is the file being viewed"), true));
                return;
            }
        }
        let file = match open_out(&out, force) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                let p = Prompt::new(PromptKind::Overwrite(out.display().to_string()));
                self.popup = Some(Popup::Prompt(p));
                return;
            }
            Err(e) => {
                self.message = Some((format!("cannot write {shown}: {e}"), true));
                return;
            }
        };
        let total = (end - start) as u64;
        self.next_write_id += 1;
        let id = self.next_write_id;
        let cancel = Arc::new(AtomicBool::new(false));
        self.writing = Some(Writing {
            id,
            path: out.display().to_string(),
            done: 0,
            total,
            cancel: cancel.clone(),
        });
        let job = move |report: &mut dyn FnMut(u64)| {
            let r = copy(
                file,
                held.bytes().get(start..end).unwrap_or_default(),
                &cancel,
                report,
            );
            let cancelled = cancel.load(Ordering::Relaxed);
            if r.is_err() || cancelled {
                // No half-written file is left behind.
                let _ = std::fs::remove_file(&out);
            }
            (r.map_err(|e| e.to_string()), cancelled)
        };
        match &self.tx {
            Some(tx) => {
                let tx = tx.clone();
                std::thread::spawn(move || {
                    let t = tx.clone();
                    let mut report = |done| {
                        let _ = t.send(Message::WriteProgress { id, done });
                    };
                    let (result, cancelled) = job(&mut report);
                    let _ = tx.send(Message::WriteDone {
                        id,
                        result,
                        cancelled,
                    });
                });
            }
            None => {
                let (result, cancelled) = job(&mut |_| {});
                self.write_done(id, result, cancelled);
            }
        }
    }

    /// A report from the background write.
    pub(super) fn write_progress(&mut self, id: u64, done: u64) {
        if let Some(w) = self.writing.as_mut().filter(|w| w.id == id) {
            w.done = done;
        }
    }

    /// The background write ended.
    pub(super) fn write_done(&mut self, id: u64, result: Result<(), String>, cancelled: bool) {
        let Some(w) = self.writing.take_if(|w| w.id == id) else {
            return;
        };
        // Where it went in full: a name alone lands in the directory
        // fwview was started in.
        let full = std::path::absolute(&w.path)
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| w.path.clone());
        let path = text::clean(&full).into_owned();
        self.message = Some(match (result, cancelled) {
            (Ok(()), false) => (
                format!("wrote {} to {path}", super::status::bytes(w.total)),
                false,
            ),
            (_, true) => (format!("write cancelled; {path} removed"), false),
            (Err(e), false) => (format!("writing {path} failed: {e}"), true),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_names_make_safe_file_names() {
        assert_eq!(file_name_for("BITSTREAM"), "BITSTREAM.bin");
        assert_eq!(file_name_for(".text"), "text.bin");
        assert_eq!(file_name_for("../../etc/passwd"), "etc_passwd.bin");
        assert_eq!(file_name_for("[3]"), "3.bin");
        assert_eq!(file_name_for("kernel.elf"), "kernel.elf");
        assert_eq!(file_name_for("a b\u{1b}[31m"), "a_b_31m.bin");
        assert_eq!(file_name_for("///"), "node.bin");
    }
}
