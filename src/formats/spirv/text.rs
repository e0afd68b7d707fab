//! Operand values as text: constants by their scalar type (as `spirv-dis`
//! writes them), and the operands of extended instructions and the
//! instructions read through the grammar.

use rspirv::spirv;

use crate::model::Value;

macro_rules! enum_names {
    ($($f:ident => $t:ty),* $(,)?) => {
        $(pub(super) fn $f(v: u32) -> Option<String> {
            <$t>::from_u32(v).map(|x| format!("{x:?}"))
        })*
    };
}

enum_names! {
    capability => spirv::Capability,
    addressing_model => spirv::AddressingModel,
    memory_model => spirv::MemoryModel,
    execution_model => spirv::ExecutionModel,
    execution_mode => spirv::ExecutionMode,
    decoration => spirv::Decoration,
    source_language => spirv::SourceLanguage,
    builtin => spirv::BuiltIn,
    linkage_type => spirv::LinkageType,
    param_attribute => spirv::FunctionParameterAttribute,
    rounding_mode => spirv::FPRoundingMode,
    storage_class => spirv::StorageClass,
}

/// An enumerant's name, or its number where the grammar has none.
pub(super) fn enum_name(v: u32, f: fn(u32) -> Option<String>) -> String {
    f(v).unwrap_or_else(|| v.to_string())
}

/// A scalar type, as a constant's value is shown by it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Scalar {
    Int { width: u32, signed: bool },
    Float { width: u32 },
}

/// A constant's value as spirv-dis writes it for its type, from the `v` its
/// `words` words hold: a signed integer as a negative number where its
/// sign bit is set, a float of 32 or 64 bits with as many significant
/// digits as tell it apart (9 or 17; C's `%.9g`/`%.17g`), infinities and
/// NaNs as hexadecimal floats. `None` where the type's width does not fit
/// the words (the number is shown then).
pub(super) fn constant_text(ty: Scalar, v: u64, words: u64) -> Option<String> {
    match ty {
        Scalar::Int { width, signed } => {
            if !(1..=64).contains(&width) || u64::from(width).div_ceil(32) != words {
                return None;
            }
            let top = 1u64 << (width - 1);
            Some(if signed && v & top != 0 {
                let ext = if width == 64 {
                    v
                } else {
                    v | !((top << 1) - 1)
                };
                (ext as i64).to_string()
            } else {
                v.to_string()
            })
        }
        Scalar::Float { width: 32 } if words == 1 => {
            let f = f32::from_bits(v as u32);
            Some(if f.is_finite() {
                g_format(f64::from(f), 9)
            } else {
                hex_float(v, 23, 8)
            })
        }
        Scalar::Float { width: 64 } if words == 2 => {
            let f = f64::from_bits(v);
            Some(if f.is_finite() {
                g_format(f, 17)
            } else {
                hex_float(v, 52, 11)
            })
        }
        Scalar::Float { .. } => None,
    }
}

/// `f` as C's `%.{p}g` writes it: `p` significant digits, trailing zeros
/// dropped, in exponent form when the exponent is below -4 or not below
/// `p` (`1.0000000000000001e+300`).
pub(super) fn g_format(f: f64, p: usize) -> String {
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    let sci = format!("{:.*e}", p - 1, f);
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let trim = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if exp < -4 || exp >= p as i32 {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mant), exp.unsigned_abs())
    } else {
        let decimals = (p as i32 - 1 - exp).max(0) as usize;
        trim(&format!("{f:.decimals$}"))
    }
}

/// A float that is not finite, as a hexadecimal float whose exponent is
/// one past the largest (`0x1p+128`, `-0x1.8p+128` for a NaN), from its
/// bits: `man` mantissa bits, `exp` exponent bits.
pub(super) fn hex_float(bits: u64, man: u32, exp: u32) -> String {
    let sign = if bits >> (man + exp) & 1 == 1 {
        "-"
    } else {
        ""
    };
    let m = bits & ((1u64 << man) - 1);
    let e = 1u64 << (exp - 1);
    if m == 0 {
        return format!("{sign}0x1p+{e}");
    }
    // The mantissa in whole hex digits, trailing zeros dropped.
    let digits = man.div_ceil(4);
    let shifted = m << (4 * digits - man);
    let hex = format!("{shifted:0w$x}", w = digits as usize);
    format!("{sign}0x1.{}p+{e}", hex.trim_end_matches('0'))
}

/// Collects the one instruction of a module made for it.
pub(super) struct One(pub(super) Option<rspirv::dr::Instruction>);

