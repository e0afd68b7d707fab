//! The command line: open a file, then explore it or print it.

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;

use fwview::model::{printed_address, text, Options, Source, Tree};
use fwview::{export, formats, tui};

/// Explore accelerator and firmware binaries, structure and bytes together:
/// AMD/Xilinx XCLBIN, PDI and CDO, XMOS XE, Intel zebin, CUDA fatbins, clang
/// offload bundles and LLVM offload binaries, AMDGPU code objects, PTX,
/// SPIR-V, LLVM bitcode, ELF with DWARF, ar archives; machine code as
/// instructions.
#[derive(Parser, Debug)]
#[command(
    name = "fwview",
    version,
    about,
    long_about = None,
    override_usage = "fwview [OPTIONS] <FILE> [OTHER]\n       fwview [OPTIONS] <DIR>\n       fwview --targets [--json] <PATH>...\n       fwview --find <PATTERN> <PATH>...\n       fwview --diff [--json] <DIR_A> <DIR_B>\n       fwview --completions <SHELL>\n       fwview --man"
)]
struct Cli {
    /// The file to open; a directory opens as a list of its files
    /// (recursively, as --targets reads them) to explore one by one.
    #[arg(required_unless_present_any = ["completions", "man"])]
    file: Option<PathBuf>,

    /// A second file: FILE and OTHER side by side (with --diff, printed).
    other: Option<PathBuf>,

    /// More files and directories, for --targets and --find.
    #[arg(value_name = "PATH")]
    more: Vec<PathBuf>,

    /// With --targets, --find and --diff over directories: follow symbolic
    /// links below them too (those given are always followed).
    #[arg(long)]
    follow: bool,

    /// Compare FILE with OTHER node by node and print one line a change
    /// (`~ PATH: OLD -> NEW`, `+ PATH`, `- PATH`; with --json, a list of
    /// records). Two directories: files paired by relative path, `added:`,
    /// `removed:` and `changed:` with the changes below. Exits 0 when they
    /// are the same, 1 when they differ, 2 on trouble.
    #[arg(long, requires = "other", conflicts_with_all = ["tree", "extract", "find"])]
    diff: bool,

    /// With --diff: also report changes of raw numbers only, such as a
    /// string table offset that moved while the name it points at reads
    /// the same (`st_name: 2124 ".x" -> 2125 ".x"`); left out by default.
    #[arg(long, requires = "diff")]
    raw_changes: bool,

    /// Print the whole tree as one JSON document and exit.
    #[arg(long, conflicts_with_all = ["tree", "extract"])]
    json: bool,

    /// Print the whole tree as indented text, one node a line, and exit.
    /// Diagnostics go to standard error.
    #[arg(long, conflicts_with = "extract")]
    tree: bool,

    /// Write the bytes of the node at PATH (names joined by `/`, as --tree
    /// shows them; `/` alone is the whole file) to the file given with -o.
    #[arg(long, value_name = "PATH", requires = "output", value_parser = node_path)]
    extract: Option<String>,

