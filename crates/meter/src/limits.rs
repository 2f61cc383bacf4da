//! Bounding the memories and tables a module defines.
//!
//! The browser's engine enforces a memory's or table's declared maximum itself, so
//! lowering the maximum to sandtab's limit is all it takes: `memory.grow` past it
//! returns -1, exactly as wasmi's limiter makes it. A module whose minimum is already
//! past the limit could not even be instantiated within it, and is refused.

use crate::{MeterError, MeterOptions};
use wasmparser::{MemoryType, TableType};

/// The most pages a 32-bit memory may declare (4 GiB of 64 KiB pages).
const MAX_PAGES_32: u64 = 1 << 16;

/// The most elements a 32-bit table may declare.
const MAX_ELEMENTS_32: u64 = u32::MAX as u64;

/// Memory `index` with its maximum lowered to the limit; refused if 64-bit or if its
/// minimum is past the limit.
pub(crate) fn memory(
    index: u32,
    mut ty: MemoryType,
    options: &MeterOptions,
) -> Result<MemoryType, MeterError> {
    if ty.memory64 {
        return Err(MeterError::Memory64 { index });
    }
    let limit = options.max_memory_pages.min(MAX_PAGES_32);
    if ty.initial > limit {
        return Err(MeterError::MemoryLimit {
            index,
            minimum: ty.initial,
            limit: options.max_memory_pages,
        });
    }
    ty.maximum = Some(ty.maximum.map_or(limit, |max| max.min(limit)));
    Ok(ty)
}

/// Table `index` with its maximum lowered to the limit; refused if its minimum is
/// past the limit, or if 64-bit.
pub(crate) fn table(
    index: u32,
    mut ty: TableType,
    options: &MeterOptions,
) -> Result<TableType, MeterError> {
    if ty.table64 {
        return Err(MeterError::Table64 { index });
    }
    let limit = options.max_table_elements.min(MAX_ELEMENTS_32);
    if ty.initial > limit {
        return Err(MeterError::TableLimit {
            index,
            minimum: ty.initial,
            limit: options.max_table_elements,
        });
    }
    ty.maximum = Some(ty.maximum.map_or(limit, |max| max.min(limit)));
    Ok(ty)
}
