//! The ASCII headers of archives, declared once as tables of fields: the
//! Unix `ar` member header, and the AIX big archive's fixed-length header
//! and member header. Each field is a run of ASCII digits or text padded
//! with spaces; [`fields`] shows a header's fields as its table says and
//! returns the numbers they hold.

use crate::model::{text, Builder, Endian, Fields, Node, NodeId, Value};

/// How a field is read and shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Show {
    /// A member's name as written (`a.o/`, `/12`, `#1/20`).
    Name,
    /// Seconds since 1970, in decimal.
    Date,
    /// A decimal number (an id, a size, a length).
    Dec,
    /// An octal file mode, shown with its `rwx` letters.
    Octal,
    /// A decimal offset from the archive's start (0: none), linked to the
    /// header there.
    Offset,
    /// Fixed text that must be as written: the header's magic or its
    /// terminator.
    Magic(&'static [u8]),
}

/// One field: its name, its width in bytes, how it is shown.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    pub name: &'static str,
    pub len: u64,
    pub show: Show,
}

const fn f(name: &'static str, len: u64, show: Show) -> Field {
    Field { name, len, show }
}

/// The Unix `ar` member header, 60 bytes.
pub const AR: &[Field] = &[
    f("ar_name", 16, Show::Name),
    f("ar_date", 12, Show::Date),
    f("ar_uid", 6, Show::Dec),
    f("ar_gid", 6, Show::Dec),
    f("ar_mode", 8, Show::Octal),
    f("ar_size", 10, Show::Dec),
    f("ar_fmag", 2, Show::Magic(b"`\n")),
];

/// The AIX big archive's fixed-length header, 128 bytes.
pub const BIG_FL: &[Field] = &[
    f("fl_magic", 8, Show::Magic(b"<bigaf>\n")),
    f("fl_memoff", 20, Show::Offset),
    f("fl_gstoff", 20, Show::Offset),
    f("fl_gst64off", 20, Show::Offset),
    f("fl_fstmoff", 20, Show::Offset),
    f("fl_lstmoff", 20, Show::Offset),
    f("fl_freeoff", 20, Show::Offset),
];

/// The AIX big archive's member header before its name, 112 bytes; the
/// name (`ar_namlen` bytes, padded to an even length) and the terminator
/// `` `\n`` follow.
pub const BIG_AR: &[Field] = &[
    f("ar_size", 20, Show::Dec),
    f("ar_nxtmem", 20, Show::Offset),
    f("ar_prvmem", 20, Show::Offset),
    f("ar_date", 12, Show::Date),
    f("ar_uid", 12, Show::Dec),
    f("ar_gid", 12, Show::Dec),
    f("ar_mode", 12, Show::Octal),
    f("ar_namlen", 4, Show::Dec),
];

/// The length of a header of `table`.
pub const fn len(table: &[Field]) -> u64 {
    let mut n = 0;
    let mut rest = table;
    while let [first, tail @ ..] = rest {
        n += first.len;
        rest = tail;
    }
    n
}

/// An ASCII field as written, without its padding spaces.
pub fn ascii(d: &[u8]) -> String {
    text::from_bytes(d).trim_end().to_string()
}

/// A decimal field's number (0 for an empty one), or None if it is not
/// digits.
pub fn decimal(s: &str) -> Option<u64> {
    if s.is_empty() {
        return Some(0);
    }
    if !s.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// The field of `table` named `name`: its offset in the header and width.
pub fn at(table: &[Field], name: &str) -> Option<(u64, u64)> {
    let mut o = 0;
    for x in table {
        if x.name == name {
            return Some((o, x.len));
        }
        o += x.len;
    }
    None
}

/// The number in field `name` of the header of `table` at `pos`, if it is
/// a decimal number.
pub fn number(b: &Builder<'_>, table: &[Field], pos: u64, name: &str) -> Option<u64> {
    let (o, l) = at(table, name)?;
    decimal(&ascii(b.read_bytes(pos + o, l)?))
}

fn mode_str(m: u64) -> String {
    let mut s = String::with_capacity(9);
    for shift in [6u32, 3, 0] {
        let p = (m >> shift) & 7;
        s.push(if p & 4 != 0 { 'r' } else { '-' });
        s.push(if p & 2 != 0 { 'w' } else { '-' });
        s.push(if p & 1 != 0 { 'x' } else { '-' });
    }
    s
}

/// The fields of the header of `table` at `pos`, under `h`; `name` is the
/// member's name as resolved (shown beside a name field that says
/// otherwise), `what` names the header in messages, `base` is the
/// archive's start (offsets count from it), `link_len` the length of the
/// header an offset points at.
pub fn fields(
    b: &mut Builder<'_>,
    h: NodeId,
    pos: u64,
    table: &[Field],
    name: &str,
    what: &str,
    (base, link_len): (u64, u64),
) {
    // Fields past the header's node (a section that holds only a magic)
    // do not fit: what lies beyond is another structure's.
    let end = b.node(h).map_or(u64::MAX, Node::end);
    let mut f = Fields::new(b, h, pos, Endian::Little).within(end);
    for x in table {
        let at = f.at();
        let Some(d) = f.span(x.name, x.len, |d| shown(d, x.show, name)) else {
            return;
        };
        match x.show {
            Show::Magic(m) if d != m => f.builder().error(
                at,
                x.len,
                format!("{what}: {} is not \"{}\"", x.name, m.escape_ascii()),
            ),
            Show::Offset => {
                if let Some(v) = decimal(&ascii(d)).filter(|&v| v != 0) {
                    let to = f.place(base.saturating_add(v), link_len);
                    f.link(to);
                }
            }
            _ => {}
        }
    }
}

fn shown(d: &[u8], show: Show, name: &str) -> Value {
    let t = ascii(d);
    match show {
        Show::Name => {
            if t == name || t.strip_suffix('/') == Some(name) {
                Value::str(&t)
            } else {
                Value::text(format!("\"{t}\" ({name})"))
            }
        }
        Show::Date => match decimal(&t).and_then(|s| i64::try_from(s).ok()) {
            Some(s) => Value::Date(s),
            None => Value::str(&t),
        },
        Show::Dec | Show::Offset => match decimal(&t).filter(|_| !t.is_empty()) {
            Some(v) => Value::uint(v),
            None => Value::text(&t),
        },
        Show::Octal => match u64::from_str_radix(&t, 8) {
            Ok(m) => Value::text(format!("{t} ({})", mode_str(m))),
            Err(_) => Value::str(&t),
        },
        Show::Magic(m) if d == m => Value::str_bytes(d),
        Show::Magic(_) => Value::text(format!("\"{}\" (bad)", d.escape_ascii())),
    }
}
