//! SPIR-V modules (magic 0x07230203, either byte order): the five-word
//! header, then the instruction stream in the sections of the module's
//! logical layout (capabilities, extensions, extended instruction set
//! imports, memory model, entry points, execution modes, debug
//! instructions, annotations), each instruction a node at its words with
//! its operands decoded, and every other instruction (types, constants,
//! globals, functions) in one lazily built list, decoded by the grammar.
//!
//! Enumerant names (opcodes, capabilities, execution models and modes,
//! decorations...) come from the `spirv` module `rspirv` re-exports,
//! generated from the Khronos grammar. The instructions past the annotations are read by `rspirv`'s
//! parser, which follows the same grammar, one instruction at a time; the
//! extended instructions of the OpenCL, GLSL and debug-info sets are named
//! from rspirv's tables of those sets. The operand text of a decoded
//! instruction reads as `spirv-dis --raw-id` writes it, the result id
//! first; a constant's value is written as its type says (the module's
//! integer and float types are gathered in the pass that finds the
//! sections). Every id operand links to the instruction that defines it,
//! and shows the name `OpName` gives it.

use std::sync::Arc;

use rspirv::spirv;
use rspirv::spirv::Op;

use crate::model::{Builder, Endian, Fields, NodeId, Seq, Span, Step, Value};

mod text;

use text::{
    addressing_model, builtin, capability, constant_text, decoration, enum_name, execution_mode,
    execution_model, ext_inst, ext_operand, kind_name, linkage_type, memory_model, nests,
    param_attribute, rounding_mode, source_language, words_of, One, Scalar,
};

pub const MAGIC: u32 = 0x0723_0203;
/// The size of a word, the unit of everything in a module.
const WORD: u64 = 4;
/// The header: magic, version, generator, bound and schema, a word each.
const HEADER: u64 = 5 * WORD;

/// Where word `i` of the instruction (or header) at `at` is.
fn word_at(at: u64, i: u64) -> u64 {
    at.saturating_add(WORD.saturating_mul(i))
}

/// Instructions beyond this many are not listed.
const MAX_INSTRUCTIONS: u64 = 1 << 32;
/// Runs of sections out of the layout's order beyond this many are not
/// shown as sections of their own: the instructions from there on join
/// the list of the others.
const MAX_RUNS: usize = 64;
/// A section's summary names at most this many items.
const SUMMARY_ITEMS: usize = 8;
/// Extended instruction set imports, and scalar types, beyond this many are
/// not looked up.
const MAX_IMPORTS: usize = 64;
const MAX_TYPES: usize = 4096;

/// What the instructions past the annotations are decoded with, gathered
/// in one pass over the module: the extended instruction sets it imports
/// and its scalar types (result id to type, sorted by id).
#[derive(Default)]
struct Module {
    imports: Vec<(u32, String)>,
    types: Vec<(u32, Scalar)>,
    /// Where each result id is defined: the instruction's offset and size;
    /// sorted by id.
    defs: Vec<(u32, (u64, u64))>,
    /// The names `OpName` gives ids; sorted by id.
    names: Vec<(u32, String)>,
}

/// What a table sorted by id (see [`sort_by_id`]) holds for `id`.
fn by_id<T>(table: &[(u32, T)], id: u32) -> Option<&T> {
    let k = table.binary_search_by_key(&id, |e| e.0).ok()?;
    table.get(k).map(|e| &e.1)
}

/// Sorts a table by id for [`by_id`], keeping the first entry of each id
/// (the first declaration in the module).
fn sort_by_id<T>(table: &mut Vec<(u32, T)>) {
    table.sort_by_key(|e| e.0);
    table.dedup_by_key(|e| e.0);
}

/// Result ids beyond this many are not linked to their definitions.
const MAX_DEFS: usize = 1 << 22;

/// Which word of an instruction of opcode `op` holds its result id (1, or
/// 2 after a result type), 0 where it has none: from the grammar, made
/// once into a table by opcode.
fn result_word(op: u32) -> u64 {
    static TABLE: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    let t = TABLE.get_or_init(|| {
        use rspirv::grammar::OperandKind as K;
        let mut t = vec![0u8; 1 << 16];
        for g in rspirv::grammar::INSTRUCTION_TABLE.iter() {
            let at = g.operands.iter().position(|l| l.kind == K::IdResult);
            if let (Some(slot), Some(k)) = (t.get_mut(g.opcode as usize), at) {
                *slot = (k + 1) as u8;
            }
        }
        t
    });
    t.get(op as usize).map_or(0, |&k| u64::from(k))
}

