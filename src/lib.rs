//! fwview: one explorer for accelerator and firmware container binaries.
//!
//! - [`model`]: nodes with byte ranges, lazy children, diagnostics.
//! - [`formats`]: detection and one parser per format.
//! - [`export`]: JSON, text and extraction for scripts.
//! - [`tui`]: the interactive explorer.

pub mod diff;
pub mod disasm;
pub mod export;
pub mod extract;
pub mod folders;
pub mod formats;
#[cfg(unix)]
pub mod guard;
pub mod model;
pub mod pairing;
pub mod scan;
pub mod search;
pub mod targets;
pub mod tui;
pub mod walk;
