//! Building command nodes: the header fields and the payload of each command.

use super::*;

// ---------------------------------------------------------------------------
// lazily built lists of variable-size items

// ---------------------------------------------------------------------------
// building command nodes

/// The payload of one command: `n` words from `off`, readable up to `lim`.
pub(super) struct Pay {
    pub(super) node: NodeId,
    pub(super) off: u64,
    pub(super) n: u64,
    pub(super) lim: u64,
}

impl Pay {
    pub(super) fn at(&self, i: u64) -> u64 {
        self.off.saturating_add(i.saturating_mul(4))
    }
    pub(super) fn get(&self, b: &Builder<'_>, i: u64) -> Option<u32> {
        if i >= self.n {
            return None;
        }
        word(b, self.at(i), self.lim)
    }
    pub(super) fn leaf(
        &self,
        b: &mut Builder<'_>,
        i: u64,
        name: &str,
        f: impl Fn(u32) -> String,
    ) -> Option<u32> {
        let v = self.get(b, i)?;
        b.leaf(self.node, name, self.at(i), 4, f(v));
        Some(v)
    }
    pub(super) fn hex(&self, b: &mut Builder<'_>, i: u64, name: &str) -> Option<u32> {
        self.leaf(b, i, name, hex32)
    }
    pub(super) fn num(&self, b: &mut Builder<'_>, i: u64, name: &str, unit: &str) -> Option<u32> {
        self.leaf(b, i, name, |v| {
            if unit.is_empty() {
                num(v.into()).to_string()
            } else {
                format!("{} {unit}", num(v.into()))
            }
        })
    }
    /// A 32-bit partition-relative address, decoded to its AIE tile.
    pub(super) fn addr(&self, b: &mut Builder<'_>, i: u64, name: &str, ctx: &Ctx) -> Option<u32> {
        let v = self.get(b, i)?;
        let at = self.at(i);
        let id = b.leaf(
            self.node,
            name,
            at,
            4,
            format!("{} ({})", hex32(v), aie_text(v)),
        );
        aie_children(b, id, at, v, ctx);
        Some(v)
    }
    /// A high/low address pair; the low word is decoded as an AIE address
    /// when the high word is 0.
    pub(super) fn addr64(
        &self,
        b: &mut Builder<'_>,
        i: u64,
        prefix: &str,
        ctx: &Ctx,
    ) -> Option<(u32, u32)> {
        let hi = self.hex(b, i, &format!("{prefix}_high"))?;
        let lo = if hi == 0 {
            self.addr(b, i + 1, &format!("{prefix}_low"), ctx)?
        } else {
            self.hex(b, i + 1, &format!("{prefix}_low"))?
        };
        Some((hi, lo))
    }
    /// Words `from..` as one raw node; returns its range.
    pub(super) fn rest(&self, b: &mut Builder<'_>, from: u64, name: &str) -> Option<(u64, u64)> {
        if from >= self.n {
            return None;
        }
        let s = self.at(from);
        let e = self.at(self.n).min(self.lim);
        if s >= e {
            return None;
        }
        let bytes = b.slice(s, e - s);
        b.leaf(
            self.node,
            name,
            s,
            e - s,
            format!("{} bytes: {}", num(e - s), text::hex(bytes, 16)),
        );
        Some((s, e - s))
    }
    /// Words `from..` as text up to the first NUL.
    pub(super) fn string(&self, b: &mut Builder<'_>, from: u64, name: &str) -> Option<String> {
        if from >= self.n {
            return None;
        }
        let s = self.at(from);
        let e = self.at(self.n).min(self.lim);
        if s >= e {
            return None;
        }
        let t = format!("\"{}\"", text::fixed(b.slice(s, e - s)));
        b.leaf(self.node, name, s, e - s, t.clone());
        Some(t)
    }
}

/// Column, row and register children of an address word at `at`.
pub(super) fn aie_children(b: &mut Builder<'_>, id: NodeId, at: u64, v: u32, ctx: &Ctx) {
    let (c, r, o) = aie_split(v);
    let col = match physical(c, ctx) {
        Some(p) => format!("{c} ({p})"),
        None => format!("{c} (relative to the partition)"),
    };
    // Bits 31..25 lie in the word's last byte, 24..20 in its last two,
    // 19..0 in its first three.
    b.leaf(id, "column", at + 3, 1, col);
    b.leaf(id, "row", at + 2, 2, r.to_string());
    b.leaf(id, "register", at, 3, format!("0x{o:05x}"));
}

/// Summary text for an address: hex, and the tile when it is a 32-bit one.
pub(super) fn addr_text(hi: u32, lo: u32) -> String {
    if hi == 0 {
        format!("{} ({})", hex32(lo), aie_text(lo))
    } else {
        hex64(hi, lo)
    }
}