    /// Start at the node at PATH (an address as --tree and --find n: give
    /// them): --tree and --json print only it and what it holds (with the
    /// diagnostics that start in its bytes), and the explorer opens with it
    /// selected. With --code, `--tree --code --at .../.text/KERNEL`
    /// decodes that one function.
    #[arg(
        long,
        value_name = "PATH",
        value_parser = node_path,
        conflicts_with_all = ["extract", "find", "targets", "diff", "other"]
    )]
    at: Option<String>,

    /// Where --extract writes (`-` for standard output).
    #[arg(short, long, value_name = "OUT", requires = "extract")]
    output: Option<PathBuf>,

    /// Let --extract replace an existing file, or write to a terminal.
    #[arg(long, requires = "extract")]
    force: bool,

    /// Print the offset of every match of PATTERN, one a line in hex, and
    /// exit: `text`, `x:7f 45 ?? 46` (hex bytes, ?? any byte) or `n:text`
    /// (node names and values), as the explorer's `/` takes them. Exits 0
    /// when something matched, 1 when nothing did, 2 on trouble (a bad
    /// pattern; no file could be read). Several paths or a directory:
    /// `FILE:0xOFFSET` lines, files in path order.
    #[arg(long, value_name = "PATTERN", conflicts_with_all = ["json", "tree", "extract"])]
    find: Option<String>,

    /// Print every device image found at any depth (GPU code; what an
    /// xclbin configures: its AIE partitions or FPGA platform; an XE's tile
    /// programs), one a line (format, target, kind, address; with --json a
    /// list of objects), and exit: 0
    /// when at least one was found, 1 when none. Several paths or a
    /// directory (read recursively, in parallel): the file first on each
    /// line, with --json one object a line (JSON Lines), a summary on
    /// standard error, and 2 when no file could be read.
    #[arg(long, conflicts_with_all = ["tree", "extract", "find", "diff"])]
    targets: bool,

    /// Show machine code as instructions in --tree, --json, --find and
    /// --diff: executable sections and their functions open into one node
    /// per instruction (decoded by a libLLVM found at run time, Intel GT
    /// code by Intel's libiga64; set FWVIEW_LLVM or FWVIEW_IGA to point at
    /// one). The explorer always shows them.
    #[arg(long)]
    code: bool,

    /// The assembly dialect x86 code is shown in: `att` (as objdump
    /// prints, the default) or `intel` (as `llvm-objdump -M intel`); also
    /// FWVIEW_X86_SYNTAX. In --tree, --json, --find, --diff and the
    /// explorer.
    #[arg(long, value_name = "SYNTAX", value_parser = ["att", "intel"])]
    x86_syntax: Option<String>,

    /// The xclbin whose kernel an NPU transaction or instruction sequence
    /// runs: its DDR_PATCH ops name the kernel argument they patch by its
    /// name in the xclbin's metadata. Without it, the .xclbin beside the
    /// file with the same stem is used, or else the only .xclbin there.
    #[arg(long, value_name = "FILE")]
    xclbin: Option<PathBuf>,

    /// With --find: text matches letters of either case.
    #[arg(short = 'i', long, requires = "find")]
    ignore_case: bool,

    /// Print a completion script for SHELL and exit (e.g. `source <(fwview
    /// --completions bash)`).
    #[arg(long, value_name = "SHELL", exclusive = true)]
    completions: Option<clap_complete::Shell>,

    /// Print the manual page (roff) and exit (`fwview --man | man -l -`).
    #[arg(long, exclusive = true)]
    man: bool,

    /// Read FILE as the Kaitai Struct description KSY (a `.ksy`) says,
    /// interpreted at run time. Its imports are found beside it, and
    /// absolute ones (`/common/x`) in the formats folders.
    #[arg(long, value_name = "KSY")]
    ksy: Option<PathBuf>,

    /// A folder of `.ksy` descriptions that join detection (besides
    /// `$XDG_CONFIG_HOME/fwview/formats`): one whose first attribute has
    /// `contents` opens files and payloads that start with those bytes.
    #[arg(long, value_name = "DIR")]
    formats: Option<PathBuf>,

    /// Colours in the explorer: auto (none when NO_COLOR is set), always
    /// or never.
    #[arg(long, value_name = "WHEN", default_value = "auto", value_parser = ["auto", "always", "never"])]
    color: String,
}

/// An `--extract` PATH: an address as `--tree` and `--find n:` give them.
/// The empty string is refused rather than taken for the whole file, which
/// is spelt `/`: an unset shell variable must not extract everything.
fn node_path(s: &str) -> Result<String, String> {
    if s.is_empty() {
        return Err("an empty PATH names no node; the whole file is `/`".into());
    }
    Ok(s.to_string())
}

