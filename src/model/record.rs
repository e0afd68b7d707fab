//! Fixed-layout records declared once. A `record!` declaration names a
//! record, its byte order and, for each field in file order, its Rust
//! type, the name the tree shows and how its value is shown ([`Show`]).
//! From that one declaration come:
//!
//! - a plain struct with one public member a field, read from a byte
//!   slice by nom ([`Prim`] takes each field's bytes) without panics: a
//!   slice too short is a [`Short`] that says which field did not fit;
//! - `show`, which adds the field nodes with their exact bytes through a
//!   [`Fields`] cursor (so a field that does not fit is the cursor's usual
//!   "truncated" diagnostic) and returns the node of each field, to link
//!   or to give a value found out later; `show_part`, the same for a run
//!   of fields (a record whose header says how much of it there is, or
//!   whose middle is shown another way);
//! - `read_zeroed` ([`Record`]), the typed read of a record cut short by
//!   its own header, the missing fields read as 0;
//! - `AT`, the offset and size of every field ([`At`]), which diagnostics
//!   point at instead of computing `base + 8` by hand; `SIZE`, the record's
//!   length.
//!
//! ```ignore
//! record! {
//!     /// One entry.
//!     pub mod entry: Entry (Endian::Little) {
//!         kind: u16 = "kind", Show::Named(kind_name),
//!         flags: u16 = "flags", Show::Hex,
//!         size: u64 = "size", Show::Auto,
//!     }
//! }
//! let e = entry::Entry::read(bytes)?;            // typed
//! let nodes = entry::Entry::show(&mut fields);   // nodes
//! b.error(entry::AT.size.of(base), entry::AT.size.size, "…"); // offsets
//! ```

use nom::bytes::complete::take;
use nom::{IResult, Parser};

use super::arena::Builder;
use super::fields::{sign_extend, Fields};
use super::read::Endian;
use super::value::{Radix, Value};

/// A field's place in its record: its offset from the record's start and
/// its size, both in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct At {
    pub off: u64,
    pub size: u64,
}

impl At {
    /// Where the field is when its record starts at `base`.
    pub const fn of(self, base: u64) -> u64 {
        base.saturating_add(self.off)
    }

    /// Where the field ends, from its record's start.
    pub const fn end(self) -> u64 {
        self.off + self.size
    }
    /// The same field in a record that starts `by` bytes into another.
    pub const fn after(self, by: u64) -> At {
        At {
            off: by + self.off,
            size: self.size,
        }
    }

    /// This field and the ones after it up to `last`, as one place.
    pub const fn through(self, last: At) -> At {
        At {
            off: self.off,
            size: last.end().saturating_sub(self.off),
        }
    }

    /// An info at the field's bytes, its record starting at `base`.
    pub fn info(self, b: &mut Builder<'_>, base: u64, message: impl Into<String>) {
        b.info(self.of(base), self.size, message);
    }

    /// An error at the field's bytes, its record starting at `base`.
    pub fn error(self, b: &mut Builder<'_>, base: u64, message: impl Into<String>) {
        b.error(self.of(base), self.size, message);
    }

    /// A warning at the field's bytes, its record starting at `base`.
    pub fn warn(self, b: &mut Builder<'_>, base: u64, message: impl Into<String>) {
        b.warn(self.of(base), self.size, message);
    }
}

