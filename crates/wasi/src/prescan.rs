//! A walk over a module's bytes before wasmi sees them: every declared length must fit
//! in the bytes that follow it, and the facts the runner needs (memory and table
//! minimums, the start function) are collected.
//!
//! Why: wasmparser checks `position + len <= buffer.len()` in `usize`. On wasm32 a
//! length near 4 GiB wraps that sum, the check passes, and the slice that follows
//! panics, which in the browser aborts the worker (natively the same bytes are a clean
//! "unexpected end of file"). The lengths it reads that way are the sections', the
//! function bodies' and the data segments'; everything else it reads is a count or a
//! string checked against a small maximum first. So those three are bounded here, and
//! any other mistake is left to the parser, which reports it.

use crate::GuestError;
use std::ops::Range;
use wasmparser::{BinaryReader, CompositeInnerType};

/// The most locals (parameters included) a function may have: wasmi's translator
/// refuses more (`LocalsRegistry::LOCAL_VARIABLES_MAX`), although validation allows
/// 50,000.
pub(crate) const MAX_LOCALS: u64 = 30_000;

/// Bytes in a wasm page (custom page sizes are off).
const PAGE: u64 = 1 << 16;

/// What the runner needs to know about a module before instantiating it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Facts {
    /// Bytes of linear memory the module's memories start with, together.
    pub(crate) memory_min_bytes: u64,
    /// The largest single memory's starting size in bytes.
    pub(crate) largest_memory_bytes: u64,
    /// Elements the module's tables start with, together.
    pub(crate) table_min_elements: u64,
    /// The memories and the tables the module defines (imports not counted).
    pub(crate) memories: u32,
    pub(crate) tables: u32,
    /// The start section: its byte range (header included) and function index.
    pub(crate) start: Option<(Range<usize>, u32)>,
    /// The export section: its byte range (header included) and the range of its
    /// contents after the entry count, with the count.
    pub(crate) exports: Option<Exports>,
}

/// Where the export section's entries are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Exports {
    pub(crate) section: Range<usize>,
    pub(crate) entries: Range<usize>,
    pub(crate) count: u32,
}

const SECTION_NAMES: [&str; 14] = [
    "custom",
    "type",
    "import",
    "function",
    "table",
    "memory",
    "global",
    "export",
    "start",
    "element",
    "code",
    "data",
    "data count",
    "tag",
];

fn section_name(id: u8) -> String {
    SECTION_NAMES
        .get(usize::from(id))
        .map_or_else(|| format!("unknown (id {id})"), |name| (*name).to_owned())
}

fn malformed(message: String) -> GuestError {
    GuestError::Malformed(message)
}

/// Reads an unsigned LEB128 `u32` at `*at`, advancing past it; `None` when it is
/// malformed or runs past `end` (the parser reports those itself).
fn read_u32(bytes: &[u8], at: &mut usize, end: usize) -> Option<u32> {
    let mut value: u64 = 0;
    for shift in 0..5 {
        if *at >= end {
            return None;
        }
        let byte = *bytes.get(*at)?;
        *at += 1;
        value |= u64::from(byte & 0x7f) << (7 * shift);
        if byte & 0x80 == 0 {
            return u32::try_from(value).ok();
        }
    }
    None
}

/// Walks `bytes`. An error is a module no parser should be handed; `Ok` does not mean
/// the module is valid, only that its lengths are bounded.
pub(crate) fn prescan(bytes: &[u8]) -> Result<Facts, GuestError> {
    let mut facts = Facts::default();
    // A wrong header is the parser's to report; nothing after it is read then.
    if bytes.len() < 8 || bytes[..4] != *b"\0asm" || bytes[4..8] != [1, 0, 0, 0] {
        return Ok(facts);
    }
    let mut types: Vec<Option<u32>> = Vec::new();
    let mut functions: Vec<u32> = Vec::new();
    let mut at = 8;
    while at < bytes.len() {
        let start = at;
        let id = bytes[at];
        at += 1;
        let Some(len) = read_u32(bytes, &mut at, bytes.len()) else {
            return Ok(facts);
        };
        let remaining = bytes.len() - at;
        if len as usize > remaining {
            return Err(malformed(format!(
                "the {} section at offset {start} declares {len} bytes, but only {remaining} follow",
                section_name(id)
            )));
        }
        let body = at..at + len as usize;
        at = body.end;
        match id {
            1..=7 | 9..=11 => check_count(bytes, id, body.clone())?,
            _ => {}
        }
        match id {
            1 => types = function_types(bytes, body),
            3 => functions = function_type_indices(bytes, body),
            4 => {
                facts.table_min_elements = table_minimums(bytes, body.clone());
                facts.tables = section_count(bytes, body);
            }
            5 => {
                (facts.memory_min_bytes, facts.largest_memory_bytes) =
                    memory_minimums(bytes, body.clone());
                facts.memories = section_count(bytes, body);
            }
            7 => {
                let mut entries = body.start;
                if let Some(count) = read_u32(bytes, &mut entries, body.end) {
                    facts.exports = Some(Exports {
                        section: start..body.end,
                        entries: entries..body.end,
                        count,
                    });
                }
            }
            8 => {
                let mut index = body.start;
                if let Some(func) = read_u32(bytes, &mut index, body.end) {
                    facts.start = Some((start..body.end, func));
                }
            }
            10 => check_code(bytes, body, &types, &functions)?,
            11 => check_data(bytes, body)?,
            _ => {}
        }
    }
    Ok(facts)
}

