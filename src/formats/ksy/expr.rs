//! Kaitai Struct expressions: the parser (nom) and the syntax tree. The
//! evaluation is the interpreter's (`run.rs`), which knows the objects the
//! names refer to.

use nom::branch::alt;
use nom::bytes::complete::{tag, take_while, take_while1};
use nom::character::complete::{char, digit1, multispace0, none_of, satisfy};
use nom::combinator::{map, not, opt, peek, recognize, value};
use nom::multi::{many0, separated_list0};
use nom::sequence::{delimited, preceded, terminated};
use nom::{IResult, Parser};

/// A binary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Shl,
    Shr,
    BitAnd,
    BitOr,
    BitXor,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
}

/// An expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Int(i128),
    Float(f64),
    Str(String),
    Bool(bool),
    /// `[a, b, c]`: an array (of bytes where all are small integers).
    List(Vec<Expr>),
    /// A name: an attribute, a parameter, an instance, or one of `_root`,
    /// `_parent`, `_io`, `_index`, `_`.
    Name(String),
    /// `a.b`.
    Attr(Box<Expr>, String),
    /// `a.b(args)`.
    Call(Box<Expr>, String, Vec<Expr>),
    /// `a[i]`.
    Index(Box<Expr>, Box<Expr>),
    /// `-a`.
    Neg(Box<Expr>),
    /// `~a`.
    Inv(Box<Expr>),
    /// `not a`.
    Not(Box<Expr>),
    Bin(Op, Box<Expr>, Box<Expr>),
    /// `c ? a : b`.
    If(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `a.as<type>`.
    Cast(Box<Expr>, String),
    /// `enum::member` (the enum's path, the member).
    Enum(Vec<String>, String),
    /// `sizeof<type>`: the size of a type whose size is fixed.
    SizeOf(String),
}

impl Expr {
    /// Calls `f` with every name the expression uses: names, attributes
    /// and methods (`a.b`, `a.b()`); not enum paths or type names.
    pub fn names<'e>(&'e self, f: &mut impl FnMut(&'e str)) {
        match self {
            Expr::Name(n) => f(n),
            Expr::Attr(b, n) => {
                f(n);
                b.names(f);
            }
            Expr::Call(b, n, args) => {
                f(n);
                b.names(f);
                args.iter().for_each(|a| a.names(f));
            }
            Expr::List(xs) => xs.iter().for_each(|a| a.names(f)),
            Expr::Index(a, b) | Expr::Bin(_, a, b) => {
                a.names(f);
                b.names(f);
            }
            Expr::Neg(a) | Expr::Inv(a) | Expr::Not(a) | Expr::Cast(a, _) => a.names(f),
            Expr::If(a, b, c) => {
                a.names(f);
                b.names(f);
                c.names(f);
            }
            Expr::Int(_)
            | Expr::Float(_)
            | Expr::Str(_)
            | Expr::Bool(_)
            | Expr::Enum(..)
            | Expr::SizeOf(_) => {}
        }
    }
}

type R<'a, T> = IResult<&'a str, T>;

/// How deep brackets (and unary operators, and ternaries) may nest.
pub const MAX_NEST: usize = 48;
/// How long an expression may be.
pub const MAX_LEN: usize = 1024;

/// Parses a whole expression; the error is the byte offset in `s` where
/// it stops making sense.
pub fn parse(s: &str) -> Result<Expr, usize> {
    // The parser recurses at each bracket and operator: a hostile text is
    // refused before it can exhaust the stack.
    let mut depth = 0usize;
    for (i, c) in s.char_indices() {
        match c {
            '(' | '[' | '?' | '-' | '~' | '!' => depth += 1,
            ')' | ']' | ':' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth > MAX_NEST || s.len() > MAX_LEN {
            return Err(i);
        }
    }
    match delimited(multispace0, expr, multispace0).parse(s) {
        Ok(("", e)) => Ok(e),
        Ok((rest, _)) => Err(s.len() - rest.len()),
        Err(nom::Err::Error(e) | nom::Err::Failure(e)) => Err(s.len() - e.input.len()),
        Err(nom::Err::Incomplete(_)) => Err(s.len()),
    }
}

/// `p` with blanks after it.
fn ws<'a, O>(
    p: impl Parser<&'a str, Output = O, Error = nom::error::Error<&'a str>>,
) -> impl Parser<&'a str, Output = O, Error = nom::error::Error<&'a str>> {
    terminated(p, multispace0)
}

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn ident(i: &str) -> R<'_, &str> {
    recognize((satisfy(is_ident_start), take_while(is_ident))).parse(i)
}