pub(super) fn header_node(b: &mut Builder<'_>, node: NodeId, h: &Head, lim: u64) {
    let off = h.off;
    let hid = b.leaf(node, "header", off, 4, hex32(h.word));
    let m = h.module();
    let id = h.id();
    let cname = if h.word == u32::MAX {
        Some("END_MARK")
    } else {
        command_name(m, id)
    };
    b.leaf(
        hid,
        "command",
        off,
        1,
        crate::model::named(id.into(), cname),
    );
    b.leaf(
        hid,
        "module",
        off + 1,
        1,
        crate::model::named(m.into(), module_name(m)),
    );
    let n = (h.word >> 16) & 0xff;
    let lv = if h.long {
        "255 (long: the length is in the next word)".to_string()
    } else {
        format!("{n} words")
    };
    b.leaf(hid, "length", off + 2, 1, lv);
    b.leaf(hid, "reserved", off + 3, 1, num(u64::from(h.word >> 24)));
    if h.long && off + 8 <= lim {
        b.leaf(
            node,
            "long_length",
            off + 4,
            4,
            format!("{} words", num(h.words)),
        );
    }
}

/// Builds the node of the command at `off` (its range cut to `end`) under
/// `parent`, named `[index] NAME`. Returns where the next command starts.
pub(super) fn build_cmd(
    b: &mut Builder<'_>,
    parent: NodeId,
    index: u64,
    off: u64,
    end: u64,
    ctx: &Arc<Ctx>,
    depth: u8,
) -> Option<u64> {
    let h = head(b, off, end).ok()?;
    let cend = h.end().min(end);
    let node = b.group(parent, format!("[{index}] {}", h.name()), off, cend - off);
    header_node(b, node, &h, cend);
    let pay = Pay {
        node,
        off: h.payload(),
        n: h.words,
        lim: cend,
    };
    let v = payload(b, &h, &pay, ctx, depth);
    b.set_value(node, v);
    if h.end() > end {
        let cut = h.end() - end;
        let v = b
            .node(node)
            .and_then(|n| n.value.as_ref())
            .map(|v| v.to_string())
            .unwrap_or_default();
        b.set_value(node, format!("{v} [cut: {cut} bytes past the stream]"));
    }
    Some(h.end())
}

