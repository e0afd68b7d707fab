//! CDO version 1 (identification "XNLX", version below 1.50): a five-word
//! header whose fourth word counts sections, then the sections, each an id,
//! a length (the words after the length word), a command count and its
//! commands. A command is one 32-bit id (0x1nn general, 0x2nn NPI, 0x3nn
//! CFU) followed by a payload whose length the id fixes, save DMA_WRITE,
//! DMA_XFER, NPI_WRITE and CFU_SET_CRC32, whose fields give it; the id
//! 0xFFFFFFFF ends a section early. Layout as bootgen's CDO reader and
//! writer (`cdo-binary.c`) read and write it.

use std::sync::Arc;

use super::layout::{section, v1_header, Section, V1Header, WORD};
use super::names::{count_of, hex64};
use super::shared::{checksum, header_extra, trailing, FIVE_WORDS, LE, XNLX_ID};
use super::stream::word;
use crate::model::text::{self, hex32};
use crate::model::{Builder, NodeId, Seq, Span};
use crate::model::{Fields, Radix, Step, Value};

/// The last version that keeps this layout: 1.50 and later use version 2's.
pub const LAST_VERSION: u32 = (1 << 8) | 49;

/// The id that ends a section before its command count is reached.
const END: u32 = 0xFFFF_FFFF;
/// Sections beyond this many are not shown.
const MAX_SECTIONS: u64 = 100_000;

/// A version 1 command's name, by its id.
pub fn command_name(id: u32) -> Option<&'static str> {
    Some(match id {
        0x101 => "MASK_POLL",
        0x102 => "MASK_WRITE",
        0x103 => "WRITE",
        0x104 => "DELAY",
        0x105 => "DMA_WRITE",
        0x106 => "MASK_POLL64",
        0x107 => "MASK_WRITE64",
        0x108 => "WRITE64",
        0x109 => "DMA_XFER",
        0x201 => "NPI_SEQ",
        0x202 => "NPI_PRECFG",
        0x203 => "NPI_WRITE",
        0x204 => "NPI_SHUTDN",
        0x301 => "CFU_SET_CRC32",
        0x302 => "CFU_DECOMPRESS",
        0x303 => "CFU_CRAM_RW",
        0x304 => "CFU_SEU_GO",
        0x305 => "CFU_CRC8_DIS",
        0x306 => "CFU_SSI_PER_SLR_PR",
        0x307 => "CFU_GSR_GSC",
        0x308 => "CFU_GCAP_CLK_EN",
        0x309 => "CFU_CFRAME_READ",
        END => "END",
        _ => return None,
    })
}

/// The payload length in words of the command `id` whose payload starts
/// at `p` (its length fields read there), or None for an unknown id.
fn payload_words(b: &Builder<'_>, id: u32, p: u64, lim: u64) -> Option<u64> {
    let w = |i: u64| u64::from(word(b, p + WORD * i, lim).unwrap_or(0));
    Some(match id {
        0x101 => 4,
        0x102 => 3,
        0x103 => 2,
        0x104 => 1,
        0x105 => 3u64.saturating_add(w(1)).saturating_add(w(2)),
        0x106 => 5,
        0x107 => 4,
        0x108 => 3,
        0x109 => {
            if w(0) == 0 && w(1) == 0 {
                6u64.saturating_add(w(4))
            } else {
                6
            }
        }
        0x201 | 0x202 | 0x204 => 2,
        0x203 => 3u64.saturating_add(w(2)),
        0x301 => {
            if w(0) == 0 {
                1
            } else {
                2
            }
        }
        0x302..=0x308 => 1,
        0x309 => 20,
        END => 0,
        _ => return None,
    })
}

/// Where the command at `at` ends, when its id is known and it fits
/// before `lim`.
fn command_end(b: &Builder<'_>, at: u64, lim: u64) -> Option<u64> {
    let id = word(b, at, lim)?;
    let n = payload_words(b, id, at + WORD, lim)?;
    let e = at.checked_add(WORD)?.checked_add(n.checked_mul(WORD)?)?;
    (e <= lim).then_some(e)
}