/// How a field is shown: which [`Fields`] reader makes its node.
#[derive(Clone, Copy)]
pub enum Show {
    /// A number as numbers usually are: `7`, `4096 (0x1000)`.
    Auto,
    /// In hex: `0x1000`.
    Hex,
    /// In decimal: `4096`.
    Dec,
    /// In hex with all the digits of the field's size: `0x00001000`.
    HexWide,
    /// A signed number.
    Int,
    /// A named constant from a table: `3 (SHT_RELA)`.
    Named(fn(u64) -> Option<&'static str>),
    /// A named constant in hex: `0x3 (SHT_RELA)`.
    NamedHex(fn(u64) -> Option<&'static str>),
    /// A bit set with the names of its bits: `0x6 (ALLOC | EXECINSTR)`.
    Flags(fn(u64) -> String),
    /// A value the function makes from the number.
    Value(fn(u64) -> Value),
    /// A value the function makes, marked as read from the field's size.
    Wide(fn(u64) -> Value),
    /// A fixed-size char array, as the text before its first NUL.
    Text,
    /// A 16-byte UUID.
    Uuid,
    /// Raw bytes as a hex preview.
    Bytes,
    /// Bytes the function makes a value of (a magic shown as text).
    Span(fn(&[u8]) -> Value),
    /// No node: bytes the record does not show (reserved, padding).
    Hidden,
}

impl Show {
    /// Reads the field `name` of `size` bytes at the cursor and adds its
    /// node as this way of showing says. False if it added none. (Inline:
    /// a record's way of showing each field is a constant, so that the
    /// choice is made when the record's `show` is compiled.)
    #[inline(always)]
    pub fn emit(self, f: &mut Fields<'_, '_>, name: &'static str, size: u64) -> bool {
        let w = size as u8;
        let r = match self {
            // Numbers: one read, the value made here, the name not copied
            // (records are read by the million in symbol tables).
            Show::Auto => f.field_static(name, size, |v| Value::U {
                v,
                width: w,
                radix: Radix::Auto,
            }),
            Show::Hex => f.field_static(name, size, |v| Value::U {
                v,
                width: w,
                radix: Radix::Hex,
            }),
            Show::Dec => f.field_static(name, size, |v| Value::U {
                v,
                width: w,
                radix: Radix::Dec,
            }),
            Show::HexWide => f.field_static(name, size, |v| Value::hex_wide(v, w)),
            Show::Int => f.field_static(name, size, |v| Value::I {
                v: sign_extend(v, size),
                width: w,
            }),
            Show::Named(n) => f.field_static(name, size, |v| Value::named(v, n(v))),
            Show::NamedHex(n) => f.field_static(name, size, |v| Value::named_hex(v, n(v))),
            Show::Flags(n) => f.field_static(name, size, |v| Value::flags(v, n(v))),
            Show::Value(m) => f.field_static(name, size, m),
            Show::Wide(m) => f.field_static(name, size, |v| m(v).with_width(w)),
            Show::Text => f.text(name, size).map(|_| 0),
            Show::Uuid => f.uuid(name).map(|_| 0),
            Show::Bytes => f.bytes(name, size).map(|_| 0),
            Show::Span(m) => f.span(name, size, m).map(|_| 0),
            Show::Hidden => {
                f.skip(size);
                return false;
            }
        };
        r.is_some() && f.ok()
    }
}

/// A field type a record can hold: a fixed number of bytes that nom
/// takes and the standard library turns into the value.
pub trait Prim: Sized {
    /// The field's size in bytes.
    const SIZE: u64;
    /// Takes the field from the front of `i`.
    fn parse(i: &[u8], e: Endian) -> IResult<&[u8], Self>;
}

fn bytes<const N: usize>(i: &[u8]) -> IResult<&[u8], [u8; N]> {
    let (rest, b) = take(N).parse(i)?;
    match <[u8; N]>::try_from(b) {
        Ok(a) => Ok((rest, a)),
        Err(_) => Err(nom::Err::Error(nom::error::Error::new(
            i,
            nom::error::ErrorKind::Eof,
        ))),
    }
}

macro_rules! prim_int {
    ($($t:ty),*) => {$(
        impl Prim for $t {
            const SIZE: u64 = std::mem::size_of::<$t>() as u64;
            fn parse(i: &[u8], e: Endian) -> IResult<&[u8], Self> {
                let (rest, b) = bytes::<{ std::mem::size_of::<$t>() }>(i)?;
                Ok((rest, match e {
                    Endian::Little => <$t>::from_le_bytes(b),
                    Endian::Big => <$t>::from_be_bytes(b),
                }))
            }
        }
    )*};
}
prim_int!(u8, u16, u32, u64, i8, i16, i32, i64);

impl<const N: usize> Prim for [u8; N] {
    const SIZE: u64 = N as u64;
    fn parse(i: &[u8], _: Endian) -> IResult<&[u8], Self> {
        bytes::<N>(i)
    }
}

/// A record that did not fit in the bytes given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Short {
    /// The record's name.
    pub record: &'static str,
    /// The name of the first field that did not fit.
    pub field: &'static str,
    /// That field's place in the record.
    pub at: At,
    /// The record's size and the bytes there were.
    pub need: u64,
    pub have: u64,
}

impl std::fmt::Display for Short {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} is truncated: it needs {} bytes, {} remain ({} does not fit)",
            self.record, self.need, self.have, self.field
        )
    }
}