/// A keyword, not the start of a longer name.
fn kw<'a>(
    k: &'static str,
) -> impl Parser<&'a str, Output = &'a str, Error = nom::error::Error<&'a str>> {
    ws(terminated(tag(k), not(satisfy(is_ident))))
}

/// An operator, not the start of a longer one (`<` is not `<<` or `<=`).
fn sym<'a>(
    s: &'static str,
    not_then: &'static str,
) -> impl Parser<&'a str, Output = &'a str, Error = nom::error::Error<&'a str>> {
    ws(terminated(
        tag(s),
        not(satisfy(move |c| not_then.contains(c))),
    ))
}

fn expr(i: &str) -> R<'_, Expr> {
    let (i, c) = or(i)?;
    let (i, rest) = opt((preceded(sym("?", ""), expr), preceded(sym(":", ":"), expr))).parse(i)?;
    Ok((
        i,
        match rest {
            Some((a, b)) => Expr::If(Box::new(c), Box::new(a), Box::new(b)),
            None => c,
        },
    ))
}

/// A left-associative chain of `next` joined by the operators of `ops`.
fn chain<'a>(
    i: &'a str,
    next: fn(&'a str) -> R<'a, Expr>,
    ops: &[(&'static str, &'static str, Op)],
) -> R<'a, Expr> {
    let (mut i, mut acc) = next(i)?;
    'outer: loop {
        for &(s, not_then, op) in ops {
            let is_word = s.chars().all(|c| c.is_ascii_alphabetic());
            let r = if is_word {
                kw(s).parse(i)
            } else {
                sym(s, not_then).parse(i)
            };
            if let Ok((j, _)) = r {
                let (j, rhs) = next(j)?;
                acc = Expr::Bin(op, Box::new(acc), Box::new(rhs));
                i = j;
                continue 'outer;
            }
        }
        return Ok((i, acc));
    }
}

fn or(i: &str) -> R<'_, Expr> {
    chain(i, and, &[("or", "", Op::Or)])
}

fn and(i: &str) -> R<'_, Expr> {
    chain(i, negation, &[("and", "", Op::And)])
}

fn negation(i: &str) -> R<'_, Expr> {
    alt((
        map(preceded(kw("not"), negation), |e| Expr::Not(Box::new(e))),
        compare,
    ))
    .parse(i)
}

fn compare(i: &str) -> R<'_, Expr> {
    chain(
        i,
        bit_or,
        &[
            ("==", "", Op::Eq),
            ("!=", "", Op::Ne),
            ("<=", "", Op::Le),
            (">=", "", Op::Ge),
            ("<", "<=", Op::Lt),
            (">", ">=", Op::Gt),
        ],
    )
}

fn bit_or(i: &str) -> R<'_, Expr> {
    chain(i, bit_xor, &[("|", "|", Op::BitOr)])
}

fn bit_xor(i: &str) -> R<'_, Expr> {
    chain(i, bit_and, &[("^", "", Op::BitXor)])
}

fn bit_and(i: &str) -> R<'_, Expr> {
    chain(i, shift, &[("&", "&", Op::BitAnd)])
}

fn shift(i: &str) -> R<'_, Expr> {
    chain(i, sum, &[("<<", "", Op::Shl), (">>", "", Op::Shr)])
}

fn sum(i: &str) -> R<'_, Expr> {
    chain(i, product, &[("+", "", Op::Add), ("-", "", Op::Sub)])
}

fn product(i: &str) -> R<'_, Expr> {
    chain(
        i,
        unary,
        &[("*", "", Op::Mul), ("/", "", Op::Div), ("%", "", Op::Mod)],
    )
}

fn unary(i: &str) -> R<'_, Expr> {
    alt((
        map(preceded(sym("-", ""), unary), |e| match e {
            Expr::Int(v) => Expr::Int(-v),
            Expr::Float(v) => Expr::Float(-v),
            e => Expr::Neg(Box::new(e)),
        }),
        map(preceded(sym("~", ""), unary), |e| Expr::Inv(Box::new(e))),
        map(preceded(sym("!", "="), unary), |e| Expr::Not(Box::new(e))),
        postfix,
    ))
    .parse(i)
}

enum Post {
    Attr(String),
    Call(String, Vec<Expr>),
    Index(Expr),
    Cast(String),
}

fn type_name(i: &str) -> R<'_, String> {
    map(
        ws(recognize((
            ident,
            many0(preceded(tag("::"), ident)),
            opt(tag("[]")),
        ))),
        str::to_string,
    )
    .parse(i)
}