/// A vector section's entry count: each entry takes at least a byte, so a count larger
/// than the section's bytes is a lie (and would size allocations made from it).
fn check_count(bytes: &[u8], id: u8, body: Range<usize>) -> Result<(), GuestError> {
    let mut at = body.start;
    let Some(count) = read_u32(bytes, &mut at, body.end) else {
        return Ok(());
    };
    let left = body.end - at;
    if count as usize > left {
        return Err(malformed(format!(
            "the {} section declares {count} entries in {left} bytes",
            section_name(id)
        )));
    }
    Ok(())
}

/// The code section: each body's length must fit in the section, there must be as
/// many bodies as declared, and no function may have more locals than wasmi allows.
fn check_code(
    bytes: &[u8],
    body: Range<usize>,
    types: &[Option<u32>],
    functions: &[u32],
) -> Result<(), GuestError> {
    let mut at = body.start;
    let Some(count) = read_u32(bytes, &mut at, body.end) else {
        return Ok(());
    };
    for index in 0..count {
        let Some(size) = read_u32(bytes, &mut at, body.end) else {
            return Err(malformed(format!(
                "the code section declares {count} function bodies but holds {index}"
            )));
        };
        let left = body.end - at;
        if size as usize > left {
            return Err(malformed(format!(
                "function body {index} declares {size} bytes, but only {left} remain in the code section"
            )));
        }
        let function = at..at + size as usize;
        at = function.end;
        let params = functions
            .get(index as usize)
            .and_then(|ty| types.get(*ty as usize).copied().flatten())
            .unwrap_or(0);
        if let Some(locals) = declared_locals(bytes, function) {
            let total = locals + u64::from(params);
            if total > MAX_LOCALS {
                return Err(GuestError::Unsupported(format!(
                    "function {index} (in the code section) has {total} locals, parameters \
                     included; the interpreter (wasmi) allows at most {MAX_LOCALS}"
                )));
            }
        }
    }
    Ok(())
}

/// The number of locals a function body declares; `None` if they do not parse (the
/// validator then says why).
fn declared_locals(bytes: &[u8], function: Range<usize>) -> Option<u64> {
    let mut reader = BinaryReader::new(&bytes[function.clone()], function.start);
    let groups = reader.read_var_u32().ok()?;
    let mut total: u64 = 0;
    for _ in 0..groups {
        let count = reader.read_var_u32().ok()?;
        reader.read::<wasmparser::ValType>().ok()?;
        total = total.saturating_add(u64::from(count));
    }
    Some(total)
}

/// The data section: each segment's bytes must fit in the section.
fn check_data(bytes: &[u8], body: Range<usize>) -> Result<(), GuestError> {
    let mut reader = BinaryReader::new(&bytes[body.clone()], body.start);
    let Ok(count) = reader.read_var_u32() else {
        return Ok(());
    };
    for index in 0..count {
        // Anything but the data length the parser reads safely: it reports errors.
        let Ok(flags) = reader.read_var_u32() else {
            return Ok(());
        };
        let header = match flags {
            0 => reader.read::<wasmparser::ConstExpr>().map(drop),
            1 => Ok(()),
            2 => reader
                .read_var_u32()
                .and_then(|_| reader.read::<wasmparser::ConstExpr>().map(drop)),
            _ => return Ok(()),
        };
        if header.is_err() {
            return Ok(());
        }
        let Ok(len) = reader.read_var_u32() else {
            return Ok(());
        };
        let left = reader.bytes_remaining();
        if len as usize > left {
            return Err(malformed(format!(
                "data segment {index} declares {len} bytes, but only {left} remain in the data section"
            )));
        }
        if reader.read_bytes(len as usize).is_err() {
            return Ok(());
        }
    }
    Ok(())
}

/// Each type's parameter count, `None` for types that are not functions.
fn function_types(bytes: &[u8], body: Range<usize>) -> Vec<Option<u32>> {
    let reader = BinaryReader::new(&bytes[body.clone()], body.start);
    let Ok(section) = wasmparser::TypeSectionReader::new(reader) else {
        return Vec::new();
    };
    let mut types = Vec::new();
    for group in section.into_iter() {
        let Ok(group) = group else { break };
        for ty in group.types() {
            types.push(match &ty.composite_type.inner {
                CompositeInnerType::Func(func) => u32::try_from(func.params().len()).ok(),
                _ => None,
            });
        }
    }
    types
}