/// Decodes the payload fields of a command and returns its summary text.
pub(super) fn payload(b: &mut Builder<'_>, h: &Head, p: &Pay, ctx: &Arc<Ctx>, depth: u8) -> String {
    let words = || format!("{} payload words", num(h.words));
    if h.word == u32::MAX {
        return "end of the command stream".to_string();
    }
    if h.module() != 1 {
        p.rest(b, 0, "payload");
        return match command_name(h.module(), h.id()) {
            Some(_) => words(),
            None => format!(
                "unknown command: module {}, command {}, {}",
                h.module(),
                h.id(),
                words()
            ),
        };
    }
    let id = h.id();
    let s = match id {
        0 => {
            p.rest(b, 0, "payload");
            "end of the command stream".to_string()
        }
        1 | 6 => {
            let (hi, lo, k) = if id == 1 {
                match p.addr(b, 0, "address", ctx) {
                    Some(a) => (0, a, 1),
                    None => return words(),
                }
            } else {
                match p.addr64(b, 0, "address", ctx) {
                    Some((hi, lo)) => (hi, lo, 2),
                    None => return words(),
                }
            };
            let mask = p.hex(b, k, "mask");
            let exp = p.hex(b, k + 1, "expected");
            let t = p.num(b, k + 2, "timeout", "us");
            p.leaf(b, k + 3, "flags", |v| {
                let n = match v {
                    0 => " (fail on timeout)",
                    1 => " (ignore a timeout)",
                    2 => " (defer the error to the end of the partition)",
                    3 => " (break to the end of the block)",
                    _ => "",
                };
                format!("{}{n}", hex32(v))
            });
            p.hex(b, k + 4, "error_code");
            p.rest(b, k + 5, "extra");
            format!(
                "poll {} & {} == {}, timeout {} us",
                addr_text(hi, lo),
                mask.map_or("?".into(), hex32),
                exp.map_or("?".into(), hex32),
                t.map_or("?".into(), |v| v.to_string())
            )
        }
        2 | 7 => {
            let (hi, lo, k) = if id == 2 {
                match p.addr(b, 0, "address", ctx) {
                    Some(a) => (0, a, 1),
                    None => return words(),
                }
            } else {
                match p.addr64(b, 0, "address", ctx) {
                    Some((hi, lo)) => (hi, lo, 2),
                    None => return words(),
                }
            };
            let mask = p.hex(b, k, "mask");
            let val = p.hex(b, k + 1, "value");
            p.rest(b, k + 2, "extra");
            format!(
                "{} = {} under mask {}",
                addr_text(hi, lo),
                val.map_or("?".into(), hex32),
                mask.map_or("?".into(), hex32)
            )
        }
        3 | 8 => {
            let (hi, lo, k) = if id == 3 {
                match p.addr(b, 0, "address", ctx) {
                    Some(a) => (0, a, 1),
                    None => return words(),
                }
            } else {
                match p.addr64(b, 0, "address", ctx) {
                    Some((hi, lo)) => (hi, lo, 2),
                    None => return words(),
                }
            };
            let val = p.hex(b, k, "value");
            p.rest(b, k + 1, "extra");
            format!("{} = {}", addr_text(hi, lo), val.map_or("?".into(), hex32))
        }
        4 => {
            let d = p.num(b, 0, "delay", "us");
            p.rest(b, 1, "extra");
            format!("wait {} us", d.map_or("?".into(), |v| v.to_string()))
        }
        5 | 13 => {
            let Some((hi, lo)) = p.addr64(b, 0, "address", ctx) else {
                return words();
            };
            let k = if id == 13 {
                p.num(b, 2, "keyhole_size", "words");
                3
            } else {
                2
            };
            let n = h.words.saturating_sub(k).saturating_mul(4);
            if let Some((s, l)) = p.rest(b, k, "data") {
                b.link(p.node, s, l);
            }
            format!("{} <- {} bytes", addr_text(hi, lo), num(n))
        }
        9 => {
            let src = p.addr64(b, 0, "source", ctx);
            let dst = p.addr64(b, 2, "destination", ctx);
            let len = p.num(b, 4, "length", "words");
            p.hex(b, 5, "flags");
            p.rest(b, 6, "extra");
            format!(
                "{} words from {} to {}",
                len.map_or("?".into(), |v| v.to_string()),
                src.map_or("?".into(), |(h, l)| hex64(h, l)),
                dst.map_or("?".into(), |(h, l)| hex64(h, l))
            )
        }
        10 => {
            p.rest(b, 0, "data");
            words()
        }
        11 => {
            p.hex(b, 0, "params");
            let dst = p.addr64(b, 1, "destination", ctx);
            let len = p.num(b, 3, "read_length", "words");
            p.rest(b, 4, "data");
            format!(
                "read {} words to {}",
                len.map_or("?".into(), |v| v.to_string()),
                dst.map_or("?".into(), |(h, l)| hex64(h, l))
            )
        }
        12 => {
            let Some((hi, lo)) = p.addr64(b, 0, "address", ctx) else {
                return words();
            };
            let n = p.num(b, 2, "count", "words");
            let v = p.hex(b, 3, "value");
            p.rest(b, 4, "extra");
            format!(
                "{} <- {} words of {}",
                addr_text(hi, lo),
                n.map_or("?".into(), |v| v.to_string()),
                v.map_or("?".into(), hex32)
            )
        }
        15 | 16 => {
            p.hex(b, 0, "mask");
            p.num(b, 1, "timeout", "");
            p.rest(b, 2, "extra");
            words()
        }
        17 => {
            p.rest(b, 0, "padding");
            format!("{} padding words", num(h.words))
        }
        19 => {
            p.hex(b, 0, "sub_command");
            p.rest(b, 1, "arguments");
            words()
        }
        20 | 23 => p.string(b, 0, "text").unwrap_or_else(words),
        21 => {
            p.addr64(b, 0, "address", ctx);
            p.num(b, 2, "max_size", "words");
            words()
        }
        22 => {
            p.hex(b, 0, "node_id");
            p.num(b, 1, "periodicity", "ms");
            words()
        }
        24 => {
            let lo = p.hex(b, 0, "address_low");
            let hi = p.hex(b, 1, "address_high").unwrap_or(0);
            lo.map_or_else(words, |lo| hex64(hi, lo))
        }
        25 => {
            p.hex(b, 0, "type");
            p.string(b, 1, "text").unwrap_or_else(words)
        }
        26 | 31 => {
            let k = if id == 26 {
                p.hex(b, 0, "proc_id");
                1
            } else {
                0
            };
            let s = p.at(k).min(p.lim);
            let e = p.at(p.n).min(p.lim);
            if s < e {
                if depth + 1 < MAX_DEPTH {
                    nested(b, p.node, s, e, ctx, depth + 1);
                } else {
                    p.rest(b, k, "commands");
                }
            }
            words()
        }
        27 => {
            p.num(b, 0, "end_offset", "words");
            p.string(b, 1, "text");
            words()
        }
        29 => {
            p.num(b, 0, "level", "");
            words()
        }
        30 => {
            p.num(b, 0, "delay", "ms");
            words()
        }
        33 => {
            p.hex(b, 0, "value");
            p.rest(b, 1, "addresses");
            words()
        }
        34 => {
            p.hex(b, 0, "value1");
            p.hex(b, 1, "value2");
            p.rest(b, 2, "addresses");
            words()
        }
        35 => {
            p.hex(b, 0, "response");
            words()
        }
        37 => {
            p.hex(b, 0, "api_ids");
            p.hex(b, 1, "permissions");
            words()
        }
        38 => {
            p.hex(b, 0, "proc_id");
            words()
        }
        _ => {
            p.rest(b, 0, "payload");
            if command_name(1, id).is_some() {
                words()
            } else {
                format!("unknown command: module 1, command {id}, {}", words())
            }
        }
    };
    s
}
