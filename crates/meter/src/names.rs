//! The `name` section, kept for the browser's stack traces: its function indices
//! shift with the meter's import.
//!
//! Label names are dropped: the meter's checks add `if` blocks, which renumber a
//! function's labels. Local names stay right (the meter's scratch local comes after
//! every local the module names). A name section that does not parse is dropped whole
//! (custom sections are not validated, so a hostile one must not fail the module).

use wasm_encoder::NameSection;
use wasm_encoder::reencode::{Reencode, utils};
use wasmparser::{Name, NameSectionReader};

/// The rewritten section, or `None` to drop it.
pub(crate) fn rewrite<R: Reencode>(
    reencoder: &mut R,
    reader: NameSectionReader<'_>,
) -> Option<NameSection> {
    let mut names = NameSection::new();
    for subsection in reader {
        match subsection.ok()? {
            Name::Label(_) => {}
            other => utils::parse_custom_name_subsection(reencoder, &mut names, other).ok()?,
        }
    }
    Some(names)
}
