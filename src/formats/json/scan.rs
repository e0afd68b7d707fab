//! The JSON scanner: checks a text the way serde_json reads it (RFC 8259,
//! surrogate pairs, numbers that fit a 64-bit float, a depth limit) without
//! building anything.

use nom::bytes::complete::{tag, take_till, take_while, take_while_m_n};
use nom::character::complete::{char, digit0, digit1, one_of, satisfy};
use nom::combinator::{opt, recognize};
use nom::{IResult, Parser};

/// Containers nested this deep are refused (the text is then shown as
/// bytes): as in serde_json, whose recursion limit this is, at most
/// `MAX_DEPTH - 1` containers nest.
pub const MAX_DEPTH: usize = 128;

/// What a value is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Object,
    Array,
    Str,
    Num,
    Lit,
}

/// Where a scan stopped and why; `rest` is the length of the input left.
#[derive(Debug)]
pub(super) struct Fail {
    pub(super) rest: usize,
    pub(super) msg: &'static str,
}

pub(super) type Scan<'a, T> = Result<(&'a [u8], T), Fail>;

pub(super) fn fail<T>(i: &[u8], msg: &'static str) -> Result<T, Fail> {
    Err(Fail { rest: i.len(), msg })
}

pub(super) fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

pub(super) fn ws(i: &[u8]) -> &[u8] {
    let r: IResult<&[u8], &[u8]> = take_while(is_ws)(i);
    r.map(|(rest, _)| rest).unwrap_or(i)
}

/// The next byte, if any.
pub(super) fn peek(i: &[u8]) -> Option<u8> {
    i.first().copied()
}

/// A string starting at its opening quote; returns the input after the
/// closing quote.
pub(super) fn string(i: &[u8]) -> Scan<'_, ()> {
    let r: IResult<&[u8], char> = char('"')(i);
    let Ok((mut i, _)) = r else {
        return fail(i, "expected a string");
    };
    loop {
        let r: IResult<&[u8], &[u8]> = take_till(|c: u8| c == b'"' || c == b'\\' || c < 0x20)(i);
        let Ok((rest, run)) = r else {
            return fail(i, "unterminated string");
        };
        if !run.is_ascii() {
            if let Err(e) = std::str::from_utf8(run) {
                let bad = run.get(e.valid_up_to()..).unwrap_or_default();
                return Err(Fail {
                    rest: bad.len() + rest.len(),
                    msg: "invalid UTF-8 in a string",
                });
            }
        }
        match peek(rest) {
            Some(b'"') => return Ok((rest.get(1..).unwrap_or_default(), ())),
            Some(b'\\') => i = escape(rest)?.0,
            Some(_) => return fail(rest, "control character in a string"),
            None => return fail(rest, "unterminated string"),
        }
    }
}

/// One escape sequence starting at its backslash. A `\u` escape of a
/// leading surrogate takes the `\u` escape of its trailing surrogate with
/// it; a surrogate without its other half is an error, as in serde_json.
pub(super) fn escape(i: &[u8]) -> Scan<'_, char> {
    let r: IResult<&[u8], char> = char('\\')(i);
    let Ok((after, _)) = r else {
        return fail(i, "expected an escape");
    };
    let simple: IResult<&[u8], char> = one_of("\"\\/bfnrt")(after);
    if let Ok((rest, c)) = simple {
        let c = match c {
            'b' => '\u{8}',
            'f' => '\u{c}',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            c => c,
        };
        return Ok((rest, c));
    }
    let Some((rest, hi)) = hex4(after) else {
        return fail(after, "invalid escape in a string");
    };
    match hi {
        0xd800..=0xdbff => {
            let slash: IResult<&[u8], char> = char('\\')(rest);
            let low = slash
                .ok()
                .and_then(|(r, _)| hex4(r))
                .filter(|(_, lo)| (0xdc00..=0xdfff).contains(lo));
            let Some((rest, lo)) = low else {
                return fail(i, "lone surrogate in a \\u escape");
            };
            let c = 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
            Ok((rest, char::from_u32(c).unwrap_or('\u{fffd}')))
        }
        0xdc00..=0xdfff => fail(i, "lone surrogate in a \\u escape"),
        c => Ok((rest, char::from_u32(c).unwrap_or('\u{fffd}'))),
    }
}

/// `uXXXX` (the part of a `\u` escape after its backslash): its value.
pub(super) fn hex4(i: &[u8]) -> Option<(&[u8], u32)> {
    let u: IResult<&[u8], (char, &[u8])> = (
        char('u'),
        take_while_m_n(4, 4, |c: u8| c.is_ascii_hexdigit()),
    )
        .parse(i);
    let (rest, (_, hex)) = u.ok()?;
    let v = hex.iter().fold(0u32, |a, &d| {
        (a << 4) | (d as char).to_digit(16).unwrap_or(0)
    });
    Some((rest, v))
}

pub(super) fn number(i: &[u8]) -> Scan<'_, ()> {
    let r: IResult<&[u8], &[u8]> = recognize((
        opt(char('-')),
        nom::branch::alt((
            tag(&b"0"[..]),
            recognize((satisfy(|c| ('1'..='9').contains(&c)), digit0)),
        )),
        opt((char('.'), digit1)),
        opt((one_of("eE"), opt(one_of("+-")), digit1)),
    ))
    .parse(i);
    match r {
        Ok((rest, n)) if in_range(n) => Ok((rest, ())),
        Ok(_) => fail(i, "number out of range"),
        Err(_) => fail(i, "invalid number"),
    }
}