/// Parses the version 1 CDO in `cdo` under `parent`.
pub(super) fn parse(b: &mut Builder<'_>, parent: NodeId, cdo: Span) {
    let lim = cdo.end();
    let at_ = v1_header::AT;
    let Ok(h) = V1Header::read(b.bytes(cdo)) else {
        return;
    };
    let (remaining, version, sections) = (h.header_words, h.version, h.sections);
    let hid = b.group(parent, "header", cdo.offset, v1_header::SIZE);
    V1Header::show(&mut Fields::new(b, hid, cdo.offset, LE));
    let sum = [remaining, XNLX_ID, version, sections]
        .iter()
        .fold(0u32, |s, &x| s.wrapping_add(x));
    let want = !sum;
    checksum(b, hid, at_.checksum.of(cdo.offset), h.checksum, want);
    if version > LAST_VERSION {
        at_.version.warn(
            b,
            cdo.offset,
            format!(
                "version {}.{:02} with identification XNLX: versions from 1.50 on use the version 2 layout and \"CDO\"",
                version >> 8,
                version & 0xff
            ),
        );
    }
    let mut at = cdo.offset + v1_header::SIZE;
    if remaining != FIVE_WORDS {
        at_.header_words.warn(
            b,
            cdo.offset,
            format!("the CDO header says {remaining} words follow its first, not 4"),
        );
        let hlen = WORD * (u64::from(remaining) + 1);
        if remaining < FIVE_WORDS || cdo.offset + hlen > lim {
            return;
        }
        header_extra(b, parent, cdo.take(hlen));
        at = cdo.offset + hlen;
    }
    // Where each section ends, from the section headers alone.
    let first = at;
    let mut ends = Vec::new();
    while (ends.len() as u64) < u64::from(sections) && at < lim {
        if ends.len() as u64 >= MAX_SECTIONS {
            b.info(
                at,
                lim - at,
                format!("more than {MAX_SECTIONS} sections; the rest are not shown"),
            );
            break;
        }
        let e = section_end(b, at, lim);
        ends.push(e);
        at = e;
    }
    let found = ends.len() as u64;
    if found < u64::from(sections) && at >= lim {
        at_.sections.error(
            b,
            cdo.offset,
            format!("the header gives {sections} sections, the data holds {found}"),
        );
    }
    let list = b.group(parent, "sections", first, at - first);
    let mut total = 0u64;
    let mut s = first;
    for (i, e) in ends.into_iter().enumerate() {
        total += section(b, list, i as u64, b.span(s, e - s), lim);
        s = e;
    }
    b.set_value(
        list,
        Value::text(format!(
            "{}, {}",
            count_of(found, "section"),
            count_of(total, "command")
        )),
    );
    trailing(b, parent, cdo.offset, b.span(at, lim.saturating_sub(at)));
}

/// Where the section at `at` ends: after its length's words, cut to
/// `lim`, and at least after its three header words.
fn section_end(b: &Builder<'_>, at: u64, lim: u64) -> u64 {
    let length = word(b, section::AT.length.of(at), lim).unwrap_or(0);
    after_length(at)
        .saturating_add(WORD * u64::from(length))
        .max(at + section::SIZE)
        .min(lim)
}

/// Where the words a section's length counts start: after its length word.
fn after_length(at: u64) -> u64 {
    section::AT.length.of(at) + section::AT.length.size
}