fn post(i: &str) -> R<'_, Post> {
    alt((
        map(
            preceded(
                (sym(".", ""), tag("as"), multispace0, sym("<", "")),
                terminated(type_name, sym(">", "")),
            ),
            Post::Cast,
        ),
        map(
            (
                preceded(sym(".", ""), ws(ident)),
                opt(delimited(
                    sym("(", ""),
                    separated_list0(sym(",", ""), expr),
                    sym(")", ""),
                )),
            ),
            |(n, args)| match args {
                Some(a) => Post::Call(n.to_string(), a),
                None => Post::Attr(n.to_string()),
            },
        ),
        map(delimited(sym("[", ""), expr, sym("]", "")), Post::Index),
    ))
    .parse(i)
}

fn postfix(i: &str) -> R<'_, Expr> {
    let (i, a) = atom(i)?;
    let (i, posts) = many0(post).parse(i)?;
    let mut e = a;
    for p in posts {
        e = match p {
            Post::Attr(n) => Expr::Attr(Box::new(e), n),
            Post::Call(n, a) => Expr::Call(Box::new(e), n, a),
            Post::Index(x) => Expr::Index(Box::new(e), Box::new(x)),
            Post::Cast(t) => Expr::Cast(Box::new(e), t),
        };
    }
    Ok((i, e))
}

fn atom(i: &str) -> R<'_, Expr> {
    ws(alt((
        delimited(sym("(", ""), expr, char(')')),
        map(
            delimited(
                sym("[", ""),
                terminated(separated_list0(sym(",", ""), expr), opt(sym(",", ""))),
                char(']'),
            ),
            Expr::List,
        ),
        string,
        number,
        value(
            Expr::Bool(true),
            terminated(tag("true"), not(satisfy(is_ident))),
        ),
        value(
            Expr::Bool(false),
            terminated(tag("false"), not(satisfy(is_ident))),
        ),
        map(
            preceded(
                (tag("sizeof"), multispace0, sym("<", "")),
                terminated(type_name, sym(">", "")),
            ),
            Expr::SizeOf,
        ),
        name_or_enum,
    )))
    .parse(i)
}

fn name_or_enum(i: &str) -> R<'_, Expr> {
    let (i, first) = ident(i)?;
    let (i, more) = many0(preceded(tag("::"), ident)).parse(i)?;
    let mut path: Vec<String> = std::iter::once(first)
        .chain(more)
        .map(str::to_string)
        .collect();
    Ok((
        i,
        match path.pop() {
            Some(last) if !path.is_empty() => Expr::Enum(path, last),
            Some(last) => Expr::Name(last),
            None => Expr::Name(String::new()),
        },
    ))
}

fn digits(radix: u32) -> impl Fn(&str) -> R<'_, &str> {
    move |i| take_while1(move |c: char| c.is_digit(radix) || c == '_').parse(i)
}

fn int_of(s: &str, radix: u32) -> Option<i128> {
    let t: String = s.chars().filter(|&c| c != '_').collect();
    i128::from_str_radix(&t, radix).ok()
}

fn number(i: &str) -> R<'_, Expr> {
    let based = |p: &'static str, up: &'static str, radix: u32| {
        move |i| {
            let (j, d) = preceded(alt((tag(p), tag(up))), digits(radix)).parse(i)?;
            match int_of(d, radix) {
                Some(v) => Ok((j, Expr::Int(v))),
                None => Err(nom::Err::Failure(nom::error::Error::new(
                    i,
                    nom::error::ErrorKind::Digit,
                ))),
            }
        }
    };
    alt((
        based("0x", "0X", 16),
        based("0b", "0B", 2),
        based("0o", "0O", 8),
        float,
        |i| {
            let (j, d) = recognize((digit1, many0(alt((digit1, tag("_")))))).parse(i)?;
            match int_of(d, 10) {
                Some(v) => Ok((j, Expr::Int(v))),
                None => Err(nom::Err::Failure(nom::error::Error::new(
                    i,
                    nom::error::ErrorKind::Digit,
                ))),
            }
        },
    ))
    .parse(i)
}

fn float(i: &str) -> R<'_, Expr> {
    let exp = || {
        (
            alt((char('e'), char('E'))),
            opt(alt((char('+'), char('-')))),
            digit1,
        )
    };
    let (j, s) = alt((
        recognize((digit1, char('.'), digit1, opt(exp()))),
        recognize((digit1, exp())),
    ))
    .parse(i)?;
    match s.parse::<f64>() {
        Ok(v) => Ok((j, Expr::Float(v))),
        Err(_) => Err(nom::Err::Error(nom::error::Error::new(
            i,
            nom::error::ErrorKind::Float,
        ))),
    }
}

