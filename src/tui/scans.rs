//! What the whole-file views (`s`, `o`) found, as data the app keeps; the
//! views themselves are in `overview.rs`.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use crate::scan::Block;

/// Strings shorter than this are not listed (`strings`' default).
pub const MIN_LEN: usize = 4;
/// At most this many strings are kept, over all byte spaces.
pub const MAX_STRINGS: usize = 1_000_000;
/// The overview cuts the file into at most this many blocks.
pub const BLOCKS: usize = 512;

/// The strings of one byte space.
#[derive(Clone, Debug, Default)]
pub struct StrGroup {
    /// The address of the space's first node (None: the file).
    pub root: Option<String>,
    /// Where the space came from.
    pub describe: String,
    /// (offset, length) of each string.
    pub hits: Vec<(u64, u32)>,
    /// The strings' text, for a derived space (the file's are read from
    /// it when shown).
    pub texts: Vec<Box<str>>,
}

/// The strings found, or being found.
#[derive(Debug, Default)]
pub struct Strings {
    pub id: u64,
    pub running: Option<Arc<AtomicBool>>,
    /// Bytes of the file looked at so far.
    pub done: u64,
    pub groups: Vec<StrGroup>,
    pub complete: bool,
}

impl Strings {
    pub fn len(&self) -> usize {
        self.groups.iter().map(|g| g.hits.len()).sum()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The group and index in it of the i-th string.
    pub fn locate(&self, mut i: usize) -> Option<(&StrGroup, usize)> {
        for g in &self.groups {
            if i < g.hits.len() {
                return Some((g, i));
            }
            i -= g.hits.len();
        }
        None
    }
}

/// The overview's blocks, or None while they are measured.
#[derive(Debug, Default)]
pub struct Overview {
    pub id: u64,
    pub running: Option<Arc<AtomicBool>>,
    pub blocks: Option<Vec<Block>>,
}
