//! Copying (OSC 52) and writing a node's bytes to a file.

use super::app::{App, MAX_COPY};
use super::popup::{Popup, Prompt, PromptKind};
use crate::model::text;

impl App {
    // ---- copy and save ----

    pub(super) fn copy(&mut self, what: char) {
        let (text, said) = match what {
            'o' if self.space() != crate::model::space::FILE => (
                format!("{}:0x{:x}", self.space(), self.cursor),
                format!("offset 0x{:x} of space {}", self.cursor, self.space()),
            ),
            'o' => (
                format!("0x{:x}", self.cursor),
                format!("offset 0x{:x}", self.cursor),
            ),
            'v' => match self.tree.value_in(self.selected, self.numbers) {
                Some(v) => (v, "the node's value".to_string()),
                None => {
                    self.message = Some(("the node has no value to copy".into(), true));
                    return;
                }
            },
            'b' => {
                let all = self.tree.node_bytes(self.selected);
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
                self.tree.path_string(self.selected),
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

    pub(super) fn save(&mut self, path: &str, force: bool) {
        let bytes = self.tree.node_bytes(self.selected);
        match crate::export::write_bytes(bytes, std::path::Path::new(path), force) {
            Ok(()) => {
                self.message = Some((
                    format!(
                        "wrote {} to {}",
                        super::status::bytes(bytes.len() as u64),
                        text::clean(path)
                    ),
                    false,
                ))
            }
            Err(crate::export::ExtractError::Exists(_)) => {
                let mut p = Prompt::new(PromptKind::Overwrite(path.to_string()));
                p.input = path.to_string();
                self.popup = Some(Popup::Prompt(p));
            }
            Err(e) => self.message = Some((e.to_string(), true)),
        }
    }
}