/// The byte order of a SPIR-V module, if `d` starts with one.
pub fn endian(d: &[u8]) -> Option<Endian> {
    match d.get(..4)? {
        [0x03, 0x02, 0x23, 0x07] => Some(Endian::Little),
        [0x07, 0x23, 0x02, 0x03] => Some(Endian::Big),
        _ => None,
    }
}

pub fn detect(d: &[u8]) -> bool {
    endian(d).is_some()
}

/// Names of the generators registered with Khronos that these files show.
fn generator(id: u16) -> Option<&'static str> {
    Some(match id {
        0 => "Khronos",
        6 => "Khronos LLVM/SPIR-V Translator",
        7 => "Khronos SPIR-V Tools Assembler",
        8 => "Khronos Glslang Reference Front End",
        13 => "Google Shaderc over Glslang",
        14 => "Google spiregg",
        17 => "Khronos SPIR-V Tools Linker",
        22 => "Intel IGC",
        28 => "Khronos SPIRV-Tools",
        34 => "Khronos LLVM SPIR-V Backend",
        35 => "Microsoft DXC",
        _ => return None,
    })
}

/// The opcode's name as the specification writes it (`OpCapability`).
pub fn op_name(op: u32) -> Option<String> {
    spirv::Op::from_u32(op).map(|o| format!("Op{o:?}"))
}

/// The sections of a module's logical layout, in their order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Section {
    Capabilities,
    Extensions,
    ExtInstImports,
    MemoryModel,
    EntryPoints,
    ExecutionModes,
    Debug,
    Decorations,
    /// Types, constants, global variables and functions.
    Rest,
}

impl Section {
    fn of(op: u32) -> Section {
        match Op::from_u32(op) {
            Some(Op::Capability) => Section::Capabilities,
            Some(Op::Extension) => Section::Extensions,
            Some(Op::ExtInstImport) => Section::ExtInstImports,
            Some(Op::MemoryModel) => Section::MemoryModel,
            Some(Op::EntryPoint) => Section::EntryPoints,
            Some(Op::ExecutionMode | Op::ExecutionModeId) => Section::ExecutionModes,
            Some(
                Op::SourceContinued
                | Op::Source
                | Op::SourceExtension
                | Op::Name
                | Op::MemberName
                | Op::String
                | Op::ModuleProcessed,
            ) => Section::Debug,
            Some(
                Op::Decorate
                | Op::MemberDecorate
                | Op::DecorationGroup
                | Op::GroupDecorate
                | Op::GroupMemberDecorate
                | Op::DecorateId
                | Op::DecorateString
                | Op::MemberDecorateString,
            ) => Section::Decorations,
            _ => Section::Rest,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Section::Capabilities => "capabilities",
            Section::Extensions => "extensions",
            Section::ExtInstImports => "ext_inst_imports",
            Section::MemoryModel => "memory_model",
            Section::EntryPoints => "entry_points",
            Section::ExecutionModes => "execution_modes",
            Section::Debug => "debug",
            Section::Decorations => "decorations",
            Section::Rest => "instructions",
        }
    }
}

/// One run of instructions of the same section.
struct Run {
    section: Section,
    start: u64,
    stop: u64,
    count: u64,
    /// The first few items, for the section's summary.
    items: Vec<String>,
}

