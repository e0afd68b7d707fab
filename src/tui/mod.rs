//! The interactive explorer.

use crate::model::Tree;

pub fn run(_tree: Tree, _path: &str) -> std::io::Result<()> {
    Ok(())
}