/// `--completions SHELL` and `--man`: made from the definition above, so
/// they always list the options this build has.
fn generated(cli: &Cli) -> Option<ExitCode> {
    use clap::CommandFactory;
    let mut out = Vec::new();
    if let Some(shell) = cli.completions {
        clap_complete::generate(shell, &mut Cli::command(), "fwview", &mut out);
    } else if cli.man {
        if let Err(e) = clap_mangen::Man::new(Cli::command()).render(&mut out) {
            eprintln!("fwview: {e}");
            return Some(ExitCode::from(1));
        }
        out.extend_from_slice(man_extra().as_bytes());
    } else {
        return None;
    }
    let stdout = io::stdout();
    let mut lock = stdout.lock();
    match lock.write_all(&out).and_then(|_| lock.flush()) {
        Ok(()) => Some(ExitCode::SUCCESS),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Some(ExitCode::SUCCESS),
        Err(e) => {
            eprintln!("fwview: {e}");
            Some(ExitCode::from(1))
        }
    }
}

/// The manual's sections after the options: the explorer's keys (from the
/// one key table), exit status, environment and files. The `roff` crate
/// (the one clap_mangen writes with) escapes the text.
fn man_extra() -> String {
    use roff::{roman, Roff};
    let plain = tui::keys::plain;
    // A tagged paragraph: the tag on its line, the text under it.
    fn tp(r: &mut Roff, tag: &str, text: &str) {
        r.control("TP", []).text([roman(tag)]).text([roman(text)]);
    }
    let mut r = Roff::new();
    r.control("SH", ["KEYS"])
        .text([roman("In the explorer (also in docs/keys.md):")]);
    for (k, d) in tui::keys::KEYS {
        tp(&mut r, &plain(k), &plain(d));
    }
    r.control("SH", ["EXIT STATUS"]);
    for (c, d) in [
        ("0", "success: a file read (diagnostics in it are still a success); --find matched; --targets found an image; --diff found the files the same"),
        ("1", "an I/O error (a missing file, a directory where one file is read, no permission, an --extract output that exists or cannot be written); --find matched nothing; --targets found no image; --diff found a difference"),
        ("2", "a usage error (a bad option or pattern, an --extract path with no node, a flag that takes one file given two); over many files, no file could be read; --diff could not compare"),
    ] {
        tp(&mut r, c, d);
    }
    r.control("SH", ["ENVIRONMENT"]);
    for (k, d) in [
        (
            fwview::disasm::ENV_LLVM,
            "the libLLVM to decode instructions with (else the newest found under /usr/lib/llvm-N, /opt/rocm/llvm, then by soname)",
        ),
        (
            fwview::disasm::ENV_IGA,
            "the libiga64 to decode Intel GT instructions with (else by soname, then in the usual library folders)",
        ),
        (
            fwview::disasm::ENV_X86_SYNTAX,
            "att or intel: the assembly dialect of x86 code, as --x86-syntax",
        ),
        (
            fwview::disasm::worker::ENV_IN_PROCESS,
            "1 keeps instruction decoders in fwview's own process instead of a worker process",
        ),
        (
            "FWVIEW_THREADS",
            "how many threads --tree and --json use on files over 8 MiB (default: one a core, at most 8)",
        ),
        ("NO_COLOR", "set and not empty: no colours (as --color never)"),
    ] {
        tp(&mut r, k, d);
    }
    r.control("SH", ["FILES"]);
    tp(
        &mut r,
        "$XDG_STATE_HOME/fwview/marks (else ~/.local/state/fwview/marks)",
        "the explorer's marks, kept by file",
    );
    r.render()
}

fn fail(path: &std::path::Path, msg: impl std::fmt::Display) -> ExitCode {
    let p = text::from_bytes(path.as_os_str().as_encoded_bytes());
    let p = text::clean(&p);
    eprintln!("fwview: {p}: {}", text::clean(&msg.to_string()));
    ExitCode::from(1)
}

/// `--find`: every match, one a line: its offset in hex (`K:0x…` in a
/// derived space K); node matches add two spaces and the node's address.
/// `--find` in one file: the number of matches printed.
fn find(tree: &mut fwview::model::Tree, pattern: &str, case_sensitive: bool) -> io::Result<u64> {
    let pat = fwview::search::Pattern::parse(pattern, case_sensitive)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let n = export::find_matches(tree, &pat, "", &mut out)?;
    out.flush()?;
    Ok(n)
}

