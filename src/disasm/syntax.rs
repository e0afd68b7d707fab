//! The assembly dialect x86 code is decoded in, chosen once for the
//! process (and handed to the worker process).

/// The environment variable that picks the x86 assembly dialect:
/// `att` (the default, as `llvm-objdump` and GNU objdump print) or
/// `intel` (as `llvm-objdump -M intel` prints).
pub const ENV_X86_SYNTAX: &str = "FWVIEW_X86_SYNTAX";

/// An assembly dialect of x86 code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// AT&T's: `movl %edi, %eax`.
    Att,
    /// Intel's: `mov eax, edi`.
    Intel,
}

impl Syntax {
    /// The dialect named `s` (`att`, `intel`; either case).
    pub fn from_name(s: &str) -> Option<Syntax> {
        match s.to_ascii_lowercase().as_str() {
            "att" | "at&t" => Some(Syntax::Att),
            "intel" => Some(Syntax::Intel),
            _ => None,
        }
    }

    /// Its name, as [`Syntax::from_name`] reads it.
    pub fn name(self) -> &'static str {
        match self {
            Syntax::Att => "att",
            Syntax::Intel => "intel",
        }
    }
}

static SYNTAX: std::sync::OnceLock<Syntax> = std::sync::OnceLock::new();

/// Decodes x86 code in dialect `s` from now on. Only the first call
/// counts, and only before any x86 code was decoded; without one, the
/// dialect is [`ENV_X86_SYNTAX`]'s, else AT&T's.
pub fn set_x86_syntax(s: Syntax) {
    let _ = SYNTAX.set(s);
}

/// The dialect x86 code is decoded in.
pub fn x86_syntax() -> Syntax {
    *SYNTAX.get_or_init(|| {
        std::env::var(ENV_X86_SYNTAX)
            .ok()
            .and_then(|v| Syntax::from_name(&v))
            .unwrap_or(Syntax::Att)
    })
}
