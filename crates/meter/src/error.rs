//! Why a module cannot be metered.

use thiserror::Error;

/// Why [`instrument`](crate::instrument) refused a module. Every input, however
/// hostile, ends in a result: either a metered module or one of these.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum MeterError {
    /// The bytes are not a valid module under the features sandtab's interpreter
    /// supports (garbage, truncated, or using a proposal wasmi is built without).
    #[error("not a valid WebAssembly module: {0}")]
    Invalid(String),
    /// The module imports from the meter's own import module: the guest could then
    /// supply (or shadow) the host's out-of-fuel handler.
    #[error("it imports `{name}` from `{module}`, which is reserved for sandtab's meter")]
    ReservedImport {
        /// The import module (always [`METER_MODULE`](crate::METER_MODULE)).
        module: String,
        /// The imported name.
        name: String,
    },
    /// The module already exports the name the fuel global is exported under.
    #[error("it exports `{0}`, which is reserved for sandtab's fuel global")]
    ReservedExport(String),
    /// The module imports a memory: WASI guests define their own, and the meter can
    /// only bound a memory the module defines.
    #[error(
        "it imports memory `{module}`.`{name}`; only a memory the module defines can be limited"
    )]
    ImportedMemory {
        /// The import module.
        module: String,
        /// The imported name.
        name: String,
    },
    /// A 64-bit memory: not supported yet (its sizes and bulk lengths are `i64`).
    #[error("memory {index} is a 64-bit memory, which the meter does not support yet")]
    Memory64 {
        /// The memory's index.
        index: u32,
    },
    /// A 64-bit table (part of the memory64 proposal): not supported yet.
    #[error("table {index} is a 64-bit table, which the meter does not support yet")]
    Table64 {
        /// The table's index.
        index: u32,
    },
    /// A memory needs more pages from the start than the limit allows.
    #[error("memory {index} needs at least {minimum} pages, more than the limit of {limit}")]
    MemoryLimit {
        /// The memory's index.
        index: u32,
        /// Its declared minimum, in 64 KiB pages.
        minimum: u64,
        /// [`MeterOptions::max_memory_pages`](crate::MeterOptions::max_memory_pages).
        limit: u64,
    },
    /// A table needs more elements from the start than the limit allows.
    #[error("table {index} needs at least {minimum} elements, more than the limit of {limit}")]
    TableLimit {
        /// The table's index.
        index: u32,
        /// Its declared minimum.
        minimum: u64,
        /// [`MeterOptions::max_table_elements`](crate::MeterOptions::max_table_elements).
        limit: u64,
    },
    /// An index or count would overflow once the meter's import is added.
    #[error("the module is too large to meter: {0}")]
    TooLarge(&'static str),
    /// Re-encoding failed (a construct the rewriter does not handle).
    #[error("could not rewrite the module: {0}")]
    Rewrite(String),
    /// The rewritten module does not validate: a bug in the meter, reported rather
    /// than handed to the browser.
    #[error("the metered module is invalid (a bug in sandtab's meter): {0}")]
    Output(String),
}