/// The section in `at` (`lim`: the end of the CDO): its node, its three
/// header words and its commands. Returns how many commands it holds.
fn section(b: &mut Builder<'_>, list: NodeId, i: u64, at: Span, lim: u64) -> u64 {
    let end = at.end();
    let sec = section::AT;
    if at.len < section::SIZE {
        b.error(
            at.offset,
            at.len,
            format!(
                "section [{i}]: its header needs {} bytes, {} remain",
                section::SIZE,
                at.len
            ),
        );
        let bytes = b.bytes(at);
        b.leaf(list, "incomplete", at.offset, at.len, text::hex(bytes, 16));
        return 0;
    }
    let Ok(h) = Section::read(b.bytes(at)) else {
        return 0;
    };
    let (id, length, count) = (h.section_id, h.length, h.commands);
    // The length counts the words after itself: the command count and the
    // commands.
    let stated = after_length(at.offset).saturating_add(WORD * u64::from(length));
    if stated > lim {
        sec.length.error(
            b,
            at.offset,
            format!(
                "section [{i}]: its length of {length} words runs {} bytes past the end of the CDO",
                stated - lim
            ),
        );
    }
    if stated < at.offset + section::SIZE {
        sec.length.error(
            b,
            at.offset,
            format!(
                "section [{i}]: a length of {length} words leaves no room for its command count"
            ),
        );
    }
    let node = b.group(
        list,
        format!("[{i}] section {}", hex32(id)),
        at.offset,
        at.len,
    );
    let mut f = Fields::new(b, node, at.offset, LE);
    Section::show_part(&mut f, 0, sec.section_id.end());
    f.field("length", sec.length.size, |v| {
        Value::text(format!("{v} words follow (to 0x{stated:x})"))
    });
    Section::show_part(&mut f, sec.commands.off, section::SIZE);
    // Walk the commands as far as the count and the section go.
    let start = at.offset + section::SIZE;
    let mut pos = start;
    let mut n = 0u64;
    let mut ended = false;
    while n < u64::from(count) && pos < end {
        let cid = word(b, pos, end).unwrap_or(0);
        if cid == END {
            ended = true;
            break;
        }
        match command_end(b, pos, end) {
            Some(next) => {
                pos = next;
                n += 1;
            }
            None => {
                let what = match command_name(cid) {
                    Some(name) => format!("{name}'s payload runs past the section's end"),
                    None => format!("unknown command id {}", hex32(cid)),
                };
                b.error(
                    pos,
                    4,
                    format!("section [{i}], command [{n}]: {what}; the rest of the section is not decoded"),
                );
                break;
            }
        }
    }
    let cmds = b.add(
        node,
        "commands_list",
        start,
        pos - start,
        Some(Value::text(count_of(n, "command"))),
    );
    if n > 0 {
        let step: Step = Arc::new(move |b: &mut Builder<'_>, p, _k, at| command(b, p, at, end));
        let seq = Seq::scan(start, pos, n, |o| command_end(b, o, end), step);
        b.seq(cmds, seq);
    }
    if ended {
        b.field(
            node,
            "end",
            pos,
            4,
            Value::named_hex(END.into(), Some("END")),
        );
        pos += WORD;
    } else if n < u64::from(count) && pos >= end {
        sec.commands.error(
            b,
            at.offset,
            format!("section [{i}]: {count} commands stated, {n} fit in its length"),
        );
    }
    if pos < end {
        let bytes = b.slice(pos, end - pos);
        b.leaf(node, "undecoded", pos, end - pos, text::hex(bytes, 16));
        if !ended && n == u64::from(count) {
            b.warn(
                pos,
                end - pos,
                format!(
                    "section [{i}]: {} bytes after its {count} commands, inside its length",
                    end - pos
                ),
            );
        }
    }
    n
}

/// One command at `at` (the section ends at `lim`); returns where the next
/// starts.
fn command(b: &mut Builder<'_>, parent: NodeId, at: u64, lim: u64) -> Option<u64> {
    let id = word(b, at, lim)?;
    let next = command_end(b, at, lim)?;
    let name = command_name(id).unwrap_or("?");
    let node = b.group(parent, name, at, next - at);
    let w = |i: u64| word(b, at + WORD * (1 + i), lim).unwrap_or(0);
    let summary = match id {
        0x101 => format!(
            "{} & {} == {}, timeout {} ms",
            hex32(w(0)),
            hex32(w(1)),
            hex32(w(2)),
            w(3)
        ),
        0x102 => format!(
            "{} = {} under mask {}",
            hex32(w(0)),
            hex32(w(2)),
            hex32(w(1))
        ),
        0x103 => format!("{} = {}", hex32(w(0)), hex32(w(1))),
        0x104 => format!("{} ms", w(0)),
        0x105 => format!("{} words to {}", w(1), hex32(w(0))),
        0x106 => format!(
            "{} & {} == {}, timeout {} ms",
            hex64(w(0), w(1)),
            hex32(w(2)),
            hex32(w(3)),
            w(4)
        ),
        0x107 => format!(
            "{} = {} under mask {}",
            hex64(w(0), w(1)),
            hex32(w(3)),
            hex32(w(2))
        ),
        0x108 => format!("{} = {}", hex64(w(0), w(1)), hex32(w(2))),
        0x109 => format!(
            "{} words from {} to {}",
            w(4),
            hex64(w(0), w(1)),
            hex64(w(2), w(3))
        ),
        0x203 => format!("{} words to {}", w(2), hex32(w(0))),
        0x201 | 0x202 | 0x204 => format!("{} flags {}", hex32(w(0)), hex32(w(1))),
        _ => format!("{} payload words", (next - at) / WORD - 1),
    };
    b.set_value(node, Value::text(summary));
    let mut f = Fields::new(b, node, at, LE);
    f.field("command", 4, |v| Value::named_hex(v, Some(name)));
    match id {
        0x101 => {
            hexes(&mut f, &["address", "mask", "expected"]);
            f.field("timeout", 4, |v| Value::with(v, Radix::Dec, " ms"));
        }
        0x102 => hexes(&mut f, &["address", "mask", "value"]),
        0x103 => hexes(&mut f, &["address", "value"]),
        0x104 => {
            f.field("delay", 4, |v| Value::with(v, Radix::Dec, " ms"));
        }
        0x105 => {
            f.hex("address", 4);
            let len = f.field("length", 4, |v| Value::with(v, Radix::Dec, " words"));
            let pad = f.field("offset", 4, |v| {
                Value::with(v, Radix::Dec, " words of alignment before the data")
            });
            let (len, pad) = (len.unwrap_or(0), pad.unwrap_or(0));
            let here = f.at();
            let b = f.builder();
            if pad > 0 {
                let bytes = b.slice(here, 4 * pad);
                b.leaf(node, "alignment", here, 4 * pad, text::hex(bytes, 16));
            }
            data(b, node, b.span(here + WORD * pad, WORD * len));
        }
        0x106 => {
            hexes(&mut f, &["address_high", "address_low", "mask", "expected"]);
            f.field("timeout", 4, |v| Value::with(v, Radix::Dec, " ms"));
        }
        0x107 => hexes(&mut f, &["address_high", "address_low", "mask", "value"]),
        0x108 => hexes(&mut f, &["address_high", "address_low", "value"]),
        0x109 => {
            hexes(
                &mut f,
                &[
                    "source_high",
                    "source_low",
                    "destination_high",
                    "destination_low",
                ],
            );
            let len = f.field("length", 4, |v| Value::with(v, Radix::Dec, " words"));
            f.hex("flags", 4);
            let here = f.at();
            if here < next {
                let at = f.place(here, 4 * len.unwrap_or(0));
                data(f.builder(), node, at);
            }
        }
        0x201 | 0x202 | 0x204 => hexes(&mut f, &["address", "flags"]),
        0x203 => {
            hexes(&mut f, &["address", "flags"]);
            let len = f.field("length", 4, |v| Value::with(v, Radix::Dec, " words"));
            let at = f.place(f.at(), 4 * len.unwrap_or(0));
            data(f.builder(), node, at);
        }
        0x301 => {
            let flags = f.hex("flags", 4);
            if flags.is_some_and(|v| v != 0) {
                f.hex("crc", 4);
            }
        }
        0x302 | 0x304..=0x308 => {
            f.hex("flags", 4);
        }
        0x303 => {
            f.hex("value", 4);
        }
        0x309 => {
            hexes(&mut f, &["flags", "address_high", "address_low"]);
            f.field("length", 4, |v| Value::with(v, Radix::Dec, " words"));
            let at = f.place(f.at(), 64);
            data(f.builder(), node, at);
        }
        _ => {}
    }
    Some(next)
}

/// The data words `at` a command carries.
fn data(b: &mut Builder<'_>, node: NodeId, at: Span) {
    if at.is_empty() {
        return;
    }
    let bytes = b.slice(at.offset, at.len.min(16));
    let mut v = text::hex(bytes, 16);
    if at.len > 16 {
        v.push_str(&format!(" … ({} bytes)", at.len));
    }
    b.leaf(node, "data", at.offset, at.len, v);
}

/// Words in hex, one field each.
fn hexes(f: &mut Fields<'_, '_>, names: &[&str]) {
    for n in names {
        f.hex(n, 4);
    }
}