fn string(i: &str) -> R<'_, Expr> {
    alt((
        map(
            delimited(char('\''), take_while(|c| c != '\''), char('\'')),
            |s: &str| Expr::Str(s.to_string()),
        ),
        map(
            delimited(
                char('"'),
                many0(alt((
                    preceded(
                        char('\\'),
                        alt((
                            value('\n', char('n')),
                            value('\t', char('t')),
                            value('\r', char('r')),
                            value('\0', char('0')),
                            value('\x07', char('a')),
                            value('\x08', char('b')),
                            value('\x0c', char('f')),
                            value('\x0b', char('v')),
                            value('\x1b', char('e')),
                            value('"', char('"')),
                            value('\'', char('\'')),
                            value('\\', char('\\')),
                        )),
                    ),
                    none_of("\"\\"),
                ))),
                char('"'),
            ),
            |cs: Vec<char>| Expr::Str(cs.into_iter().collect()),
        ),
    ))
    .parse(i)
}

/// True if the text is only a name (an attribute's `id` may be used so).
pub fn is_name(s: &str) -> bool {
    matches!(peek(ident).parse(s), Ok((_, n)) if n.len() == s.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Expr {
        parse(s).unwrap_or_else(|at| panic!("{s}: error at {at}"))
    }

    #[test]
    fn literals() {
        assert_eq!(p("0x1F"), Expr::Int(31));
        assert_eq!(p("0b1010"), Expr::Int(10));
        assert_eq!(p("1_000"), Expr::Int(1000));
        assert_eq!(p("-5"), Expr::Int(-5));
        assert_eq!(p("1.5"), Expr::Float(1.5));
        assert_eq!(p("'a\\b'"), Expr::Str("a\\b".into()));
        assert_eq!(p("\"a\\nb\""), Expr::Str("a\nb".into()));
        assert_eq!(p("true"), Expr::Bool(true));
        assert_eq!(
            p("[0x50, 0x4b]"),
            Expr::List(vec![Expr::Int(0x50), Expr::Int(0x4b)])
        );
    }

    #[test]
    fn precedence() {
        use Expr::*;
        let n = |s: &str| Box::new(Name(s.into()));
        assert_eq!(
            p("a + b * c"),
            Bin(Op::Add, n("a"), Box::new(Bin(Op::Mul, n("b"), n("c"))))
        );
        assert_eq!(
            p("a < b and not c"),
            Bin(
                Op::And,
                Box::new(Bin(Op::Lt, n("a"), n("b"))),
                Box::new(Not(n("c")))
            )
        );
        assert_eq!(
            p("a << 2 | 1"),
            Bin(
                Op::BitOr,
                Box::new(Bin(Op::Shl, n("a"), Box::new(Int(2)))),
                Box::new(Int(1))
            )
        );
        assert_eq!(
            p("x ? 1 : y ? 2 : 3"),
            If(
                n("x"),
                Box::new(Int(1)),
                Box::new(If(n("y"), Box::new(Int(2)), Box::new(Int(3))))
            )
        );
        assert!(matches!(p("origin == 1 or orientation"), Bin(Op::Or, ..)));
        assert!(matches!(p("notes"), Name(_)));
    }

    #[test]
    fn postfix_forms() {
        use Expr::*;
        assert_eq!(
            p("_root.hdr.ofs_x[_index].to_s"),
            Attr(
                Box::new(Index(
                    Box::new(Attr(
                        Box::new(Attr(Box::new(Name("_root".into())), "hdr".into())),
                        "ofs_x".into()
                    )),
                    Box::new(Name("_index".into()))
                )),
                "to_s".into()
            )
        );
        assert_eq!(
            p("s.substring(1, 3)"),
            Call(
                Box::new(Name("s".into())),
                "substring".into(),
                vec![Int(1), Int(3)]
            )
        );
        assert_eq!(p("v.as<u4>"), Cast(Box::new(Name("v".into())), "u4".into()));
        assert_eq!(p("sizeof<a::b>"), SizeOf("a::b".into()));
        assert_eq!(p("sizeof_x"), Name("sizeof_x".into()));
        assert_eq!(
            p("file_type::regular"),
            Enum(vec!["file_type".into()], "regular".into())
        );
        assert_eq!(
            p("_io.size - _io.pos"),
            Bin(
                Op::Sub,
                Box::new(Attr(Box::new(Name("_io".into())), "size".into())),
                Box::new(Attr(Box::new(Name("_io".into())), "pos".into()))
            )
        );
    }

    #[test]
    fn errors_say_where() {
        assert_eq!(parse("a +"), Err(3));
        assert_eq!(parse("a b"), Err(2));
        assert!(parse("(a").is_err());
        assert!(parse(&"(".repeat(100_000)).is_err());
        assert!(parse(&"-".repeat(100_000)).is_err());
        assert_eq!(
            parse(&format!("{}1{}", "(".repeat(40), ")".repeat(40))),
            Ok(Expr::Int(1))
        );
    }
}