/// After output from a mapped file: if the file shrank while it was read,
/// the bytes past its new end were shown as zeros. Say so, and fail.
fn changed(path: &std::path::Path, ok: ExitCode) -> ExitCode {
    #[cfg(unix)]
    if fwview::guard::file_changed() {
        return fail(
            path,
            "the file shrank while it was read; the bytes past its new end were read as zeros",
        );
    }
    let _ = path;
    ok
}

/// clap's messages quote the arguments they reject, and on a terminal they
/// would pass a control sequence in an argument (a file name from `fwview *`,
/// say) through as it is. When an argument holds anything unsafe, the
/// message is printed plain instead, every line made safe.
fn usage_error(e: clap::Error) -> ExitCode {
    let risky = std::env::args_os().any(|a| {
        let b = a.as_encoded_bytes();
        std::str::from_utf8(b).map_or(true, |s| s.chars().any(text::is_unsafe))
    });
    if !risky {
        e.exit();
    }
    let msg = e.render().to_string();
    let safe: Vec<_> = msg.lines().map(text::clean).collect();
    let safe = safe.join("\n");
    if e.use_stderr() {
        eprintln!("{safe}");
    } else {
        println!("{safe}");
    }
    ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2))
}

/// The root's name when the file is standard input (`-`).
const STDIN: &str = "stdin";

/// Opens a file and parses it with `options`, or says why not.
fn open(
    path: &std::path::Path,
    options: Options,
    xclbin: Option<&std::path::Path>,
) -> Result<(fwview::model::Tree, String), ExitCode> {
    let src = match Source::open_named(path) {
        Ok(s) => Arc::new(s),
        Err(e) => return Err(fail(path, e)),
    };
    let (options, _) = fwview::pairing::with_xclbin(path, src.bytes(), xclbin, options);
    let shown = path.display().to_string();
    let name = if path.as_os_str() == "-" {
        STDIN.to_string()
    } else {
        path.file_name()
            .map(|n| text::from_bytes(n.as_encoded_bytes()))
            .unwrap_or_else(|| shown.clone())
    };
    Ok((formats::build_tree_with(src, &name, options), shown))
}

/// What the explorer shows: everything, instructions included.
const EXPLORER: Options = Options {
    code: true,
    arg_names: None,
    nested_only: false,
};

/// What `--diff` reports besides changes of meaning.
fn changes(cli: &Cli) -> fwview::diff::Options {
    fwview::diff::Options {
        raw: cli.raw_changes,
    }
}

/// `--diff A B`: 0 same, 1 different, 2 trouble.
fn diff(cli: &Cli, file: &std::path::Path, other: &std::path::Path) -> ExitCode {
    let trouble = |c: ExitCode| {
        if c == ExitCode::SUCCESS {
            c
        } else {
            ExitCode::from(2)
        }
    };
    let options = Options {
        code: cli.code,
        arg_names: None,
        nested_only: false,
    };
    let (mut a, _) = match open(file, options, cli.xclbin.as_deref()) {
        Ok(t) => t,
        Err(c) => return trouble(c),
    };
    let (mut b, _) = match open(other, options, cli.xclbin.as_deref()) {
        Ok(t) => t,
        Err(c) => return trouble(c),
    };
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let r = if cli.json {
        export::diff_json(&mut a, &mut b, changes(cli), &mut out)
    } else {
        export::diff_text(&mut a, &mut b, changes(cli), &mut out)
    };
    match r.and_then(|c| out.flush().map(|_| c)) {
        Ok(c) if c.is_empty() => ExitCode::SUCCESS,
        Ok(_) => ExitCode::from(1),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::from(1),
        Err(e) => {
            let _ = fail(file, e);
            ExitCode::from(2)
        }
    }
}

