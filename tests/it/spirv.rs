//! SPIR-V: the instruction stream against `spirv-dis` (SPIRV-Tools) for
//! modules that clang-22 and `spirv-as` write here and for the `.spv`
//! sections of the zebin samples: every instruction at the byte offset
//! spirv-dis gives, by the same opcode name, and with the operands
//! spirv-dis writes, in every section (capabilities to decorations by
//! fwview's own decoder, the rest by the grammar through rspirv,
//! extended instructions by their set's grammar, constants by their
//! type).

use crate::common;

use std::path::Path;
use std::process::Command;

use object::{Object, ObjectSection};
use serde_json::Value;

use common::json::{find, json_of_bytes, kids, name, off, size, val};

/// The groups of a module node that hold instructions, in file order.
const SECTIONS: [&str; 9] = [
    "capabilities",
    "extensions",
    "ext_inst_imports",
    "memory_model",
    "entry_points",
    "execution_modes",
    "debug",
    "decorations",
    "instructions",
];

/// One instruction as spirv-dis writes it: (byte offset, opcode name,
/// operands with the result id first, as fwview writes them).
type Line = (u64, String, String);

fn spirv_dis(file: &Path) -> Vec<Line> {
    let out = Command::new("spirv-dis")
        .args(["--raw-id", "--offsets", "--no-header", "--no-color"])
        .arg(file)
        .output()
        .expect("spirv-dis runs");
    assert!(
        out.status.success(),
        "spirv-dis {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with(';'))
        .map(|l| {
            let (ins, at) = l.rsplit_once(" ; 0x").expect("an offset comment");
            let at = u64::from_str_radix(at, 16).expect("a hex offset");
            let (result, rest) = match ins.split_once(" = ") {
                Some((r, rest)) if r.starts_with('%') => (Some(r), rest),
                _ => (None, ins),
            };
            let (op, operands) = rest.split_once(' ').unwrap_or((rest, ""));
            let operands = match result {
                Some(r) if operands.is_empty() => r.to_string(),
                Some(r) => format!("{r} {operands}"),
                None => operands.to_string(),
            };
            (at, op.to_string(), operands)
        })
        .collect()
}

/// The instruction nodes of the module node `m`, each with the section it
/// is in.
fn instructions(m: &Value) -> Vec<(&'static str, &Value)> {
    let mut v = Vec::new();
    let mut last = 0;
    for k in kids(m) {
        let Some(i) = SECTIONS.iter().position(|s| *s == name(k)) else {
            continue;
        };
        assert!(
            i >= last,
            "sections out of order: {} after {}",
            name(k),
            SECTIONS[last]
        );
        last = i;
        for ins in common::json::items(k) {
            v.push((SECTIONS[i], ins));
        }
    }
    v
}

/// Checks the module in `file`, whose node is `m` (offsets in the tree
/// are `base` plus those in the module).
fn check_module(file: &Path, m: &Value, base: u64) {
    let dis = spirv_dis(file);
    check_links(file);
    let ours = instructions(m);
    assert_eq!(
        ours.len(),
        dis.len(),
        "{}: instruction count",
        file.display()
    );
    let data = std::fs::read(file).unwrap();
    for ((_, node), (at, op, operands)) in ours.iter().zip(&dis) {
        let what = format!("{} at 0x{at:x}", file.display());
        assert_eq!(off(node), base + at, "{what}: offset");
        assert_eq!(name(node), op, "{what}: opcode name");
        let words = u64::from(u16::from_le_bytes([
            data[*at as usize + 2],
            data[*at as usize + 3],
        ]));
        assert_eq!(size(node), 4 * words, "{what}: size");
        let wc = find(node, "word_count").expect("a word_count leaf");
        assert_eq!(common::json::lead(val(wc)), words, "{what}: word_count");
        let ours = val(node);
        let agree = same_operands(ours, operands);
        assert!(
            agree,
            "{what}: {op} operands {ours:?}, spirv-dis {operands:?}"
        );
    }
    // The summaries name what spirv-dis lists.
    let caps: Vec<&str> = dis
        .iter()
        .filter(|l| l.1 == "OpCapability")
        .map(|l| l.2.as_str())
        .collect();
    if let Some(c) = find(m, "capabilities") {
        if caps.len() <= 8 {
            let ours = val(c).replace(", ", " ");
            assert!(same_operands(&ours, &caps.join(" ")), "{ours:?} {caps:?}");
        }
    }
    let eps: Vec<String> = dis
        .iter()
        .filter(|l| l.1 == "OpEntryPoint")
        .map(|l| {
            let mut w = l.2.split(' ');
            let model = w.next().unwrap();
            let name = l.2.split('"').nth(1).unwrap();
            format!("{model} {name}")
        })
        .collect();
    if !eps.is_empty() && eps.len() <= 8 {
        assert_eq!(val(find(m, "entry_points").unwrap()), eps.join(", "));
    }
}

/// The vendor suffixes of enumerant names.
const VENDORS: [&str; 5] = ["KHR", "EXT", "INTEL", "NV", "AMD"];

/// Whether two operand texts agree, word by word, where a name may differ
/// in its vendor suffix alone: an enumerant promoted from one vendor's
/// extension to another's keeps its value and its stem (the SPIR-V
/// grammar of this spirv-dis says `OptNoneINTEL`, a newer one
/// `OptNoneEXT`).
fn same_operands(a: &str, b: &str) -> bool {
    let stem = |w: &str| -> String {
        for v in VENDORS {
            if let Some(s) = w.strip_suffix(v) {
                return s.to_string();
            }
        }
        w.to_string()
    };
    let (wa, wb): (Vec<&str>, Vec<&str>) = (a.split(' ').collect(), b.split(' ').collect());
    wa.len() == wb.len()
        && wa
            .iter()
            .zip(&wb)
            .all(|(x, y)| x == y || stem(x) == stem(y))
}

/// Where spirv-dis says each result id is defined (the offset of the line
/// `%n = …`), and the names its `OpName` lines give ids.
type Defs = std::collections::HashMap<u32, u64>;
type Names = std::collections::HashMap<u32, String>;

fn spirv_dis_defs(file: &Path) -> (Defs, Names) {
    let out = Command::new("spirv-dis")
        .args(["--raw-id", "--offsets", "--no-header", "--no-color"])
        .arg(file)
        .output()
        .expect("spirv-dis runs");
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    let mut defs = Defs::new();
    let mut names = Names::new();
    for l in text.lines() {
        let Some((ins, at)) = l.trim().rsplit_once(" ; 0x") else {
            continue;
        };
        if let Some(rest) = ins.strip_prefix("OpName %") {
            let (id, name) = rest.split_once(' ').unwrap();
            let name = name.trim_matches('"').to_string();
            names.entry(id.parse().unwrap()).or_insert(name);
        }
        if let Some((result, _)) = ins.split_once(" = ") {
            if let Some(id) = result.strip_prefix('%').and_then(|r| r.parse().ok()) {
                defs.insert(id, u64::from_str_radix(at, 16).unwrap());
            }
        }
    }
    (defs, names)
}

/// Every operand leaf that holds one id (`%n`), but a result, links to
/// the instruction that defines it, where spirv-dis places that
/// instruction; an id the module never defines links nowhere. Every id
/// leaf shows the name an `OpName` gives the id, and no other. For a file
/// that is a module (offset 0).
fn check_links(file: &Path) {
    let data = std::fs::read(file).unwrap();
    if !data.starts_with(&[0x03, 0x02, 0x23, 0x07]) {
        return;
    }
    let (defs, names) = spirv_dis_defs(file);
    let mut t = fwview::formats::build_from_bytes(data.clone());
    let mut stack = vec![t.root()];
    let (mut checked, mut linked) = (0, 0);
    while let Some(id) = stack.pop() {
        let kids = t.children(id);
        stack.extend(kids.iter().copied());
        if !kids.is_empty() || t.name(id) == "result" {
            continue;
        }
        let Some(v) = t.value_text(id) else { continue };
        let (head, named) = v.split_once(' ').unwrap_or((&v, ""));
        let Some(n) = head.strip_prefix('%').and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        checked += 1;
        // The id's name, as OpName gives it, follows it.
        let want_name = names.get(&n).map(|x| format!("({x})")).unwrap_or_default();
        assert_eq!(named, want_name, "{}: %{n}", file.display());
        let got = t.link(id);
        match defs.get(&n) {
            Some(&at) => {
                let wc = u16::from_le_bytes([data[at as usize + 2], data[at as usize + 3]]);
                let l = got.unwrap_or_else(|| {
                    panic!(
                        "{}: %{n} ({} under {}) links nowhere",
                        file.display(),
                        t.name(id),
                        t.path_string(id)
                    )
                });
                assert_eq!(
                    (l.offset, l.len),
                    (at, 4 * u64::from(wc)),
                    "{}: %{n}",
                    file.display()
                );
                linked += 1;
            }
            None => assert!(got.is_none(), "{}: %{n} is never defined", file.display()),
        }
    }
    assert!(
        linked > 10,
        "{}: {checked} ids, {linked} linked",
        file.display()
    );
}

/// Every byte of `m` lies in exactly one leaf (children in file order,
/// no overlaps, no holes).
fn covered(m: &Value) {
    let ch = m["children"].as_array().unwrap();
    if ch.is_empty() {
        return;
    }
    let mut at = off(m);
    for k in ch {
        assert_eq!(
            off(k),
            at,
            "hole or overlap before {} under {}",
            name(k),
            name(m)
        );
        at += size(k);
        covered(k);
    }
    assert_eq!(at, off(m) + size(m), "hole at the end of {}", name(m));
}

fn module_json(file: &Path) -> Value {
    let j = json_of_bytes(std::fs::read(file).unwrap());
    assert!(
        common::json::errors(&j).is_empty(),
        "{}: {:?}",
        file.display(),
        common::json::errors(&j)
    );
    j
}

const KERNELS: &str = r#"
typedef struct { int a; float b[3]; } S;
__kernel void add(__global int *a, __global const int *b, int n) {
    int i = get_global_id(0);
    if (i < n) a[i] += b[i];
}
__kernel __attribute__((reqd_work_group_size(8, 1, 1)))
void scale(__global float *a, float s) { a[get_global_id(0)] *= s; }
__kernel void k(__global S *s, __local float *l, image2d_t img) {
    int i = get_global_id(0);
    l[i] = s[i].b[1];
    s[i].a = atomic_add(&s[0].a, 1);
    barrier(CLK_LOCAL_MEM_FENCE);
}
"#;

/// A module written by hand in the assembler's text, with the instructions
/// of the first sections that the compilers here do not write.
const ASSEMBLY: &str = r#"
OpCapability Shader
OpCapability Linkage
OpCapability Int64
OpCapability Float64
OpExtension "SPV_KHR_storage_buffer_storage_class"
%1 = OpExtInstImport "GLSL.std.450"
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main" %gid
OpExecutionMode %main LocalSize 64 1 1
%str = OpString "shader.comp"
OpSource GLSL 450 %str "void main() {}"
OpSourceExtension "GL_EXT_quoted \"x\""
OpName %main "main"
OpName %S "S"
OpMemberName %S 0 "count"
OpMemberName %S 1 "data"
OpModuleProcessed "client vulkan100"
OpDecorate %gid BuiltIn GlobalInvocationId
OpDecorate %S Block
OpMemberDecorate %S 0 Offset 0
OpMemberDecorate %S 1 Offset 4
OpDecorate %buf DescriptorSet 0
OpDecorate %buf Binding 1
%grp = OpDecorationGroup
OpGroupDecorate %grp %buf
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%v3 = OpTypeVector %uint 3
%S = OpTypeStruct %uint %uint
%pS = OpTypePointer StorageBuffer %S
%buf = OpVariable %pS StorageBuffer
%pin = OpTypePointer Input %v3
%gid = OpVariable %pin Input
%int = OpTypeInt 32 1
%long = OpTypeInt 64 1
%ulong = OpTypeInt 64 0
%float = OpTypeFloat 32
%double = OpTypeFloat 64
%c1 = OpConstant %int -7
%c2 = OpConstant %long -5000000000
%c3 = OpConstant %ulong 18446744073709551615
%c4 = OpConstant %float 0.1
%c5 = OpConstant %double 1e300
%c6 = OpConstant %float 0x1p+128
%c7 = OpConstant %float -0x1.8p+128
%c8 = OpConstant %float 1e-10
%c9 = OpConstant %double 123456.789
%c10 = OpConstant %double -0.0
%c11 = OpSpecConstant %uint 42
%c12 = OpConstant %int 2147483647
%main = OpFunction %void None %fn
%l = OpLabel
%sq = OpExtInst %float %1 Sqrt %c4
%mx = OpExtInst %float %1 FMax %c4 %c8
OpReturn
OpFunctionEnd
"#;

#[test]
fn modules_written_here_match_spirv_dis() {
    if !common::tool("spirv-dis") {
        return;
    }
    let dir = common::scratch();
    let mut files = Vec::new();
    if common::tool("clang-22") {
        let src = dir.path().join("k.cl");
        std::fs::write(&src, KERNELS).unwrap();
        let spv = dir.path().join("k.spv");
        let st = Command::new("clang-22")
            .args(["--target=spirv64", "-cl-std=CL2.0", "-c", "-o"])
            .arg(&spv)
            .arg(&src)
            .status()
            .unwrap();
        assert!(st.success(), "clang-22 --target=spirv64");
        files.push(spv);
    }
    if common::tool("spirv-as") {
        let src = dir.path().join("m.spvasm");
        std::fs::write(&src, ASSEMBLY).unwrap();
        let spv = dir.path().join("m.spv");
        let st = Command::new("spirv-as")
            .args(["--target-env", "spv1.3", "-o"])
            .arg(&spv)
            .arg(&src)
            .status()
            .unwrap();
        assert!(st.success(), "spirv-as");
        files.push(spv);
    }
    for f in &files {
        let j = module_json(f);
        assert_eq!(j["format"], "spirv", "{}", f.display());
        check_module(f, &j["root"], 0);
        covered(&j["root"]);
    }
}

#[test]
fn zebin_spv_sections_match_spirv_dis() {
    if !common::tool("spirv-dis") {
        return;
    }
    let dir = common::scratch();
    let mut seen = 0;
    for p in common::samples_in("zebin/generated_locally", "bin") {
        let d = std::fs::read(&p).unwrap();
        let obj = object::File::parse(&*d).unwrap();
        let Some(s) = obj.section_by_name(".spv") else {
            continue;
        };
        let (start, _) = s.file_range().unwrap();
        let spv = dir.path().join("s.spv");
        std::fs::write(&spv, s.data().unwrap()).unwrap();
        let j = module_json(&p);
        let node = spv_node(&j["root"], start)
            .unwrap_or_else(|| panic!("{}: no SPIR-V node at 0x{start:x}", p.display()));
        check_module(&spv, node, start);
        seen += 1;
    }
    assert!(seen >= 5, "the zebin samples carry .spv sections");
}

/// The node at `at` that holds a decoded module (its `capabilities` group).
fn spv_node(n: &Value, at: u64) -> Option<&Value> {
    if off(n) == at && find(n, "capabilities").is_some() {
        return Some(n);
    }
    n["children"]
        .as_array()?
        .iter()
        .find_map(|k| spv_node(k, at))
}

/// A module with its words in big-endian order decodes as the same
/// instructions: strings stay packed from each word's lowest-order byte
/// (SPIR-V specification 2.2.1), so swapping each word gives a valid
/// big-endian module.
#[test]
fn big_endian_module_reads_as_little_endian_one() {
    if !common::tool("spirv-as") {
        return;
    }
    let dir = common::scratch();
    let src = dir.path().join("m.spvasm");
    std::fs::write(&src, ASSEMBLY).unwrap();
    let spv = dir.path().join("m.spv");
    let st = Command::new("spirv-as")
        .args(["-o"])
        .arg(&spv)
        .arg(&src)
        .status()
        .unwrap();
    assert!(st.success());
    let le = std::fs::read(&spv).unwrap();
    let be: Vec<u8> = le
        .chunks(4)
        .flat_map(|c| [c[3], c[2], c[1], c[0]])
        .collect();
    let (jl, jb) = (json_of_bytes(le), json_of_bytes(be));
    let (rl, rb) = (&jl["root"], &jb["root"]);
    assert!(val(find(rb, "magic").unwrap()).contains("big-endian"));
    let (a, b) = (instructions(rl), instructions(rb));
    assert_eq!(a.len(), b.len());
    for ((sa, na), (sb, nb)) in a.iter().zip(&b) {
        assert_eq!(
            (sa, name(na), val(na), off(na)),
            (sb, name(nb), val(nb), off(nb))
        );
    }
    covered(rb);
}

/// A module cut inside an instruction, one with a word count of zero, and
/// one whose size is not a multiple of four: each an error or warning at
/// its offset, every byte still in a leaf.
#[test]
fn broken_streams() {
    let mut m = Vec::new();
    for w in [0x0723_0203u32, 0x0001_0000, 0, 10, 0] {
        m.extend(w.to_le_bytes());
    }
    // OpCapability Shader, OpMemoryModel Logical GLSL450.
    for w in [0x0002_0011u32, 1, 0x0003_000e, 0, 1] {
        m.extend(w.to_le_bytes());
    }
    let good = m.len() as u64;
    // OpName claiming 9 words, with 2 present.
    let mut cut = m.clone();
    for w in [0x0009_0005u32, 1] {
        cut.extend(w.to_le_bytes());
    }
    let j = json_of_bytes(cut.clone());
    let errs = common::json::located(&j, "error");
    assert!(
        errs.iter()
            .any(|(o, t)| *o == good && t.contains("OpName") && t.contains("past the end")),
        "{errs:?}"
    );
    assert_eq!(off(find(&j["root"], "undecoded").unwrap()), good);
    covered(&j["root"]);
    let mut zero = m.clone();
    zero.extend(0x0000_0005u32.to_le_bytes());
    let j = json_of_bytes(zero);
    assert!(common::json::located(&j, "error")
        .iter()
        .any(|(o, t)| *o == good && t.contains("word count 0")));
    covered(&j["root"]);
    let mut odd = m.clone();
    odd.extend([1, 2]);
    let j = json_of_bytes(odd);
    assert_eq!(size(find(&j["root"], "trailing").unwrap()), 2);
    assert!(common::json::has_diag(&j, "warning", "not a multiple of 4"));
    covered(&j["root"]);
    assert_eq!(
        val(find(&json_of_bytes(m)["root"], "capabilities").unwrap()),
        "Shader"
    );
}

/// Sections that alternate out of order make at most 64 lists; the rest
/// of the instructions join the last.
#[test]
fn alternating_sections_stay_bounded() {
    let mut m = Vec::new();
    for w in [0x0723_0203u32, 0x0001_0000, 0, 10, 0] {
        m.extend(w.to_le_bytes());
    }
    // OpCapability Shader, OpExtension "a": 500 times each, alternating.
    for _ in 0..500 {
        for w in [0x0002_0011u32, 1, 0x0002_000a, 0x61] {
            m.extend(w.to_le_bytes());
        }
    }
    let j = json_of_bytes(m);
    let r = &j["root"];
    let lists: Vec<&Value> = kids(r)
        .into_iter()
        .filter(|k| SECTIONS.contains(&name(k)))
        .collect();
    assert!(lists.len() <= 64, "{} lists", lists.len());
    assert_eq!(name(lists[lists.len() - 1]), "instructions");
    let all: usize = lists.iter().map(|l| common::json::items(l).len()).sum();
    assert_eq!(all, 1000);
    assert!(common::json::has_diag(
        &j,
        "warning",
        "out of the logical layout order"
    ));
    covered(r);
}

/// Every opcode of the grammar, alone and inside OpSpecConstantOp, with 0
/// to 8 operand words of 0, 1 or all ones: the tree and its JSON build
/// without a panic (the grammar decoder hands such words to rspirv, whose
/// nested reader panics on some kinds; those instructions stay words).
#[test]
fn every_opcode_with_any_words_survives() {
    let mut n = 0;
    for g in rspirv::grammar::INSTRUCTION_TABLE.iter() {
        let op = g.opcode as u32;
        for extra in 0..=8u32 {
            for fill in [0u32, 1, u32::MAX] {
                let body = |op: u32, words: &[u32]| {
                    let mut w = vec![((words.len() as u32 + 1) << 16) | op];
                    w.extend_from_slice(words);
                    w
                };
                let operands = vec![fill; extra as usize];
                let mut inner = vec![7, 8, op];
                inner.extend_from_slice(&operands);
                for ins in [body(op, &operands), body(52, &inner)] {
                    let mut words = vec![0x0723_0203, 0x0001_0600, 0, 100, 0];
                    // Types the constants can find.
                    words.extend([(4 << 16) | 21, 7, 32, 1]);
                    words.extend(ins);
                    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
                    let mut tree = fwview::formats::build_from_bytes(bytes);
                    fwview::export::json(&mut tree, "m", &mut std::io::sink()).unwrap();
                    n += 1;
                }
            }
        }
    }
    assert!(n > 10_000, "{n} modules");
}