/// Whether a number (well-formed) fits a 64-bit float rather than
/// rounding to infinity, which serde_json refuses.
pub(super) fn in_range(n: &[u8]) -> bool {
    // Under 300 digits and no exponent: far from the largest float.
    if n.len() < 300 && !n.iter().any(|&c| c == b'e' || c == b'E') {
        return true;
    }
    std::str::from_utf8(n)
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .is_some_and(f64::is_finite)
}

pub(super) fn literal(i: &[u8]) -> Scan<'_, ()> {
    for word in [&b"true"[..], b"false", b"null"] {
        let r: IResult<&[u8], &[u8]> = tag(word)(i);
        if let Ok((rest, _)) = r {
            return Ok((rest, ()));
        }
    }
    fail(i, "expected a value")
}

/// Skips one value (no leading whitespace). Returns its kind and, for a
/// container, how many entries it has.
pub(super) fn value(i: &[u8], depth: usize) -> Scan<'_, (Kind, usize)> {
    match peek(i) {
        Some(b'{') => container(i, depth, true).map(|(r, n)| (r, (Kind::Object, n))),
        Some(b'[') => container(i, depth, false).map(|(r, n)| (r, (Kind::Array, n))),
        Some(b'"') => string(i).map(|(r, _)| (r, (Kind::Str, 0))),
        Some(b'-' | b'0'..=b'9') => number(i).map(|(r, _)| (r, (Kind::Num, 0))),
        Some(_) => literal(i).map(|(r, _)| (r, (Kind::Lit, 0))),
        None => fail(i, "unexpected end of text"),
    }
}

/// One object member or array element, with any whitespace before it.
/// Returns the key's and the value's input (for their offsets).
pub(super) struct Entry<'a> {
    pub(super) key: Option<&'a [u8]>,
    pub(super) val: &'a [u8],
    pub(super) kind: Kind,
    pub(super) count: usize,
}

pub(super) fn entry(i: &[u8], depth: usize, object: bool) -> Scan<'_, Entry<'_>> {
    let mut i = ws(i);
    let key = if object {
        let k = i;
        i = ws(string(i)?.0);
        let r: IResult<&[u8], char> = char(':')(i);
        match r {
            Ok((rest, _)) => i = ws(rest),
            Err(_) => return fail(i, "expected ':' after a key"),
        }
        Some(k)
    } else {
        None
    };
    let val = i;
    let (rest, (kind, count)) = value(i, depth)?;
    Ok((
        rest,
        Entry {
            key,
            val,
            kind,
            count,
        },
    ))
}

/// After an entry: `,` (more follow) or the closing bracket.
pub(super) fn separator(i: &[u8], object: bool) -> Scan<'_, bool> {
    let i = ws(i);
    let close = if object { b'}' } else { b']' };
    match peek(i) {
        Some(b',') => Ok((i.get(1..).unwrap_or_default(), true)),
        Some(c) if c == close => Ok((i.get(1..).unwrap_or_default(), false)),
        _ if object => fail(i, "expected ',' or '}'"),
        _ => fail(i, "expected ',' or ']'"),
    }
}

/// An object or array starting at its opening bracket.
pub(super) fn container(i: &[u8], depth: usize, object: bool) -> Scan<'_, usize> {
    if depth + 1 >= MAX_DEPTH {
        return fail(i, "nested deeper than fwview shows");
    }
    let mut i = ws(i.get(1..).unwrap_or_default());
    let close = if object { b'}' } else { b']' };
    if peek(i) == Some(close) {
        return Ok((i.get(1..).unwrap_or_default(), 0));
    }
    let mut n = 0usize;
    loop {
        let (rest, _) = entry(i, depth + 1, object)?;
        n += 1;
        let (rest, more) = separator(rest, object)?;
        i = rest;
        if !more {
            return Ok((i, n));
        }
    }
}

/// 1-based line and column of byte `pos` in `s`.
pub(super) fn line_col(s: &[u8], pos: usize) -> (usize, usize) {
    let before = s.get(..pos).unwrap_or(s);
    let line = before.iter().filter(|&&c| c == b'\n').count() + 1;
    let col = before
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(pos, |nl| pos - nl - 1)
        + 1;
    (line, col)
}

/// The bytes a string token (quotes included) stands for, escapes decoded:
/// all of them, or a little more than `limit` (counting a byte of text or
/// an escape as one).
pub(super) fn decode(raw: &[u8], limit: usize) -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut i = raw.get(1..).unwrap_or_default();
    let mut chars = 0usize;
    loop {
        let r: IResult<&[u8], &[u8]> = take_till(|c: u8| c == b'"' || c == b'\\')(i);
        let Ok((rest, run)) = r else { break };
        bytes.extend_from_slice(run);
        chars += run.len();
        match escape(rest) {
            Ok((after, c)) => {
                let mut buf = [0u8; 4];
                bytes.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                chars += 1;
                i = after;
            }
            Err(_) => break,
        }
        if chars > limit {
            break;
        }
    }
    bytes
}
