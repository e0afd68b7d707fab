//! The interpreter's own tests: expressions, instances read once, decoding.

use super::*;
use crate::formats::ksy::expr::parse;

/// An object of no type, for expressions that name no attribute.
fn bare_obj() -> Arc<Obj> {
    Arc::new(Obj::unread(0, 0))
}

fn ev(s: &str) -> V {
    let spec = Spec::default();
    let mut r = Run::new(&spec, &[], State::default());
    r.st.ios.push(Io {
        space: 0,
        base: 0,
        len: 10,
        pos: 3,
        bits: 0,
        nbits: 0,
    });
    let obj = bare_obj();
    let cx = Cx {
        obj: &obj,
        index: Some(4),
        under: None,
    };
    let e = parse(s).unwrap();
    r.eval(&cx, &e).unwrap()
}

fn int(s: &str) -> i128 {
    match ev(s) {
        V::Int(i) => i,
        o => panic!("{s}: {o:?}"),
    }
}

#[test]
fn arithmetic_as_kaitai() {
    assert_eq!(int("7 / 2"), 3);
    assert_eq!(int("-7 / 2"), -4);
    assert_eq!(int("-7 % 3"), 2);
    assert_eq!(int("7 % 3"), 1);
    assert_eq!(int("1 << 4 | 3"), 19);
    assert_eq!(int("0xff & ~0x0f"), 0xf0);
    assert_eq!(int("5 ^ 3"), 6);
    assert_eq!(int("2 + 3 * 4 - 1"), 13);
    assert_eq!(int("true ? 1 : 2"), 1);
    assert_eq!(int("1 > 2 or 3 == 3 ? 10 : 20"), 10);
    assert_eq!(int("_index * 2"), 8);
    assert_eq!(int("_io.size - _io.pos"), 7);
    assert_eq!(int("'123'.to_i + 1"), 124);
    assert_eq!(int("'ff'.to_i(16)"), 255);
    assert_eq!(int("'abc'.length"), 3);
    assert_eq!(int("[1, 2, 3].size"), 3);
    assert_eq!(int("[5, 2, 9].max"), 9);
    assert_eq!(int("[5, 2, 9][1]"), 2);
    assert_eq!(int("[5, 2, 9].last"), 9);
    assert_eq!(int("3.7.to_i"), 3);
    assert_eq!(int("12.as<u4>"), 12);
    assert!(matches!(ev("'abc'.reverse"), V::Str(s) if &*s == "cba"));
    assert!(matches!(ev("'hello'.substring(1, 3)"), V::Str(s) if &*s == "el"));
    assert!(matches!(ev("42.to_s"), V::Str(s) if &*s == "42"));
    assert!(matches!(ev("'a' + 'b'"), V::Str(s) if &*s == "ab"));
    assert!(matches!(ev("not (1 < 2)"), V::Bool(false)));
    assert!(matches!(ev("_io.eof"), V::Bool(false)));
    assert!(matches!(ev("7.0 / 2"), V::Float(f) if f == 3.5));
}

#[test]
fn errors_not_panics() {
    let spec = Spec::default();
    let mut r = Run::new(&spec, &[], State::default());
    let obj = bare_obj();
    let cx = Cx::of(&obj);
    for s in ["1 / 0", "1 % 0", "[1][5]", "'a' - 1", "1 << 200", "nothing"] {
        assert!(r.eval(&cx, &parse(s).unwrap()).is_err(), "{s}");
    }
}

/// The description `text`, read from a file.
fn described(text: &str) -> Spec {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.ksy");
    std::fs::write(&path, text).unwrap();
    crate::formats::ksy::spec::load(&path, &[]).unwrap()
}

#[test]
fn an_instance_is_read_once_and_only_when_needed() {
    let spec = described(
        "meta: {id: t, endian: le}\nseq:\n  - {id: a, type: u1}\ninstances:\n  far: {pos: 100, type: u4}\n  big: {pos: 0, type: u2}\n  twice: {value: big + big}\n",
    );
    let data = [1u8, 2, 3, 4];
    let mut r = Run::new(&spec, &data, State::default());
    r.root(0, 0, 4).unwrap();
    // `far` would fail: it is not read, nor is anything else.
    assert_eq!(r.st.evaluated, 0);
    assert!(r.diags.is_empty());
    let root = r.st.root.clone().unwrap();
    let v = r.instance(&root, 2).unwrap();
    assert!(matches!(v, V::Int(0x0402)), "{v:?}");
    // `twice` and `big`, `big` once.
    assert_eq!(r.st.evaluated, 2);
    assert!(matches!(r.instance(&root, 1).unwrap(), V::Int(0x0201)));
    assert_eq!(r.st.evaluated, 2);
    let f = r.open_instance(&root, 0).unwrap_err();
    assert!(f.msg.contains("bytes asked for"), "{}", f.msg);
}