/// Decodes the module in `at` under `parent`: the header, then each
/// section of the instruction stream as a node.
pub fn parse(b: &mut Builder<'_>, parent: NodeId, at: Span) {
    let Some(e) = endian(b.slice(at.offset, 4)) else {
        return;
    };
    header(b, parent, at.offset, e);
    if at.len < HEADER {
        b.error(at.offset, at.len, "SPIR-V header needs 20 bytes");
        return;
    }
    // The whole words.
    let whole = at.take(at.len - at.len % 4);
    let end = whole.end();
    let (runs, stop, module) = scan(b, whole.skip(HEADER), e);
    let module = Arc::new(module);
    for r in runs {
        let value = if r.items.is_empty() {
            count_of(r.count, "instruction")
        } else {
            let mut s = r.items.join(", ");
            if r.count > r.items.len() as u64 {
                s.push_str(&format!(", … ({} in all)", r.count));
            }
            s
        };
        let g = b.add(
            parent,
            r.section.name(),
            r.start,
            r.stop - r.start,
            Some(Value::text(value)),
        );
        let m = module.clone();
        let step: Step =
            Arc::new(move |b: &mut Builder<'_>, p, _i, at| instruction(b, p, at, e, &m));
        let data = b.data();
        let seq = Seq::scan(r.start, r.stop, r.count, |at| next_of(data, at, e), step);
        b.seq(g, seq);
    }
    if stop < end {
        let bytes = b.slice(stop, end - stop);
        b.leaf(
            parent,
            "undecoded",
            stop,
            end - stop,
            crate::model::text::hex(bytes, 16),
        );
    }
    if !at.len.is_multiple_of(4) {
        let tail = at.skip(whole.len);
        let bytes = b.bytes(tail);
        b.leaf(
            parent,
            "trailing",
            tail.offset,
            tail.len,
            crate::model::text::hex(bytes, 4),
        );
        b.warn(
            at.offset,
            at.len,
            "SPIR-V module size is not a multiple of 4",
        );
    }
}

fn count_of(n: u64, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

fn header(b: &mut Builder<'_>, parent: NodeId, off: u64, e: Endian) {
    let order = match e {
        Endian::Little => "little-endian",
        Endian::Big => "big-endian",
    };
    b.leaf(
        parent,
        "magic",
        off,
        4,
        format!("0x{MAGIC:08x} (SPIR-V, {order})"),
    );
    // A header cut short is reported where the module is parsed.
    let mut f = Fields::new(b, parent, word_at(off, 1), e).quiet();
    f.field("version", 4, |v| {
        format!("{}.{}", (v >> 16) & 0xff, (v >> 8) & 0xff).into()
    });
    f.field("generator", 4, |g| {
        let tool = (g >> 16) as u16;
        let name = generator(tool).unwrap_or("unregistered");
        format!("{name} (tool {tool}, version {})", g & 0xffff).into()
    });
    f.uint("bound", 4);
    f.uint("schema", 4);
}

fn word(d: &[u8], at: u64, e: Endian) -> Option<u32> {
    let s = d.get(usize::try_from(at).ok()?..)?.get(..4)?;
    let a: [u8; 4] = s.try_into().ok()?;
    Some(match e {
        Endian::Little => u32::from_le_bytes(a),
        Endian::Big => u32::from_be_bytes(a),
    })
}

/// Where the instruction at `at` ends, from its word count.
fn next_of(d: &[u8], at: u64, e: Endian) -> Option<u64> {
    let w = word(d, at, e)?;
    let n = u64::from(w >> 16);
    (n > 0).then(|| at.saturating_add(WORD * n))
}

/// Walks the instruction stream in `words` once: where each section's run starts and
/// stops, the first items of the small sections, and the problems (a word
/// count of zero, an instruction past the end, sections out of order).
/// Returns the runs, where the decodable instructions stop, and the
/// extended instruction sets and scalar types the module declares.
fn scan(b: &mut Builder<'_>, words: Span, e: Endian) -> (Vec<Run>, u64, Module) {
    let data = b.data();
    let mut runs: Vec<Run> = Vec::new();
    let mut module = Module::default();
    let end = words.end();
    let mut at = words.offset;
    let mut total = 0u64;
    let mut in_rest = false;
    let mut disorder = 0u64;
    while at < end && total < MAX_INSTRUCTIONS {
        let Some(w0) = word(data, at, e) else { break };
        let n = u64::from(w0 >> 16);
        let op = w0 & 0xffff;
        let name = op_name(op).unwrap_or_else(|| format!("opcode {op}"));
        if n == 0 {
            b.error(
                at,
                4,
                format!("{name}: word count 0; the instructions from here are not decoded"),
            );
            break;
        }
        let next = at.saturating_add(WORD * n);
        if next > end {
            b.error(
                at,
                end - at,
                format!(
                    "{name}: {n} words run past the end of the module ({} words remain)",
                    (end - at) / WORD
                ),
            );
            break;
        }
        let mut section = if in_rest {
            Section::Rest
        } else {
            Section::of(op)
        };
        if runs.len() + 1 >= MAX_RUNS && runs.last().is_none_or(|r| r.section != section) {
            section = Section::Rest;
        }
        if section == Section::Rest {
            in_rest = true;
        }
        let same = runs.last().is_some_and(|r| r.section == section);
        if !same {
            if let Some(prev) = runs.last() {
                if section < prev.section {
                    disorder += 1;
                    if disorder <= 5 {
                        b.warn(
                            at,
                            WORD * n,
                            format!(
                                "{name} after the module's {} section: out of the logical layout order",
                                prev.section.name()
                            ),
                        );
                    }
                }
            }
            runs.push(Run {
                section,
                start: at,
                stop: at,
                count: 0,
                items: Vec::new(),
            });
        }
        let w = |i: u64| {
            if i < n {
                word(data, word_at(at, i), e)
            } else {
                None
            }
        };
        if op == Op::ExtInstImport as u32 && module.imports.len() < MAX_IMPORTS {
            if let (Some(id), Some((name, _))) = (w(1), literal_string(data, at, n, 2, e)) {
                module.imports.push((id, name));
            }
        }
        let k = result_word(op);
        if k > 0 && k < n && module.defs.len() < MAX_DEFS {
            if let Some(id) = w(k) {
                module.defs.push((id, (at, WORD * n)));
            }
        }
        // OpName (target, name)
        if op == Op::Name as u32 && module.names.len() < MAX_DEFS {
            if let (Some(id), Some((name, _))) = (w(1), literal_string(data, at, n, 2, e)) {
                module.names.push((id, name));
            }
        }
        // OpTypeInt (result, width, signedness), OpTypeFloat (result, width).
        let scalar = Op::from_u32(op).filter(|o| matches!(o, Op::TypeInt | Op::TypeFloat));
        if let Some(scalar) = scalar.filter(|_| module.types.len() < MAX_TYPES) {
            let ty = match (scalar, w(2), w(3)) {
                (Op::TypeInt, Some(width), Some(s)) => Some(Scalar::Int {
                    width,
                    signed: s == 1,
                }),
                (Op::TypeFloat, Some(width), _) => Some(Scalar::Float { width }),
                _ => None,
            };
            if let (Some(id), Some(ty)) = (w(1), ty) {
                module.types.push((id, ty));
            }
        }
        if let Some(r) = runs.last_mut() {
            if r.items.len() < SUMMARY_ITEMS && summarised(section) {
                if let Some(s) = summary_item(data, at, n, op, e) {
                    r.items.push(s);
                }
            }
            r.stop = next;
            r.count += 1;
        }
        total += 1;
        at = next;
    }
    if disorder > 5 {
        b.warn(
            words.offset,
            words.len,
            format!(
                "{disorder} instructions out of the logical layout order in all; the first 5 are reported"
            ),
        );
    }
    // Looked up by id for every constant and id operand.
    sort_by_id(&mut module.types);
    sort_by_id(&mut module.defs);
    sort_by_id(&mut module.names);
    (runs, at, module)
}

fn summarised(s: Section) -> bool {
    matches!(
        s,
        Section::Capabilities
            | Section::Extensions
            | Section::ExtInstImports
            | Section::MemoryModel
            | Section::EntryPoints
    )
}

/// The item a small section's summary names for the instruction at `at`.
fn summary_item(d: &[u8], at: u64, n: u64, op: u32, e: Endian) -> Option<String> {
    let w = |i: u64| {
        if i < n {
            word(d, word_at(at, i), e)
        } else {
            None
        }
    };
    match Op::from_u32(op)? {
        Op::Capability => Some(enum_name(w(1)?, capability)),
        Op::Extension => Some(literal_string(d, at, n, 1, e)?.0),
        Op::ExtInstImport => Some(literal_string(d, at, n, 2, e)?.0),
        Op::MemoryModel => Some(format!(
            "{} {}",
            enum_name(w(1)?, addressing_model),
            enum_name(w(2)?, memory_model)
        )),
        Op::EntryPoint => Some(format!(
            "{} {}",
            enum_name(w(1)?, execution_model),
            literal_string(d, at, n, 3, e)?.0
        )),
        _ => None,
    }
}

/// The literal string starting at word `i` of the instruction at `at` of
/// `n` words (UTF-8, NUL-terminated, packed four bytes a word from the
/// lowest-order byte up, whatever the module's byte order): its text and
/// the index of the word after it (bytes that are not UTF-8 as `\xNN`, as
/// everywhere in the model). A string without its NUL takes the rest of the
/// instruction.
fn literal_string(d: &[u8], at: u64, n: u64, i: u64, e: Endian) -> Option<(String, u64)> {
    if i >= n {
        return None;
    }
    let mut bytes = Vec::new();
    let mut k = i;
    while k < n {
        let w = word(d, word_at(at, k), e)?;
        k += 1;
        for c in w.to_le_bytes() {
            if c == 0 {
                return Some((crate::model::text::from_bytes(&bytes), k));
            }
            bytes.push(c);
        }
    }
    Some((crate::model::text::from_bytes(&bytes), n))
}

/// A string as `spirv-dis` quotes it.
fn quote(s: &str) -> String {
    let mut q = String::with_capacity(s.len() + 2);
    q.push('"');
    for c in s.chars() {
        if c == '"' || c == '\\' {
            q.push('\\');
        }
        q.push(c);
    }
    q.push('"');
    q
}

/// Reads an instruction's operands in order, each a leaf at its words,
/// and collects their text as `spirv-dis` writes it.
struct Operands<'x, 'a> {
    b: &'x mut Builder<'a>,
    node: NodeId,
    at: u64,
    n: u64,
    i: u64,
    e: Endian,
    parts: Vec<String>,
    /// A required operand was missing.
    short: bool,
    /// Where result ids are defined, and their names.
    module: &'x Module,
}

impl<'x, 'a> Operands<'x, 'a> {
    fn word(&self, i: u64) -> Option<u32> {
        if i < self.n {
            self.b.read_u32(word_at(self.at, i), self.e)
        } else {
            None
        }
    }

    fn more(&self) -> bool {
        self.i < self.n
    }

    fn take(&mut self) -> Option<(u64, u32)> {
        let Some(v) = self.word(self.i) else {
            self.short = true;
            return None;
        };
        let off = word_at(self.at, self.i);
        self.i += 1;
        Some((off, v))
    }

    fn id(&mut self, name: &'static str) -> Option<u32> {
        let (off, v) = self.take()?;
        let t = format!("%{v}");
        let leaf = self.b.field(self.node, name, off, WORD, Value::text(&t));
        self.mark_id(leaf, v, name != "result");
        self.parts.push(t);
        Some(v)
    }

    /// Finishes the leaf of an id: the name `OpName` gives the id after it
    /// (`%13 (add)`), and, with `link`, a link to the instruction that
    /// defines the id, where the module has them.
    fn mark_id(&mut self, leaf: NodeId, v: u32, link: bool) {
        if let Some(name) = by_id(&self.module.names, v) {
            self.b
                .set_value(leaf, Value::text(format!("%{v} ({name})")));
        }
        if let Some(&(at, size)) = by_id(&self.module.defs, v).filter(|_| link) {
            self.b.link(leaf, self.b.span(at, size));
        }
    }

    fn literal(&mut self, name: &'static str) -> Option<u32> {
        let (off, v) = self.take()?;
        self.b.field(
            self.node,
            name,
            off,
            WORD,
            Value::uint(v.into()).with_width(4),
        );
        self.parts.push(v.to_string());
        Some(v)
    }

    fn named(&mut self, name: &'static str, f: fn(u32) -> Option<String>) -> Option<u32> {
        let (off, v) = self.take()?;
        let s = f(v);
        self.b.field(
            self.node,
            name,
            off,
            4,
            Value::named(v.into(), s.as_deref()),
        );
        self.parts.push(s.unwrap_or_else(|| v.to_string()));
        Some(v)
    }

    fn string(&mut self, name: &'static str) -> Option<String> {
        let d = self.b.data();
        let Some((s, next)) = literal_string(d, self.at, self.n, self.i, self.e) else {
            self.short = true;
            return None;
        };
        let off = word_at(self.at, self.i);
        let size = WORD * (next - self.i);
        self.b.field(self.node, name, off, size, Value::str(&s));
        if next == self.n
            && !self
                .word(self.n - 1)
                .is_some_and(|w| w.to_le_bytes().contains(&0))
        {
            self.b
                .warn(off, size, format!("{name}: no NUL ends the string"));
        }
        self.parts.push(quote(&s));
        self.i = next;
        Some(s)
    }

    /// The remaining words, each an id: a leaf each, linked to where the
    /// id is defined.
    fn ids(&mut self, name: &'static str) {
        while self.more() {
            self.id(name);
        }
    }

    /// The remaining words, each a literal number, as one leaf.
    fn literals(&mut self, name: &'static str) {
        self.list(name, |v| v.to_string());
    }

    fn list(&mut self, name: &'static str, f: fn(u32) -> String) {
        if !self.more() {
            return;
        }
        let start = self.i;
        let mut items = Vec::new();
        while let Some(v) = self.word(self.i) {
            items.push(f(v));
            self.i += 1;
        }
        let off = word_at(self.at, start);
        let text = items.join(" ");
        self.b.field(
            self.node,
            name,
            off,
            WORD * (self.i - start),
            Value::text(&text),
        );
        self.parts.extend(items);
    }

    /// The operands that follow a decoration, by the decoration.
    fn decoration_operands(&mut self, d: u32, ids: bool) {
        if ids {
            self.ids("operands");
            return;
        }
        match spirv::Decoration::from_u32(d) {
            Some(spirv::Decoration::BuiltIn) => {
                self.named("builtin", builtin);
            }
            Some(spirv::Decoration::FuncParamAttr) => {
                self.named("attribute", param_attribute);
            }
            Some(spirv::Decoration::FPRoundingMode) => {
                self.named("rounding_mode", rounding_mode);
            }
            Some(spirv::Decoration::LinkageAttributes) => {
                self.string("name");
                self.named("linkage_type", linkage_type);
            }
            _ => self.literals("operands"),
        }
    }

    /// The summary of the operands; leftover words become one leaf.
    fn finish(mut self, op: &str) -> String {
        if self.more() {
            let start = self.i;
            let mut items = Vec::new();
            while let Some(v) = self.word(self.i) {
                items.push(v.to_string());
                self.i += 1;
            }
            let off = word_at(self.at, start);
            self.b.field(
                self.node,
                "extra_operands",
                off,
                WORD * (self.i - start),
                Value::text(items.join(" ")),
            );
            self.b.warn(
                off,
                WORD * (self.i - start),
                format!("{op}: {} words after its operands", self.i - start),
            );
        }
        if self.short {
            self.b.error(
                self.at,
                WORD * self.n,
                format!("{op}: {} words are too few for its operands", self.n),
            );
        }
        self.parts.join(" ")
    }
}

/// Builds the node of the instruction at `at`; returns where the next one
/// starts.
fn instruction(
    b: &mut Builder<'_>,
    parent: NodeId,
    at: u64,
    e: Endian,
    module: &Module,
) -> Option<u64> {
    let w0 = b.read_u32(at, e)?;
    let n = u64::from(w0 >> 16);
    if n == 0 {
        return None;
    }
    let op = w0 & 0xffff;
    let name = op_name(op);
    let shown = name.clone().unwrap_or_else(|| format!("opcode {op}"));
    let node = b.add(parent, &shown, at, WORD * n, None);
    // The first word: the word count in its high half, the opcode in its
    // low half.
    const HALF: u64 = WORD / 2;
    let (count_at, op_at) = match e {
        Endian::Little => (at + HALF, at),
        Endian::Big => (at, at + HALF),
    };
    let count_leaf = |b: &mut Builder<'_>| {
        b.field(
            node,
            "word_count",
            count_at,
            2,
            Value::uint(n).with_width(2),
        );
    };
    let op_leaf = |b: &mut Builder<'_>| {
        b.field(
            node,
            "opcode",
            op_at,
            2,
            Value::named(op.into(), name.as_deref()),
        );
    };
    if count_at < op_at {
        count_leaf(b);
        op_leaf(b);
    } else {
        op_leaf(b);
        count_leaf(b);
    }
    let mut o = Operands {
        b,
        node,
        at,
        n,
        i: 1,
        e,
        parts: Vec::new(),
        short: false,
        module,
    };
    let decoded = operands(&mut o, op) || by_grammar(&mut o, op);
    if !decoded {
        let words = n - 1;
        if words > 0 {
            let off = word_at(at, 1);
            let bytes = o.b.slice(off, WORD * words);
            o.b.field(
                node,
                "operands",
                off,
                WORD * words,
                Value::text(crate::model::text::hex(bytes, 16)),
            );
        }
        o.b.set_value(node, Value::text(count_of(n, "word")));
        return Some(word_at(at, n));
    }
    let text = o.finish(&shown);
    b.set_value(node, Value::text(text));
    Some(word_at(at, n))
}