/// The modes over many files: `--targets` and `--find` given several paths
/// or a directory, `--diff` given two directories. None for one file.
fn many(cli: &Cli, file: &std::path::Path) -> Option<ExitCode> {
    use fwview::folders::{self, Outcome};
    let mut paths = vec![file.to_path_buf()];
    paths.extend(cli.other.iter().cloned());
    paths.extend(cli.more.iter().cloned());
    if !cli.more.is_empty() && !cli.targets && cli.find.is_none() {
        use clap::CommandFactory;
        let extra = cli.more.first().map(|p| p.display().to_string());
        return Some(usage_error(Cli::command().error(
            clap::error::ErrorKind::UnknownArgument,
            format!(
                "unexpected argument '{}' found (more than two paths are taken by --targets and --find only)",
                extra.unwrap_or_default()
            ),
        )));
    }
    // --targets reads only what may hold an image; --find and --diff
    // read every node.
    let options = Options {
        code: cli.code,
        arg_names: None,
        nested_only: cli.targets && cli.find.is_none() && !cli.diff,
    };
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let r = if cli.diff {
        let other = cli.other.as_deref()?;
        match (file.is_dir(), other.is_dir()) {
            (false, false) => return None,
            (true, true) => folders::diff(
                file,
                other,
                cli.json,
                cli.follow,
                options,
                changes(cli),
                &mut out,
            ),
            (a, _) => {
                let not = if a { other } else { file };
                let why = match std::fs::metadata(not) {
                    Err(e) => e.to_string(),
                    Ok(_) => "is not a directory (--diff compares two files or two directories)"
                        .to_string(),
                };
                eprintln!("fwview: {}: {}", folders::shown(not), text::clean(&why));
                return Some(ExitCode::from(2));
            }
        }
    } else if (cli.targets || cli.find.is_some()) && (paths.len() > 1 || file.is_dir()) {
        if let Some(p) = &cli.find {
            let pat = match fwview::search::Pattern::parse(p, !cli.ignore_case) {
                Ok(p) => p,
                Err(e) => {
                    eprintln!("fwview: {}", text::clean(&e));
                    return Some(ExitCode::from(2));
                }
            };
            folders::find(&paths, &pat, cli.follow, options, &mut out)
        } else {
            folders::targets(&paths, cli.json, cli.follow, options, &mut out)
        }
    } else {
        return None;
    };
    Some(match r {
        Ok(Outcome::Ok) => ExitCode::SUCCESS,
        Ok(Outcome::No) => ExitCode::from(1),
        Ok(Outcome::Trouble) => ExitCode::from(2),
        // A closed pipe (`| head`) stops the scan without a message.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fwview: {}", text::clean(&e.to_string()));
            ExitCode::from(2)
        }
    })
}

/// `fwview A B`: the two trees side by side.
fn side_by_side(cli: &Cli, file: &std::path::Path, other: &std::path::Path) -> ExitCode {
    let (a, _) = match open(file, EXPLORER, cli.xclbin.as_deref()) {
        Ok(t) => t,
        Err(c) => return c,
    };
    let (b, _) = match open(other, EXPLORER, cli.xclbin.as_deref()) {
        Ok(t) => t,
        Err(c) => return c,
    };
    match tui::sidebyside::run(a, b, (file.to_path_buf(), other.to_path_buf())) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(file, e),
    }
}

/// The folders `.ksy` descriptions are taken from: `--formats`, then
/// `$XDG_CONFIG_HOME/fwview/formats` (else `~/.config/fwview/formats`).
fn formats_dirs(cli: &Cli) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = cli.formats.iter().cloned().collect();
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")));
    if let Some(c) = config {
        dirs.push(c.join("fwview").join("formats"));
    }
    dirs
}

/// Reads the `.ksy` descriptions (`--ksy`, the formats folders) and sets
/// them for the process; an exit code when `--ksy` cannot be read.
fn descriptions(cli: &Cli) -> Option<ExitCode> {
    let dirs = formats_dirs(cli);
    let mut installed = formats::ksy::Installed::default();
    if let Some(k) = &cli.ksy {
        let mut search = dirs.clone();
        if let Some(d) = k.parent() {
            search.push(d.to_path_buf());
        }
        match formats::ksy::load(k, &search) {
            Ok(s) => installed.forced = Some(s),
            Err(errors) => {
                for e in errors {
                    eprintln!("fwview: {}", text::clean(&e));
                }
                return Some(ExitCode::from(2));
            }
        }
    }
    for d in &dirs {
        let (specs, errors) = formats::ksy::load_dir(d, &dirs);
        for e in errors {
            eprintln!("fwview: warning: {}", text::clean(&e));
        }
        installed.detected.extend(specs);
        let (bound, errors) = formats::ksy::bind::load(d, &dirs, formats::xclbin::kind::ALL);
        for e in errors {
            eprintln!("fwview: warning: {}", text::clean(&e));
        }
        installed.bound.extend(bound);
    }
    installed.folders = dirs;
    formats::ksy::install(installed);
    None
}