/// The type index of each function the module defines.
fn function_type_indices(bytes: &[u8], body: Range<usize>) -> Vec<u32> {
    let reader = BinaryReader::new(&bytes[body.clone()], body.start);
    wasmparser::FunctionSectionReader::new(reader)
        .map(|section| section.into_iter().map_while(Result::ok).collect())
        .unwrap_or_default()
}

/// The entry count a section body starts with (checked before this is asked).
fn section_count(bytes: &[u8], body: Range<usize>) -> u32 {
    let mut at = body.start;
    read_u32(bytes, &mut at, body.end).unwrap_or(0)
}

/// The tables' starting elements, together.
fn table_minimums(bytes: &[u8], body: Range<usize>) -> u64 {
    let reader = BinaryReader::new(&bytes[body.clone()], body.start);
    wasmparser::TableSectionReader::new(reader)
        .map(|section| {
            section
                .into_iter()
                .map_while(Result::ok)
                .fold(0u64, |sum, table| sum.saturating_add(table.ty.initial))
        })
        .unwrap_or(0)
}

/// The memories' starting bytes, together, and the largest one's.
fn memory_minimums(bytes: &[u8], body: Range<usize>) -> (u64, u64) {
    let reader = BinaryReader::new(&bytes[body.clone()], body.start);
    let Ok(section) = wasmparser::MemorySectionReader::new(reader) else {
        return (0, 0);
    };
    section
        .into_iter()
        .map_while(Result::ok)
        .map(|memory| memory.initial.saturating_mul(PAGE))
        .fold((0, 0), |(sum, largest), size| {
            (sum.saturating_add(size), largest.max(size))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(sections: &[u8]) -> Vec<u8> {
        let mut bytes = b"\0asm\x01\0\0\0".to_vec();
        bytes.extend_from_slice(sections);
        bytes
    }

    #[test]
    fn a_section_longer_than_the_module_is_refused_before_parsing() {
        for id in [0u8, 1, 5, 8, 10, 11, 12, 42] {
            let bytes = module(&[id, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x00]);
            let err = prescan(&bytes).unwrap_err().to_string();
            assert!(
                err.contains("declares 4294967295 bytes, but only 1 follow"),
                "{id}: {err}"
            );
        }
    }

    #[test]
    fn a_function_body_longer_than_its_section_is_refused() {
        // code section: 1 body of 0xFFFFFFF0 bytes, then 2 bytes.
        let bytes = module(&[10, 8, 1, 0xf0, 0xff, 0xff, 0xff, 0x0f, 0, 0x0b]);
        let err = prescan(&bytes).unwrap_err().to_string();
        assert!(
            err.contains("function body 0 declares 4294967280 bytes"),
            "{err}"
        );
    }

    #[test]
    fn more_bodies_than_the_code_section_holds_are_refused() {
        // Two bodies declared, one present: the parser would read the next one's
        // length from whatever follows the section.
        let bytes = module(&[10, 4, 2, 2, 0, 0x0b, 0, 0xff, 0xff, 0xff, 0xff, 0x0f]);
        let err = prescan(&bytes).unwrap_err().to_string();
        assert!(
            err.contains("declares 2 function bodies but holds 1"),
            "{err}"
        );
    }

    #[test]
    fn a_data_segment_longer_than_its_section_is_refused() {
        // data section: 1 passive segment (flags 1) of 0xFFFFFFFF bytes.
        let bytes = module(&[11, 7, 1, 1, 0xff, 0xff, 0xff, 0xff, 0x0f]);
        let err = prescan(&bytes).unwrap_err().to_string();
        assert!(
            err.contains("data segment 0 declares 4294967295 bytes"),
            "{err}"
        );
        // active segment: i32.const 0, end, then the length.
        let bytes = module(&[11, 9, 1, 0, 0x41, 0, 0x0b, 0xff, 0xff, 0xff, 0x0f]);
        let err = prescan(&bytes).unwrap_err().to_string();
        assert!(err.contains("data segment 0 declares"), "{err}");
    }

    #[test]
    fn a_huge_count_is_refused() {
        let bytes = module(&[1, 5, 0xff, 0xff, 0xff, 0xff, 0x0f]);
        let err = prescan(&bytes).unwrap_err().to_string();
        assert!(
            err.contains("the type section declares 4294967295 entries in 0 bytes"),
            "{err}"
        );
    }

    #[test]
    fn facts_are_collected() {
        // memory section: two memories of 2 and 3 pages; table: 10 funcrefs.
        let bytes = module(&[4, 4, 1, 0x70, 0, 10, 5, 5, 2, 0, 2, 0, 3]);
        let facts = prescan(&bytes).unwrap();
        assert_eq!(facts.memory_min_bytes, 5 * PAGE);
        assert_eq!(facts.largest_memory_bytes, 3 * PAGE);
        assert_eq!(facts.table_min_elements, 10);
    }
}