/// What a record's declaration knows of itself, for code that handles
/// any record.
pub trait Record: Sized {
    /// The record's name.
    const NAME: &'static str;
    /// Its size in bytes.
    const SIZE: u64;
    /// Each field's shown name and place, in file order.
    const FIELDS: &'static [(&'static str, At)];
    /// The record from the front of `i`, fields in byte order `e`.
    fn parse(i: &[u8], e: Endian) -> IResult<&[u8], Self>;

    /// The record at the start of `d` in byte order `e`, the bytes past
    /// `d`'s end taken as zeros: for a record whose header says how much
    /// of it there is, the fields it leaves out read as 0.
    fn read_zeroed(d: &[u8], e: Endian) -> Result<Self, Short> {
        let mut full = vec![0u8; Self::SIZE as usize];
        for (to, from) in full.iter_mut().zip(d) {
            *to = *from;
        }
        Self::read_in(&full, e)
    }

    /// The record at the start of `d` in byte order `e`, or which field
    /// did not fit.
    fn read_in(d: &[u8], e: Endian) -> Result<Self, Short> {
        match Self::parse(d, e) {
            Ok((_, r)) => Ok(r),
            Err(_) => {
                let have = d.len() as u64;
                let (field, at) = Self::FIELDS
                    .iter()
                    .find(|(_, a)| a.end() > have)
                    .copied()
                    .unwrap_or(("", At { off: 0, size: 0 }));
                Err(Short {
                    record: Self::NAME,
                    field,
                    at,
                    need: Self::SIZE,
                    have,
                })
            }
        }
    }
}