fn main() -> ExitCode {
    if let Some(code) = fwview::disasm::worker::serve_if_asked() {
        return code;
    }
    // Decoders run apart, in this executable started again: one that
    // crashes on a file's bytes does not end fwview.
    if let Ok(exe) = std::env::current_exe() {
        fwview::disasm::worker::isolate(exe);
    }
    let code = run();
    fwview::disasm::worker::finish();
    code
}

fn run() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => return usage_error(e),
    };
    // clap lets `-o` through without --extract, as the two require each
    // other: every other mode prints to standard output.
    if cli.output.is_some() && cli.extract.is_none() {
        use clap::CommandFactory;
        return usage_error(Cli::command().error(
            clap::error::ErrorKind::MissingRequiredArgument,
            "-o/--output is where --extract writes; --tree, --json, --find, --targets and --diff print to standard output (redirect it with >)",
        ));
    }
    tui::theme::set_color(tui::theme::choose_color(&cli.color));
    if let Some(s) = cli
        .x86_syntax
        .as_deref()
        .and_then(fwview::disasm::Syntax::from_name)
    {
        fwview::disasm::set_x86_syntax(s);
    }
    if let Some(code) = generated(&cli) {
        return code;
    }
    // clap asks for FILE unless --completions or --man was given.
    let Some(file) = cli.file.clone() else {
        eprintln!("fwview: no FILE given");
        return ExitCode::from(2);
    };
    if let Some(code) = descriptions(&cli) {
        return code;
    }
    if let Some(code) = many(&cli, &file) {
        return code;
    }
    if let Some(other) = cli.other.clone() {
        return two_files(&cli, &file, &other);
    }
    // The explorer shows instructions; printed output only with --code,
    // so that it stays as it was without.
    let headless =
        cli.targets || cli.json || cli.tree || cli.find.is_some() || cli.extract.is_some();
    if cli.at.is_some() && file.is_dir() {
        eprintln!("fwview: --at names a node of one file; a folder has none");
        return ExitCode::from(2);
    }
    if !headless && file.is_dir() {
        return match tui::run_folder(&file) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => fail(&file, e),
        };
    }
    let src = match Source::open_named(&file) {
        Ok(s) => Arc::new(s),
        Err(e) => return fail(&file, e),
    };
    let shown = file.display().to_string();
    let name = if file.as_os_str() == "-" {
        STDIN.to_string()
    } else {
        file.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| shown.clone())
    };
    let options = if headless {
        Options {
            code: cli.code,
            arg_names: None,
            // --targets (which goes before the other modes) reads only
            // what may hold an image.
            nested_only: cli.targets,
        }
    } else {
        EXPLORER
    };
    let (options, _) =
        fwview::pairing::with_xclbin(&file, src.bytes(), cli.xclbin.as_deref(), options);
    if headless && cli.code {
        // The decoder process loads its library while the file is read.
        fwview::disasm::worker::prestart();
    }
    let mut tree = formats::build_tree_with(src, &name, options);
    let at = match &cli.at {
        Some(p) => match tree.find_path(p) {
            Some(id) => Some(id),
            None => {
                let _ = fail(&file, format!("no node at path {}", text::clean(p)));
                return ExitCode::from(2);
            }
        },
        None => None,
    };

    if cli.targets {
        return print_targets(&cli, &file, &mut tree);
    }
    if cli.json || cli.tree {
        let stdout = io::stdout();
        let mut out = BufWriter::new(stdout.lock());
        let r = match (cli.json, at) {
            (true, None) => export::json(&mut tree, &shown, &mut out),
            (true, Some(id)) => export::json_at(&mut tree, &shown, id, &mut out),
            (false, None) => export::text_tree(&mut tree, &mut out),
            (false, Some(id)) => export::text_tree_at(&mut tree, id, &mut out),
        };
        let r = r.and_then(|_| {
            if cli.json {
                return Ok(());
            }
            // After the tree: the diagnostics raised while it was built.
            out.flush()?;
            export::diagnostics_text_in(&tree, at, &mut io::stderr())
        });
        return match r.and_then(|_| out.flush()) {
            Ok(()) => changed(&file, ExitCode::SUCCESS),
            // A closed pipe (`| head`) is not an error worth a message.
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
            Err(e) => fail(&file, e),
        };
    }
    if let Some(p) = &cli.find {
        // As grep: 0 when something matched, 1 when nothing did.
        return match find(&mut tree, p, !cli.ignore_case) {
            Ok(0) => changed(&file, ExitCode::from(1)),
            Ok(_) => changed(&file, ExitCode::SUCCESS),
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
            Err(e) if e.kind() == io::ErrorKind::InvalidInput => {
                eprintln!("fwview: {}", text::clean(&e.to_string()));
                ExitCode::from(2)
            }
            Err(e) => fail(&file, e),
        };
    }
    if let (Some(path), Some(out)) = (&cli.extract, &cli.output) {
        return extract(&cli, &file, &mut tree, path, out);
    }
    match tui::run(tree, &file, at) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&file, e),
    }
}