impl rspirv::binary::Consumer for One {
    fn initialize(&mut self) -> rspirv::binary::ParseAction {
        rspirv::binary::ParseAction::Continue
    }
    fn finalize(&mut self) -> rspirv::binary::ParseAction {
        rspirv::binary::ParseAction::Continue
    }
    fn consume_header(&mut self, _: rspirv::dr::ModuleHeader) -> rspirv::binary::ParseAction {
        rspirv::binary::ParseAction::Continue
    }
    fn consume_instruction(&mut self, i: rspirv::dr::Instruction) -> rspirv::binary::ParseAction {
        self.0 = Some(i);
        rspirv::binary::ParseAction::Stop
    }
}

/// True if rspirv reads an operand of `kind` inside an OpSpecConstantOp:
/// its nested reader panics on the kinds that only the outer one handles,
/// and has no reader for the extended sets' own kinds.
pub(super) fn nests(kind: rspirv::grammar::OperandKind) -> bool {
    use rspirv::grammar::OperandKind as K;
    match kind {
        // Skipped by the nested reader.
        K::IdResultType | K::IdResult => true,
        K::LiteralContextDependentNumber
        | K::LiteralSpecConstantOpInteger
        | K::PairLiteralIntegerIdRef => false,
        // The extended sets' kinds are variants that carry the set's kind.
        k => !format!("{k:?}").contains('('),
    }
}

/// How many words an operand as rspirv decodes it takes in the module.
pub(super) fn words_of(op: &rspirv::dr::Operand) -> u64 {
    use rspirv::dr::Operand as O;
    match op {
        O::LiteralBit64(_) => 2,
        // The bytes, a NUL, and padding to a whole word.
        O::LiteralString(s) => s.len() as u64 / 4 + 1,
        _ => 1,
    }
}

