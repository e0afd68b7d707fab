//! Diagnostics: problems found in a file, at their bytes.

use super::space::SpaceId;

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// A problem found in the file, anchored at the bytes that show it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    pub severity: Severity,
    /// The byte space `offset` is in (0: the file).
    pub space: SpaceId,
    pub offset: u64,
    pub size: u64,
    pub message: String,
}