/// Two files: compared with `--diff`, else side by side; the flags of
/// one file are usage errors.
fn two_files(cli: &Cli, file: &Path, other: &Path) -> ExitCode {
    if cli.diff {
        return diff(cli, file, other);
    }
    // Flags that print or cut one file do not apply to two.
    let single = [
        (cli.tree, "--tree"),
        (cli.json, "--json"),
        (cli.extract.is_some(), "--extract"),
    ];
    if let Some((_, flag)) = single.iter().find(|(on, _)| *on) {
        eprintln!(
            "fwview: {flag} takes one file; two files open side by side, or compare with --diff (and --json)"
        );
        return ExitCode::from(2);
    }
    side_by_side(cli, file, other)
}

/// `--targets` of one file: its device images, as text or JSON; exit 1
/// when it has none.
fn print_targets(cli: &Cli, file: &Path, tree: &mut Tree) -> ExitCode {
    let mut images = fwview::targets::find(tree);
    for im in &mut images {
        if im.path.is_empty() {
            im.path = printed_address("").to_string();
        }
    }
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let r = if cli.json {
        fwview::targets::write_json(&images, &mut out)
    } else {
        fwview::targets::write_text(&images, &mut out)
    };
    let found = if images.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    };
    match r.and_then(|_| out.flush()) {
        Ok(()) => changed(file, found),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => found,
        Err(e) => fail(file, e),
    }
}

/// `--extract PATH -o OUT`: the bytes of one node, written to `out`.
fn extract(cli: &Cli, file: &Path, tree: &mut Tree, path: &str, out: &Path) -> ExitCode {
    use std::io::IsTerminal;
    if out.as_os_str() == "-" && !cli.force && io::stdout().is_terminal() {
        eprintln!("fwview: not writing raw bytes to a terminal (redirect -o -, or add --force)");
        return ExitCode::from(2);
    }
    match export::extract(tree, path, out, cli.force) {
        Ok(n) => {
            if out.as_os_str() != "-" {
                eprintln!(
                    "fwview: wrote {n} byte{} to {}",
                    if n == 1 { "" } else { "s" },
                    text::clean(&out.display().to_string())
                );
            }
            changed(file, ExitCode::SUCCESS)
        }
        Err(e @ export::ExtractError::NoSuchNode(_)) => {
            let _ = fail(file, e);
            ExitCode::from(2)
        }
        // The output's trouble, named by the output.
        Err(e) => {
            eprintln!("fwview: {e}");
            ExitCode::from(1)
        }
    }
}
