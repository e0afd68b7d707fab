use super::text::{
    bit_names, enumerant, DEBUG_BASE_TYPE_ATTRIBUTE_ENCODING, DEBUG_INFO_FLAGS, DEBUG_OPERATION,
};
use super::*;

#[test]
fn names_and_sections() {
    assert_eq!(op_name(17).as_deref(), Some("OpCapability"));
    assert_eq!(op_name(9), None);
    assert_eq!(capability(6).as_deref(), Some("Kernel"));
    assert_eq!(Section::of(15), Section::EntryPoints);
    assert_eq!(Section::of(19), Section::Rest);
    assert!(Section::Debug < Section::Decorations);
}

#[test]
fn constants_as_their_type_says() {
    let int = |width, signed| Scalar::Int { width, signed };
    assert_eq!(
        constant_text(int(32, true), 0xffff_fff9, 1).as_deref(),
        Some("-7")
    );
    assert_eq!(
        constant_text(int(32, false), 0xffff_fff9, 1).as_deref(),
        Some("4294967289")
    );
    assert_eq!(
        constant_text(int(8, true), 0x80, 1).as_deref(),
        Some("-128")
    );
    assert_eq!(
        constant_text(int(64, true), u64::MAX, 2).as_deref(),
        Some("-1")
    );
    // A width the words do not hold: the number is shown instead.
    assert_eq!(constant_text(int(64, true), 5, 1), None);
    assert_eq!(constant_text(int(0, true), 5, 1), None);
    let float = |width| Scalar::Float { width };
    let f = |x: f32| constant_text(float(32), u64::from(x.to_bits()), 1);
    assert_eq!(f(0.1).as_deref(), Some("0.100000001"));
    assert_eq!(f(2.5).as_deref(), Some("2.5"));
    assert_eq!(f(1e-10).as_deref(), Some("1.00000001e-10"));
    assert_eq!(f(f32::INFINITY).as_deref(), Some("0x1p+128"));
    assert_eq!(f(f32::NEG_INFINITY).as_deref(), Some("-0x1p+128"));
    assert_eq!(f(f32::NAN).as_deref(), Some("0x1.8p+128"));
    let d = |x: f64| constant_text(float(64), x.to_bits(), 2);
    assert_eq!(d(1e300).as_deref(), Some("1.0000000000000001e+300"));
    assert_eq!(d(-3.0).as_deref(), Some("-3"));
    assert_eq!(d(-0.0).as_deref(), Some("-0"));
    assert_eq!(d(123456.789).as_deref(), Some("123456.789"));
    assert_eq!(constant_text(float(16), 0x3c00, 1), None);
}

#[test]
fn debug_info_enumerations() {
    assert_eq!(bit_names(DEBUG_INFO_FLAGS, 0).as_deref(), Some("None"));
    // FlagIsPublic (3) is two bits: spirv-dis names each.
    assert_eq!(
        bit_names(DEBUG_INFO_FLAGS, 3).as_deref(),
        Some("FlagIsProtected|FlagIsPrivate")
    );
    assert_eq!(
        bit_names(DEBUG_INFO_FLAGS, 0x2008).as_deref(),
        Some("FlagIsDefinition|FlagIsOptimized")
    );
    assert_eq!(bit_names(DEBUG_INFO_FLAGS, 1 << 31), None);
    assert_eq!(
        enumerant(DEBUG_BASE_TYPE_ATTRIBUTE_ENCODING, 3).as_deref(),
        Some("Float")
    );
    assert_eq!(enumerant(DEBUG_OPERATION, 10), None);
}

#[test]
fn strings() {
    // "abcd" then its NUL in a word of its own, then one more word.
    let mut d = Vec::new();
    for w in [0u32, 0x6463_6261, 0, 7] {
        d.extend(w.to_le_bytes());
    }
    assert_eq!(
        literal_string(&d, 0, 4, 1, Endian::Little),
        Some(("abcd".to_string(), 3))
    );
    let be: Vec<u8> = d.chunks(4).flat_map(|c| [c[3], c[2], c[1], c[0]]).collect();
    assert_eq!(
        literal_string(&be, 0, 4, 1, Endian::Big),
        Some(("abcd".to_string(), 3))
    );
    assert_eq!(quote("a\"b\\"), "\"a\\\"b\\\\\"");
    // A byte that is not UTF-8 keeps the model's display form.
    let mut d = Vec::new();
    for w in [0u32, 0x0063_9b61] {
        d.extend(w.to_le_bytes());
    }
    assert_eq!(
        literal_string(&d, 0, 2, 1, Endian::Little),
        Some(("a\\x9bc".to_string(), 2))
    );
}