#[test]
fn decoding() {
    assert_eq!(decode(b"h\0i\0", "UTF-16LE"), "hi");
    assert_eq!(decode(b"\0h\0i", "utf-16be"), "hi");
    assert_eq!(decode(&[0xe9], "ISO-8859-1"), "é");
    assert_eq!(decode(b"ok", "ASCII"), "ok");
    assert_eq!(decode(&[0xe9], "latin_1"), "é");
    assert_eq!(decode(b"h\0i\0", "utf 16le"), "hi");
    assert_eq!(decode(&[0xe9], "UTF-8"), "\u{fffd}");
}

/// An expression read from `_root` down is evaluated once, but its value
/// is not kept where a name in it read as null: `_root.n == _root.m` is
/// true for `x` (neither read yet: null equals null) and false for `y`
/// (`kept` names the fields, so that their values are kept).
#[test]
fn a_value_from_the_root_is_kept_only_once_what_it_reads_is_read() {
    let spec = described(
        "meta: {id: t, endian: le}\nseq:\n  - {id: x, type: t}\n  - {id: n, type: u1}\n  - {id: m, type: u1}\n  - {id: y, type: t}\ninstances:\n  kept: {value: x.v + y.v}\ntypes:\n  t:\n    seq:\n      - {id: v, type: u1, if: _root.n == _root.m}\n",
    );
    let data = [0u8, 1, 6];
    let mut r = Run::new(&spec, &data, State::default());
    r.root(0, 0, 3).unwrap();
    assert!(r.diags.is_empty(), "{:?}", r.diags);
    let root = r.st.root.clone().unwrap();
    let v_of = |k: usize| match root.fields.get(k).and_then(OnceLock::get) {
        Some(V::Obj(o)) => o.fields.first().and_then(OnceLock::get).cloned(),
        other => panic!("field {k}: {other:?}"),
    };
    assert!(matches!(v_of(0), Some(V::Int(0))));
    assert!(matches!(v_of(3), None | Some(V::Null)));
}

/// An expression read from `_parent` down is kept for the objects of one
/// parent only: `pn` of an item in the second group is that group's `n`,
/// and of an item in the first, the first's, whichever is asked first.
#[test]
fn a_value_from_the_parent_is_kept_for_that_parent_only() {
    let spec = described(
        "meta: {id: t, endian: le}\nseq:\n  - {id: groups, type: g, repeat: expr, repeat-expr: 2}\ninstances:\n  both: {value: 'groups[1].items[1].pn + groups[0].items[0].pn * 100 + groups[1].items[0].pn * 10000'}\ntypes:\n  g:\n    seq:\n      - {id: n, type: u1}\n      - {id: items, type: e, repeat: expr, repeat-expr: 2}\n  e:\n    seq:\n      - {id: b, type: u1}\n    instances:\n      pn: {value: _parent.n}\n",
    );
    let data = [3u8, 1, 2, 5, 7, 8];
    let mut r = Run::new(&spec, &data, State::default());
    r.root(0, 0, 6).unwrap();
    assert!(r.diags.is_empty(), "{:?}", r.diags);
    let root = r.st.root.clone().unwrap();
    let v = r.instance(&root, 0).unwrap();
    assert!(matches!(v, V::Int(50_305)), "{v:?}");
}

/// An item is moved without a call (see [`Item`]).
#[test]
fn an_item_is_at_most_128_bytes() {
    assert!(
        std::mem::size_of::<Item>() <= 128,
        "{}",
        std::mem::size_of::<Item>()
    );
}

#[test]
fn attributes_some_expression_names_are_marked_when_read() {
    let spec = described(
        "meta: {id: t, endian: le}\nseq:\n  - {id: n, type: u1}\n  - {id: body, size: n}\n  - {id: tail, type: u1}\n  - {id: kind, type: u1, repeat: expr, repeat-expr: 2}\n  - id: more\n    type: u1\n    if: kind[0] > 0\ninstances:\n  twice: {value: total * 2}\n  total: {value: n + tail}\n  alone: {value: 1}\n",
    );
    let t = spec.types.first().unwrap();
    let named: Vec<(&str, bool)> = t
        .seq
        .iter()
        .chain(&t.instances)
        .map(|a| (a.id.as_str(), a.named))
        .collect();
    assert_eq!(
        named,
        [
            ("n", true),
            ("body", false),
            ("tail", true),
            ("kind", true),
            ("more", false),
            ("twice", false),
            ("total", true),
            ("alone", false)
        ]
    );
    assert!(!spec.asks_sizeof);
    let spec = described(
        "meta: {id: t}\nseq:\n  - {id: a, type: u1}\ninstances:\n  s: {value: a._sizeof}\n",
    );
    assert!(spec.asks_sizeof);
}