/// Decodes the operands of the instructions of the module's first
/// sections; false for the others (shown as words).
fn operands(o: &mut Operands<'_, '_>, op: u32) -> bool {
    let Some(code) = Op::from_u32(op) else {
        return false;
    };
    match code {
        // OpSourceContinued, OpSourceExtension, OpModuleProcessed
        Op::SourceContinued | Op::SourceExtension | Op::ModuleProcessed => {
            o.string("text");
        }
        // OpSource
        Op::Source => {
            o.named("source_language", source_language);
            o.literal("version");
            if o.more() {
                o.id("file");
            }
            if o.more() {
                o.string("source");
            }
        }
        // OpName
        Op::Name => {
            o.id("target");
            o.string("name");
        }
        // OpMemberName
        Op::MemberName => {
            o.id("type");
            o.literal("member");
            o.string("name");
        }
        // OpString
        Op::String => {
            o.id("result");
            o.string("string");
        }
        // OpExtension
        Op::Extension => {
            o.string("name");
        }
        // OpExtInstImport
        Op::ExtInstImport => {
            o.id("result");
            o.string("name");
        }
        // OpMemoryModel
        Op::MemoryModel => {
            o.named("addressing_model", addressing_model);
            o.named("memory_model", memory_model);
        }
        // OpEntryPoint
        Op::EntryPoint => {
            o.named("execution_model", execution_model);
            o.id("entry_point");
            o.string("name");
            o.ids("interface");
        }
        // OpExecutionMode, OpExecutionModeId
        Op::ExecutionMode | Op::ExecutionModeId => {
            o.id("entry_point");
            o.named("mode", execution_mode);
            if code == Op::ExecutionModeId {
                o.ids("operands");
            } else {
                o.literals("operands");
            }
        }
        // OpCapability
        Op::Capability => {
            o.named("capability", capability);
        }
        // OpDecorate, OpDecorateId
        Op::Decorate | Op::DecorateId => {
            o.id("target");
            if let Some(d) = o.named("decoration", decoration) {
                o.decoration_operands(d, code == Op::DecorateId);
            }
        }
        // OpMemberDecorate
        Op::MemberDecorate => {
            o.id("structure_type");
            o.literal("member");
            if let Some(d) = o.named("decoration", decoration) {
                o.decoration_operands(d, false);
            }
        }
        // OpDecorationGroup
        Op::DecorationGroup => {
            o.id("result");
        }
        // OpGroupDecorate
        Op::GroupDecorate => {
            o.id("group");
            o.ids("targets");
        }
        // OpGroupMemberDecorate: the group, then (structure, member) pairs.
        Op::GroupMemberDecorate => {
            o.id("group");
            while o.more() {
                o.id("structure_type");
                o.literal("member");
            }
        }
        // OpDecorateString
        Op::DecorateString => {
            o.id("target");
            o.named("decoration", decoration);
            while o.more() {
                o.string("string");
            }
        }
        // OpMemberDecorateString
        Op::MemberDecorateString => {
            o.id("structure_type");
            o.literal("member");
            o.named("decoration", decoration);
            while o.more() {
                o.string("string");
            }
        }
        _ => return false,
    }
    true
}

