//! What a reader asks the formats to show.

/// What a reader asks the formats to show beyond the structure of a file.
/// A tree holds its options from the start; every builder hands them to
/// the formats ([`Builder::options`](super::Builder::options)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Machine code as instructions: executable sections and their
    /// functions open into one node per instruction.
    pub code: bool,
    /// The names of the arguments of the kernel a control program runs
    /// for, by argument index, when the file is paired with the binary
    /// that declares that kernel (an NPU transaction with its xclbin).
    /// Kept for the life of the process ([`Options::leak_arg_names`]), so
    /// that options stay `Copy`.
    pub arg_names: Option<&'static [(u64, &'static str)]>,
    /// The tree is read only for the formats nested in it (the device
    /// images `--targets` and a folder's list look for), never shown: the
    /// parsers skip their own records, which cannot hold another format
    /// (symbol, string and relocation tables, debug information,
    /// instructions; see [`Builder::skips_records`](super::Builder::skips_records)), so a scan builds a
    /// few nodes a file and reads few of its pages. What is nested, and
    /// where, is the same as in a full read.
    pub nested_only: bool,
}

impl Options {
    /// These options with `names` as the argument names, kept for the
    /// life of the process; none when `names` is empty.
    pub fn leak_arg_names(self, names: Vec<(u64, String)>) -> Options {
        if names.is_empty() {
            return Options {
                arg_names: None,
                ..self
            };
        }
        let v: Vec<(u64, &'static str)> = names
            .into_iter()
            .map(|(i, n)| (i, &*Box::leak(n.into_boxed_str())))
            .collect();
        Options {
            arg_names: Some(Box::leak(v.into_boxed_slice())),
            ..self
        }
    }
}
