//! What each operator costs, in wasmi 2.0's fuel units.
//!
//! wasmi 2.0 charges per Wasm operator from a table (`wasmi::OperatorCost`, whose
//! default is in `engine/costs.rs`): 1 for every operator but `nop`, `drop`, `block`,
//! `loop`, `unreachable`, `return`, `else` and `end`, which cost 0. sandtab's engine
//! (`crates/wasi/src/engine.rs`) overrides `memory.grow` and `table.grow` to
//! [`GROW_COST`]. On top of the table, wasmi charges the bytes that bulk memory and
//! table operations touch and that growths add, one unit per [`BYTES_PER_FUEL`]
//! bytes: the meter charges those too ([`dynamic`]), from the operand at run time.

use wasmparser::Operator;

/// What sandtab's engine charges for `memory.grow` and `table.grow` (its `GROW_FUEL`).
pub const GROW_COST: u64 = 255;

/// Bytes copied or filled per unit of fuel (sandtab's `BYTES_COPIED_PER_FUEL`, also
/// wasmi's default).
pub const BYTES_PER_FUEL: u64 = 64;

/// The fuel one execution of `op` costs before any per-byte charge.
pub(crate) fn cost(op: &Operator<'_>) -> u64 {
    match op {
        Operator::Nop
        | Operator::Drop
        | Operator::Block { .. }
        | Operator::Loop { .. }
        | Operator::Unreachable
        | Operator::Return
        | Operator::Else
        | Operator::End => 0,
        Operator::MemoryGrow { .. } | Operator::TableGrow { .. } => GROW_COST,
        _ => 1,
    }
}

/// A charge that depends on an operand, known only at run time: wasmi charges the
/// bytes an operator touches, one unit per [`BYTES_PER_FUEL`]. The operand is the
/// `i32` on top of the stack (64-bit memories and tables are refused).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dynamic {
    /// Charged before the operator: a count of items of `bytes` each (bulk memory and
    /// table operations; wasmi charges them once the bounds are checked, so a trap
    /// out of bounds costs the meter the bytes and wasmi nothing).
    Before { bytes: u64 },
    /// Charged after a growth that succeeded (it did not return -1): its delta, of
    /// `bytes` each, as wasmi charges the new memory or table entries; a refused one
    /// sets the refused-growth global to `refused`.
    AfterGrowth { bytes: u64, refused: i32 },
}

/// The bytes of a table element in wasmi (`RawRef`: 4 bytes).
const TABLE_ELEMENT: u64 = 4;

/// A 64 KiB page.
const PAGE: u64 = 1 << 16;

/// The run-time charge of `op`, if it has one.
pub(crate) fn dynamic(op: &Operator<'_>) -> Option<Dynamic> {
    match op {
        Operator::MemoryCopy { .. } | Operator::MemoryFill { .. } | Operator::MemoryInit { .. } => {
            Some(Dynamic::Before { bytes: 1 })
        }
        Operator::TableCopy { .. } | Operator::TableFill { .. } | Operator::TableInit { .. } => {
            Some(Dynamic::Before {
                bytes: TABLE_ELEMENT,
            })
        }
        Operator::MemoryGrow { .. } => Some(Dynamic::AfterGrowth {
            bytes: PAGE,
            refused: crate::REFUSED_MEMORY,
        }),
        Operator::TableGrow { .. } => Some(Dynamic::AfterGrowth {
            bytes: TABLE_ELEMENT,
            refused: crate::REFUSED_TABLE,
        }),
        _ => None,
    }
}
