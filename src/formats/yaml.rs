//! YAML with byte spans: the values of a YAML text, each with the bytes it
//! covers, for the formats that show YAML (a zebin's `.ze_info`) and the
//! readers that point at a line of it (`.ksy` descriptions).

use saphyr_parser::{Event, Parser, ScalarStyle};

/// A YAML value with its byte span (absolute: the `base` given to [`read`]
/// plus the offset in the text).
pub enum Y {
    Scalar {
        text: String,
        quoted: bool,
        start: u64,
        end: u64,
    },
    Map {
        entries: Vec<(String, u64, u64, Y)>,
        start: u64,
        end: u64,
    },
    Seq {
        items: Vec<Y>,
        start: u64,
        end: u64,
    },
}

impl Y {
    /// The bytes it covers, `(start, end)`.
    pub fn span(&self) -> (u64, u64) {
        match self {
            Y::Scalar { start, end, .. }
            | Y::Map { start, end, .. }
            | Y::Seq { start, end, .. } => (*start, *end),
        }
    }
}

enum Ev {
    Scalar(String, bool),
    MapStart,
    MapEnd,
    SeqStart,
    SeqEnd,
    Alias,
    Other,
}

/// How deep collections may nest.
pub const MAX_DEPTH: usize = 64;
/// How many events a text may have.
pub const MAX_EVENTS: usize = 2_000_000;

struct Events {
    ev: Vec<(Ev, u64, u64)>,
    pos: usize,
}

impl Events {
    fn next(&mut self) -> Option<&(Ev, u64, u64)> {
        let e = self.ev.get(self.pos);
        self.pos += 1;
        e
    }
    fn peek(&self) -> Option<&(Ev, u64, u64)> {
        self.ev.get(self.pos)
    }
}

/// What [`read`] made of a text.
pub struct Doc {
    /// The first document's value, as far as it could be read.
    pub root: Option<Y>,
    /// Where the text stops being YAML (absolute) and why.
    pub error: Option<(u64, String)>,
    /// More than [`MAX_EVENTS`] events: only the start was read.
    pub truncated: bool,
}

/// Reads the first YAML document of `src`, whose first byte is at `base`.
/// Collections nested deeper than [`MAX_DEPTH`] become one scalar.
pub fn read(src: &str, base: u64) -> Doc {
    let a = base;
    // saphyr's markers count characters; map them to bytes.
    let ascii = src.is_ascii();
    let map: Vec<usize> = if ascii {
        Vec::new()
    } else {
        src.char_indices()
            .map(|(i, _)| i)
            .chain(std::iter::once(src.len()))
            .collect()
    };
    let to_byte = |ci: usize| -> u64 {
        let bi = if ascii {
            ci.min(src.len())
        } else {
            map.get(ci).copied().unwrap_or(src.len())
        };
        a + bi as u64
    };
    let mut ev = Vec::new();
    let mut error = None;
    let mut truncated = false;
    let mut parser = Parser::new_from_str(src);
    while let Some(r) = parser.next_event() {
        match r {
            Ok((e, span)) => {
                let (s, t) = (to_byte(span.start.index()), to_byte(span.end.index()));
                let kind = match e {
                    Event::Scalar(v, style, _, _) => {
                        // Block scalars' spans take the indentation after them.
                        let quoted = !matches!(style, ScalarStyle::Plain);
                        Ev::Scalar(v.into_owned(), quoted)
                    }
                    Event::MappingStart(..) => Ev::MapStart,
                    Event::MappingEnd => Ev::MapEnd,
                    Event::SequenceStart(..) => Ev::SeqStart,
                    Event::SequenceEnd => Ev::SeqEnd,
                    Event::Alias(_) => Ev::Alias,
                    Event::StreamEnd => break,
                    _ => Ev::Other,
                };
                let t = trim_end(src, a, s, t);
                ev.push((kind, s, t));
                if ev.len() >= MAX_EVENTS {
                    truncated = true;
                    break;
                }
            }
            Err(e) => {
                error = Some((to_byte(e.marker().index()), e.info().to_string()));
                break;
            }
        }
    }
    let mut evs = Events { ev, pos: 0 };
    // Skip to the first value (past StreamStart and DocumentStart).
    while matches!(evs.peek(), Some((Ev::Other, ..))) {
        evs.pos += 1;
    }
    Doc {
        root: value(&mut evs, 0),
        error,
        truncated,
    }
}

/// The end of a span with trailing blanks (block scalars) left out.
fn trim_end(src: &str, a: u64, s: u64, t: u64) -> u64 {
    let (si, ti) = ((s - a) as usize, (t - a) as usize);
    match src.get(si..ti) {
        Some(x) => s + x.trim_end().len() as u64,
        None => t,
    }
}

fn value(evs: &mut Events, depth: usize) -> Option<Y> {
    let (kind, s, t) = match evs.next()? {
        (Ev::Scalar(v, q), s, t) => {
            return Some(Y::Scalar {
                text: v.clone(),
                quoted: *q,
                start: *s,
                end: *t,
            })
        }
        (Ev::Alias, s, t) => {
            return Some(Y::Scalar {
                text: "*alias".into(),
                quoted: false,
                start: *s,
                end: *t,
            })
        }
        (Ev::MapStart, s, t) => (0, *s, *t),
        (Ev::SeqStart, s, t) => (1, *s, *t),
        (_, s, t) => {
            return Some(Y::Scalar {
                text: String::new(),
                quoted: false,
                start: *s,
                end: *t,
            })
        }
    };
    if depth >= MAX_DEPTH {
        // Skip the whole collection.
        let mut level = 1usize;
        let mut end = t;
        while level > 0 {
            let Some((e, _, et)) = evs.next() else {
                break;
            };
            end = end.max(*et);
            match e {
                Ev::MapStart | Ev::SeqStart => level += 1,
                Ev::MapEnd | Ev::SeqEnd => level -= 1,
                _ => {}
            }
        }
        return Some(Y::Scalar {
            text: "(nested too deep)".into(),
            quoted: false,
            start: s,
            end,
        });
    }
    let mut end = t;
    if kind == 0 {
        let mut entries = Vec::new();
        loop {
            match evs.peek() {
                None => break,
                Some((Ev::MapEnd, es, et)) => {
                    // Flow mappings end at their brace; block ones report an
                    // empty span at the next token.
                    if et > es {
                        end = end.max(*et);
                    }
                    evs.pos += 1;
                    break;
                }
                _ => {}
            }
            let key = value(evs, depth + 1)?;
            let (ks, ke) = key.span();
            let k = match key {
                Y::Scalar { text, .. } => text,
                _ => "(complex key)".into(),
            };
            let v = value(evs, depth + 1).unwrap_or(Y::Scalar {
                text: String::new(),
                quoted: false,
                start: ke,
                end: ke,
            });
            end = end.max(v.span().1).max(ke);
            entries.push((k, ks, ke, v));
        }
        Some(Y::Map {
            entries,
            start: s,
            end,
        })
    } else {
        let mut items = Vec::new();
        loop {
            match evs.peek() {
                None => break,
                Some((Ev::SeqEnd, es, et)) => {
                    if et > es {
                        end = end.max(*et);
                    }
                    evs.pos += 1;
                    break;
                }
                _ => {}
            }
            let v = value(evs, depth + 1)?;
            end = end.max(v.span().1);
            items.push(v);
        }
        Some(Y::Seq {
            items,
            start: s,
            end,
        })
    }
}