/// The name an operand's leaf takes: its kind, in snake case.
pub(super) fn kind_name(op: &rspirv::dr::Operand) -> String {
    use rspirv::dr::Operand as O;
    let fixed = match op {
        O::IdRef(_) => "id",
        O::IdScope(_) => "scope",
        O::IdMemorySemantics(_) => "semantics",
        O::LiteralBit32(_) | O::LiteralBit64(_) => "literal",
        O::LiteralString(_) => "string",
        O::LiteralExtInstInteger(_) => "instruction",
        O::LiteralSpecConstantOpInteger(_) => "opcode",
        _ => "",
    };
    if !fixed.is_empty() {
        return fixed.to_string();
    }
    let debug = format!("{op:?}");
    let kind = debug.split('(').next().unwrap_or("operand");
    let mut out = String::with_capacity(kind.len() + 4);
    for (i, c) in kind.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Instruction `n` of the extended instruction set `set`, for the sets
/// whose grammar rspirv carries.
pub(super) fn ext_inst(
    set: &str,
    n: u32,
) -> Option<&'static rspirv::grammar::ExtendedInstruction<'static>> {
    use rspirv::grammar as g;
    let table = match set {
        "OpenCL.std" => &g::OPENCL_STD_100_INSTRUCTION_TABLE,
        "GLSL.std.450" => &g::GLSL_STD_450_INSTRUCTION_TABLE,
        "OpenCL.DebugInfo.100" => &g::OPENCL_DEBUGINFO_100_INSTRUCTION_TABLE,
        "NonSemantic.Shader.DebugInfo.100" => {
            &g::NONSEMANTIC_SHADER_DEBUGINFO_100_INSTRUCTION_TABLE
        }
        "NonSemantic.DebugPrintf" => &g::NONSEMANTIC_DEBUGPRINTF_INSTRUCTION_TABLE,
        _ => return None,
    };
    table.lookup_opcode(n)
}

// The enumerations of the OpenCL.DebugInfo.100 set's own grammar, from
// SPIRV-Headers' include/spirv/unified1/extinst.opencl.debuginfo.100.grammar.json
// (commit 0d25db9; Copyright 2018-2024 The Khronos Group Inc., MIT).
pub(super) const DEBUG_INFO_FLAGS: &[(u32, &str)] = &[
    (0x0, "None"),
    (0x1, "FlagIsProtected"),
    (0x2, "FlagIsPrivate"),
    (0x3, "FlagIsPublic"),
    (0x4, "FlagIsLocal"),
    (0x8, "FlagIsDefinition"),
    (0x10, "FlagFwdDecl"),
    (0x20, "FlagArtificial"),
    (0x40, "FlagExplicit"),
    (0x80, "FlagPrototyped"),
    (0x100, "FlagObjectPointer"),
    (0x200, "FlagStaticMember"),
    (0x400, "FlagIndirectVariable"),
    (0x800, "FlagLValueReference"),
    (0x1000, "FlagRValueReference"),
    (0x2000, "FlagIsOptimized"),
    (0x4000, "FlagIsEnumClass"),
    (0x8000, "FlagTypePassByValue"),
    (0x10000, "FlagTypePassByReference"),
];
pub(super) const DEBUG_BASE_TYPE_ATTRIBUTE_ENCODING: &[(u32, &str)] = &[
    (0x0, "Unspecified"),
    (0x1, "Address"),
    (0x2, "Boolean"),
    (0x3, "Float"),
    (0x4, "Signed"),
    (0x5, "SignedChar"),
    (0x6, "Unsigned"),
    (0x7, "UnsignedChar"),
];
pub(super) const DEBUG_COMPOSITE_TYPE: &[(u32, &str)] =
    &[(0x0, "Class"), (0x1, "Structure"), (0x2, "Union")];
pub(super) const DEBUG_TYPE_QUALIFIER: &[(u32, &str)] = &[
    (0x0, "ConstType"),
    (0x1, "VolatileType"),
    (0x2, "RestrictType"),
    (0x3, "AtomicType"),
];
pub(super) const DEBUG_OPERATION: &[(u32, &str)] = &[
    (0x0, "Deref"),
    (0x1, "Plus"),
    (0x2, "Minus"),
    (0x3, "PlusUconst"),
    (0x4, "BitPiece"),
    (0x5, "Swap"),
    (0x6, "Xderef"),
    (0x7, "StackValue"),
    (0x8, "Constu"),
    (0x9, "Fragment"),
];
pub(super) const DEBUG_IMPORTED_ENTITY: &[(u32, &str)] =
    &[(0x0, "ImportedModule"), (0x1, "ImportedDeclaration")];

/// The name of `v` in a value enumeration.
pub(super) fn enumerant(t: &[(u32, &'static str)], v: u32) -> Option<String> {
    t.iter().find(|e| e.0 == v).map(|e| e.1.to_string())
}

/// The names of the bits of `v` in a bit enumeration, lowest first, joined
/// by `|` (as spirv-dis writes them); the name of 0 for 0; `None` when a
/// bit has no name.
pub(super) fn bit_names(t: &[(u32, &'static str)], v: u32) -> Option<String> {
    if v == 0 {
        return enumerant(t, 0);
    }
    let mut names = Vec::new();
    for bit in (0..32).map(|i| 1u32 << i).filter(|b| v & b != 0) {
        names.push(t.iter().find(|e| e.0 == bit)?.1);
    }
    Some(names.join("|"))
}

/// How an extended instruction's operand word is shown, by the kind its
/// set's grammar gives it: ids as `%n`, literals as numbers, enumerations
/// (the core ones it uses, and the OpenCL.DebugInfo.100 set's own) by
/// name.
pub(super) fn ext_operand(
    kind: rspirv::grammar::OperandKind,
    v: u32,
) -> (&'static str, Value, String) {
    use rspirv::grammar::opencl_debuginfo_100::ExtOperandKind as D;
    use rspirv::grammar::OperandKind as K;
    let shown = |name: &'static str, t: Option<String>| {
        let text = t.clone().unwrap_or_else(|| v.to_string());
        (name, Value::named(u64::from(v), t.as_deref()), text)
    };
    let named = |name: &'static str, f: fn(u32) -> Option<String>| shown(name, f(v));
    match kind {
        K::IdRef
        | K::IdResultType
        | K::IdResult
        | K::IdScope
        | K::IdMemorySemantics
        | K::PairIdRefIdRef => {
            let t = format!("%{v}");
            ("id", Value::text(&t), t)
        }
        K::SourceLanguage => named("source_language", source_language),
        K::StorageClass => named("storage_class", storage_class),
        K::FPRoundingMode => named("rounding_mode", rounding_mode),
        K::OpenclDebuginfo100(d) => match d {
            D::DebugInfoFlags => shown("flags", bit_names(DEBUG_INFO_FLAGS, v)),
            D::DebugBaseTypeAttributeEncoding => {
                shown("encoding", enumerant(DEBUG_BASE_TYPE_ATTRIBUTE_ENCODING, v))
            }
            D::DebugCompositeType => shown("tag", enumerant(DEBUG_COMPOSITE_TYPE, v)),
            D::DebugTypeQualifier => shown("qualifier", enumerant(DEBUG_TYPE_QUALIFIER, v)),
            D::DebugOperation => shown("operation", enumerant(DEBUG_OPERATION, v)),
            D::DebugImportedEntity => shown("tag", enumerant(DEBUG_IMPORTED_ENTITY, v)),
        },
        _ => (
            "literal",
            Value::uint(u64::from(v)).with_width(4),
            v.to_string(),
        ),
    }
}