/// Decodes the operands of any other instruction by the SPIR-V grammar:
/// rspirv's parser reads the instruction alone, behind a module header
/// made for it, and each operand it returns becomes a leaf at its words.
/// False (the words are shown raw) where the grammar does not know the
/// opcode, the words do not fit it, or the operands' sizes do not add up
/// to the word count. A constant's value takes the words after its result
/// id (one word up to 32 bits, two for 64), since its width comes from
/// its type elsewhere in the module.
fn by_grammar(o: &mut Operands<'_, '_>, op: u32) -> bool {
    use rspirv::binary::Disassemble;
    use rspirv::dr::Operand as O;
    // OpConstant, OpSpecConstant
    let code = Op::from_u32(op);
    if matches!(code, Some(Op::Constant | Op::SpecConstant)) && matches!(o.n, 4 | 5) {
        let ty = o.id("result_type");
        o.id("result");
        o.parts.swap(0, 1);
        let at = word_at(o.at, o.i);
        let v = if o.n == 4 {
            o.word(3).map(u64::from)
        } else {
            o.word(3)
                .zip(o.word(4))
                .map(|(lo, hi)| u64::from(hi) << 32 | u64::from(lo))
        };
        let Some(v) = v else { return false };
        let size = WORD * (o.n - 3);
        let scalar = ty.and_then(|t| by_id(&o.module.types, t)).copied();
        let text = scalar.and_then(|s| constant_text(s, v, o.n - 3));
        // The number, and what it means where that reads otherwise.
        let value = match &text {
            Some(t) if *t != v.to_string() => Value::named(v, Some(t)),
            _ => Value::uint(v).with_width(size as u8),
        };
        o.b.field(o.node, "value", at, size, value);
        o.parts.push(text.unwrap_or_else(|| v.to_string()));
        o.i = o.n;
        return true;
    }
    // OpSpecConstantOp: rspirv panics on an inner opcode whose operands it
    // cannot read nested (a constant, a switch, another OpSpecConstantOp).
    if code == Some(Op::SpecConstantOp) {
        let inner = o
            .word(3)
            .and_then(|w| rspirv::grammar::INSTRUCTION_TABLE.lookup_opcode(w));
        if !inner.is_some_and(|g| g.operands.iter().all(|l| nests(l.kind))) {
            return false;
        }
    }
    let mut words = vec![MAGIC, 0x0001_0600, 0, u32::MAX, 0];
    for i in 0..o.n {
        match o.word(i) {
            Some(w) => words.push(w),
            None => return false,
        }
    }
    let mut one = One(None);
    // The parser stops with an error for its consumer's Stop: what counts
    // is the instruction it handed over.
    let _ = rspirv::binary::parse_words(&words, &mut one);
    let Some(ins) = one.0 else { return false };
    let fixed = u64::from(ins.result_type.is_some()) + u64::from(ins.result_id.is_some());
    let total = ins
        .operands
        .iter()
        .map(words_of)
        .fold(fixed, u64::saturating_add);
    if total != o.n - 1 {
        return false;
    }
    if ins.result_type.is_some() {
        o.id("result_type");
    }
    if ins.result_id.is_some() {
        o.id("result");
        if ins.result_type.is_some() {
            o.parts.swap(0, 1);
        }
    }
    // OpExtInst: the set's instruction by name, its operands by the set's
    // grammar.
    let ext = (code == Some(Op::ExtInst))
        .then(|| match ins.operands.get(..2) {
            Some([O::IdRef(id), O::LiteralExtInstInteger(n)]) => o
                .module
                .imports
                .iter()
                .find(|(i, _)| i == id)
                .and_then(|(_, set)| ext_inst(set, *n)),
            _ => None,
        })
        .flatten();
    for (k, operand) in ins.operands.iter().enumerate() {
        if let (Some(g), Some(k)) = (ext, k.checked_sub(2)) {
            let kinds = g.operands;
            let kind = kinds.get(k).or_else(|| {
                kinds
                    .last()
                    .filter(|l| l.quantifier == rspirv::grammar::OperandQuantifier::ZeroOrMore)
            });
            if let (Some(kind), Some(v)) = (kind, o.word(o.i)) {
                let (name, value, text) = ext_operand(kind.kind, v);
                let at = word_at(o.at, o.i);
                let leaf = o.b.field(o.node, name, at, WORD, value);
                if name == "id" {
                    o.mark_id(leaf, v, true);
                }
                o.parts.push(text);
                o.i += 1;
                continue;
            }
        }
        let size = words_of(operand);
        let at = word_at(o.at, o.i);
        let raw = o.word(o.i).unwrap_or(0);
        let name = kind_name(operand);
        let (value, text) = match operand {
            O::IdRef(v) | O::IdScope(v) | O::IdMemorySemantics(v) => {
                let t = format!("%{v}");
                (Value::text(&t), t)
            }
            O::LiteralBit32(v) => (Value::uint(u64::from(*v)).with_width(4), v.to_string()),
            O::LiteralBit64(v) => (Value::uint(*v).with_width(8), v.to_string()),
            O::LiteralString(t) => (Value::str(t), quote(t)),
            O::LiteralExtInstInteger(v) => {
                let n = ext.map(|g| g.opname);
                (
                    Value::named(u64::from(*v), n),
                    n.map_or_else(|| v.to_string(), str::to_string),
                )
            }
            other => {
                let t = other.disassemble();
                (Value::named(u64::from(raw), Some(&t)), t)
            }
        };
        let leaf = o.b.leaf(o.node, name, at, WORD * size, value);
        if let O::IdRef(v) | O::IdScope(v) | O::IdMemorySemantics(v) = operand {
            o.mark_id(leaf, *v, true);
        }
        o.parts.push(text);
        o.i += size;
    }
    true
}

#[cfg(test)]
mod tests;