/// Declares a fixed-layout record once: see the [module](self) for what
/// it yields. Each field is `member: type = "shown name", show,` with
/// `type` one of `u8`…`u64`, `i8`…`i64` or `[u8; N]` and `show` a
/// [`Show`]. The module the macro makes sees the items of the one around
/// it.
macro_rules! record {
    (
        $(#[$m:meta])*
        $vis:vis mod $module:ident : $name:ident ($endian:expr) {
            $( $(#[$fm:meta])* $field:ident : $ty:ty = $label:literal, $show:expr ),+ $(,)?
        }
    ) => {
        $(#[$m])*
        $vis mod $module {
            #![allow(unused_imports, dead_code)]
            use super::*;
            use $crate::model::record::{At, Prim, Record, Short, Show};
            use $crate::model::{Endian, Fields, NodeId};

            $(#[$m])*
            #[derive(Clone, Copy, Debug, PartialEq, Eq)]
            pub struct $name {
                $( $(#[$fm])* pub $field: $ty, )+
            }

            /// The place of each field in the record.
            #[derive(Clone, Copy, Debug)]
            pub struct Offsets {
                $( pub $field: At, )+
            }

            /// The node of each field `show` added (`None` where it added
            /// none: a hidden field, or one that did not fit).
            #[derive(Clone, Copy, Debug, Default)]
            pub struct Nodes {
                $( pub $field: Option<NodeId>, )+
            }

            #[repr(C, packed)]
            struct Packed {
                $( $field: $ty, )+
            }

            /// The record's struct, by a name every record module has
            /// (for code that handles two forms of a record alike).
            pub type Rec = $name;

            /// The record's byte order.
            pub const ENDIAN: Endian = $endian;
            /// The record's size in bytes.
            pub const SIZE: u64 = std::mem::size_of::<Packed>() as u64;
            /// Where each field is.
            pub const AT: Offsets = Offsets {
                $( $field: At {
                    off: std::mem::offset_of!(Packed, $field) as u64,
                    size: <$ty as Prim>::SIZE,
                }, )+
            };

            impl Record for $name {
                const NAME: &'static str = stringify!($name);
                const SIZE: u64 = SIZE;
                const FIELDS: &'static [(&'static str, At)] = &[ $( ($label, AT.$field), )+ ];
                fn parse(i: &[u8], e: Endian) -> nom::IResult<&[u8], Self> {
                    $( let (i, $field) = <$ty as Prim>::parse(i, e)?; )+
                    Ok((i, $name { $( $field, )+ }))
                }
            }

            impl $name {
                /// The record at the start of `d`, or which field did not
                /// fit.
                pub fn read(d: &[u8]) -> Result<Self, Short> {
                    <Self as Record>::read_in(d, ENDIAN)
                }

                /// Adds the field nodes at the cursor, which moves past the
                /// record (the cursor's byte order applies).
                pub fn show(f: &mut Fields<'_, '_>) -> Nodes {
                    Self::show_part(f, 0, SIZE)
                }

                /// Adds the nodes of the fields from the one at offset
                /// `from` (where the cursor is) up to the last that ends
                /// within the record's first `to` bytes: for a record whose
                /// header says how much of it there is, or one whose later
                /// fields are shown another way (bits, groups) before the
                /// rest.
                pub fn show_part(f: &mut Fields<'_, '_>, from: u64, to: u64) -> Nodes {
                    let mut n = Nodes::default();
                    $(
                        if AT.$field.end() > to {
                            return n;
                        }
                        if AT.$field.off >= from
                            && Show::emit($show, f, $label, AT.$field.size)
                        {
                            n.$field = f.last();
                        }
                    )+
                    n
                }
            }
        }
        #[allow(unused_imports)]
        $vis use $module::$name;
    };
}
pub(crate) use record;

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::model::{Format, NodeId, Source, Span, Tree};

    fn kind_name(v: u64) -> Option<&'static str> {
        (v == 3).then_some("THREE")
    }

    record! {
        /// A record for the tests.
        mod sample: Sample (Endian::Big) {
            kind: u16 = "kind", Show::Named(kind_name),
            pad: [u8; 2] = "pad", Show::Hidden,
            size: u64 = "size", Show::Hex,
            name: [u8; 4] = "name", Show::Text,
        }
    }

    #[test]
    fn offsets_follow_the_declaration() {
        assert_eq!(sample::SIZE, 16);
        assert_eq!(sample::AT.kind, At { off: 0, size: 2 });
        assert_eq!(sample::AT.size, At { off: 4, size: 8 });
        assert_eq!(sample::AT.name.of(0x100), 0x10c);
        assert_eq!(sample::Sample::FIELDS.len(), 4);
    }

    #[test]
    fn reads_typed_and_says_what_did_not_fit() {
        let d = [0, 3, 9, 9, 0, 0, 0, 0, 0, 0, 0x10, 0, b'a', b'b', 0, 0];
        let s = sample::Sample::read(&d).unwrap();
        assert_eq!((s.kind, s.size, &s.name), (3, 0x1000, b"ab\0\0"));
        let e = sample::Sample::read(&d[..9]).unwrap_err();
        assert_eq!((e.field, e.at.off, e.need, e.have), ("size", 4, 16, 9));
        assert!(sample::Sample::read(&[]).is_err());
        let z = sample::Sample::read_zeroed(&d[..6], Endian::Big).unwrap();
        assert_eq!((z.kind, z.size, z.name), (3, 0, [0; 4]));
    }

    fn tree(b: &mut Builder<'_>, p: NodeId, _at: Span) -> Option<Format> {
        let mut f = Fields::new(b, p, 0, Endian::Big);
        let n = sample::Sample::show_part(&mut f, 0, 4);
        assert!(n.kind.is_some() && n.size.is_none());
        let mut f = Fields::new(b, p, 12, Endian::Big);
        let n = sample::Sample::show_part(&mut f, 12, sample::SIZE);
        assert!(n.kind.is_none() && n.name.is_none());
        let mut f = Fields::new(b, p, 0, Endian::Big);
        let n = sample::Sample::show(&mut f);
        assert!(n.kind.is_some() && n.pad.is_none() && n.size.is_some());
        Some(Format::Json)
    }

    #[test]
    fn nodes_with_their_bytes() {
        let d = vec![0, 3, 9, 9, 0, 0, 0, 0, 0, 0, 0x10, 0, b'a', b'b'];
        let mut t = Tree::build(Arc::new(Source::from_vec(d)), "t", tree);
        let size = t.find_path("size").unwrap();
        assert_eq!(t.node(size).map(|n| (n.offset, n.size)), Some((4, 8)));
        assert_eq!(t.value_text(size).unwrap(), "0x1000");
        assert!(t.find_path("name").is_none());
        // The name does not fit, once in the part and once in the whole.
        assert_eq!(t.diagnostics().len(), 2);
    }
}
