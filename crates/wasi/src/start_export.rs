//! A module's start function, run like `_start`.
//!
//! wasmi runs the start function inside instantiation with one plain call: no fuel
//! slices, so it either finishes within the first slice or fails with a misleading
//! fuel error, and no deadline, cancel or yield can reach it. wasmi 2 has no way to
//! instantiate without starting, so the module is rewritten: its start section is
//! removed and the same function exported under a name of ours, which the runner calls
//! in slices right after instantiating.

use crate::prescan::Facts;

/// The name the start function is exported under (a suffix is added if the module
/// happens to export this name itself).
const START_EXPORT: &str = "sandtab:start";

fn push_u32(out: &mut Vec<u8>, mut value: u32) {
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// The names the export section declares (the module was validated, so they parse).
fn export_names(bytes: &[u8], facts: &Facts) -> Vec<String> {
    let Some(exports) = &facts.exports else {
        return Vec::new();
    };
    let mut reader =
        wasmparser::BinaryReader::new(&bytes[exports.entries.clone()], exports.entries.start);
    (0..exports.count)
        .map_while(|_| reader.read::<wasmparser::Export>().ok())
        .map(|export| export.name.to_owned())
        .collect()
}

/// `bytes` without a start section, its function exported instead; and that export's
/// name. `None` when the module has no start section. The module must be valid.
pub(crate) fn export_start(bytes: &[u8], facts: &Facts) -> Option<(Vec<u8>, String)> {
    let (start_section, func) = facts.start.clone()?;
    let taken = export_names(bytes, facts);
    let name = (0u32..)
        .map(|n| match n {
            0 => START_EXPORT.to_owned(),
            n => format!("{START_EXPORT}{n}"),
        })
        .find(|name| !taken.contains(name))?;

    let mut entry = Vec::new();
    push_u32(&mut entry, u32::try_from(name.len()).ok()?);
    entry.extend_from_slice(name.as_bytes());
    entry.push(0x00); // a function
    push_u32(&mut entry, func);

    let mut contents = Vec::new();
    let (count, entries, replaced) = match &facts.exports {
        Some(exports) => (
            exports.count.checked_add(1)?,
            &bytes[exports.entries.clone()],
            exports.section.clone(),
        ),
        // A valid module's export section comes right before its start section.
        None => (1, &[][..], start_section.start..start_section.start),
    };
    push_u32(&mut contents, count);
    contents.extend_from_slice(entries);
    contents.extend_from_slice(&entry);
    let mut section = vec![7u8];
    push_u32(&mut section, u32::try_from(contents.len()).ok()?);
    section.extend_from_slice(&contents);

    let mut out = Vec::with_capacity(bytes.len() + section.len());
    out.extend_from_slice(&bytes[..replaced.start]);
    out.extend_from_slice(&section);
    out.extend_from_slice(&bytes[replaced.end..start_section.start]);
    out.extend_from_slice(&bytes[start_section.end..]);
    Some((out, name))
}
