//! Natively, every `memory.grow` and `table.grow` becomes a call to a host function.
//!
//! wasmi 2.0 dispatches by tail calls natively, but its `memory_grow` and `table_grow`
//! handlers call the next handler without one (see `engine::grow_costs_most`): each
//! growth executed leaves a host stack frame (176 bytes on x86_64) until the wasmi call
//! returns. Fuel bounds the growths a call pays for, but not growths paid for before
//! the call began: a guest 9,000 frames deep that blocks in a host call, then runs 8
//! growths in every frame on the way back up, left 72,000 frames in one call and
//! overflowed the host's stack (`tests/guests/hostile/grow-on-return.wat`).
//!
//! A host call is dispatched with a real tail call, so the module is rewritten when
//! compiled: `memory.grow M` becomes `call` of an import `sandtab:internal`
//! `memory.grow:M`, `table.grow T` of `table.grow:T`, each with the instruction's own
//! signature; every memory and table is exported (under a prefix the module does not
//! use) so the host finds it. Adding imports shifts the index of every function the
//! module defines; `wasm_encoder::reencode` rewrites every reference (element
//! segments, exports, the start section, constant expressions), and function bodies
//! are copied as they are but for `call`, `return_call` and `ref.func` (and the
//! growths), which is a third of the time re-encoding every operator took. The new
//! types come after the module's own; an index past those (an invalid module) is
//! refused rather than made to name one of them. Custom sections are dropped: wasmi
//! runs nothing from them, and a name section's indices would be stale. The host functions (below) grow through wasmi's `Memory::grow` and
//! `Table::grow`, so the limiter applies as before, and return what the instruction
//! returns. A guest may not import `sandtab:internal` itself (refused when compiled).
//!
//! The browser build dispatches in a loop, where the handlers return, and keeps the
//! module as it is.

use crate::GuestError;
use crate::engine::GROW_FUEL;
use crate::run::GuestState;
use wasm_encoder::reencode::{self, Reencode};
use wasmparser263 as wp;

use crate::engine::INTERNAL_MODULE as MODULE;

/// The name of the host function that grows memory `index`.
fn memory_import(index: u32) -> String {
    format!("memory.grow:{index}")
}

/// The name of the host function that grows table `index`.
fn table_import(index: u32) -> String {
    format!("table.grow:{index}")
}

/// Where the rewritten module exports its memories and tables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GrowExports {
    prefix: String,
    memories: u32,
    tables: u32,
}

impl GrowExports {
    fn memory(&self, index: u32) -> String {
        format!("{}memory{index}", self.prefix)
    }

    fn table(&self, index: u32) -> String {
        format!("{}table{index}", self.prefix)
    }
}

/// The instance's memories and tables, by index, for the host functions.
#[derive(Debug, Default)]
pub(crate) struct GrowTargets {
    memories: Vec<wasmi::Memory>,
    tables: Vec<wasmi::Table>,
}

/// What the rewrite needs to know before it starts.
#[derive(Default)]
struct Shape {
    types: u32,
    imported_funcs: u32,
    memories: Vec<bool>,
    tables: Vec<(wp::RefType, bool)>,
    exports: Vec<String>,
    has_imports: bool,
    has_exports: bool,
    has_code: bool,
}

fn shape(bytes: &[u8]) -> Result<Shape, GuestError> {
    let unsupported = |err: wp::BinaryReaderError| {
        GuestError::Unsupported(format!("rewriting its growths: {err}"))
    };
    let mut shape = Shape::default();
    for payload in wp::Parser::new(0).parse_all(bytes) {
        match payload.map_err(unsupported)? {
            wp::Payload::TypeSection(section) => {
                for group in section {
                    let count = group.map_err(unsupported)?.types().len();
                    shape.types = shape
                        .types
                        .saturating_add(u32::try_from(count).unwrap_or(u32::MAX));
                }
            }
            wp::Payload::ImportSection(section) => {
                shape.has_imports = true;
                for import in section.into_imports() {
                    let import = import.map_err(unsupported)?;
                    if import.module == MODULE {
                        return Err(GuestError::Unsupported(format!(
                            "it imports `{}` from `{MODULE}`, which is sandtab's own",
                            import.name
                        )));
                    }
                    match import.ty {
                        wp::TypeRef::Func(_) | wp::TypeRef::FuncExact(_) => {
                            shape.imported_funcs = shape.imported_funcs.saturating_add(1);
                        }
                        wp::TypeRef::Memory(ty) => shape.memories.push(ty.memory64),
                        wp::TypeRef::Table(ty) => shape.tables.push((ty.element_type, ty.table64)),
                        _ => {}
                    }
                }
            }
            wp::Payload::TableSection(section) => {
                for table in section {
                    let ty = table.map_err(unsupported)?.ty;
                    shape.tables.push((ty.element_type, ty.table64));
                }
            }
            wp::Payload::MemorySection(section) => {
                for memory in section {
                    shape.memories.push(memory.map_err(unsupported)?.memory64);
                }
            }
            wp::Payload::ExportSection(section) => {
                shape.has_exports = true;
                for export in section {
                    shape
                        .exports
                        .push(export.map_err(unsupported)?.name.to_owned());
                }
            }
            wp::Payload::CodeSectionStart { .. } => shape.has_code = true,
            _ => {}
        }
    }
    Ok(shape)
}

/// `bytes` with every growth a host call, and where the memories and tables are
/// exported; `None` when the module has no growth to rewrite (no memory or table, or
/// no code). The module must be valid.
pub(crate) fn rewrite(bytes: &[u8]) -> Result<Option<(Vec<u8>, GrowExports)>, GuestError> {
    let shape = shape(bytes)?;
    if !shape.has_code || (shape.memories.is_empty() && shape.tables.is_empty()) {
        return Ok(None);
    }
    let prefix = (0u32..)
        .map(|n| match n {
            0 => "sandtab:".to_owned(),
            n => format!("sandtab{n}:"),
        })
        .find(|prefix| !shape.exports.iter().any(|name| name.starts_with(prefix)))
        .unwrap_or_default();
    let exports = GrowExports {
        prefix,
        memories: u32::try_from(shape.memories.len()).unwrap_or(u32::MAX),
        tables: u32::try_from(shape.tables.len()).unwrap_or(u32::MAX),
    };
    let mut rewriter = Rewriter::new(&shape, exports.clone())?;
    let mut module = wasm_encoder::Module::new();
    rewriter
        .parse_core_module(&mut module, wp::Parser::new(0), bytes)
        .map_err(|err| GuestError::Unsupported(format!("rewriting its growths: {err}")))?;
    Ok(Some((module.finish(), exports)))
}

/// A new function type the rewrite adds: its parameters and results.
type Signature = (Vec<wasm_encoder::ValType>, Vec<wasm_encoder::ValType>);

struct Rewriter {
    imported_funcs: u32,
    /// Functions added (one per memory, then one per table).
    added: u32,
    /// The module's own types; the new ones come after them.
    types: u32,
    /// The new types. An index the module uses past its own types (an invalid module)
    /// is refused rather than made to name one of them.
    new_types: Vec<Signature>,
    /// Per memory, then per table: the index of its new type.
    import_types: Vec<u32>,
    exports: GrowExports,
    imports_done: bool,
    exports_done: bool,
}

fn index_type(is_64: bool) -> wasm_encoder::ValType {
    if is_64 {
        wasm_encoder::ValType::I64
    } else {
        wasm_encoder::ValType::I32
    }
}

impl Rewriter {
    fn new(shape: &Shape, exports: GrowExports) -> Result<Self, GuestError> {
        let mut new_types: Vec<Signature> = Vec::new();
        let mut import_types = Vec::new();
        let mut type_of = |signature: Signature| {
            let index = match new_types.iter().position(|known| *known == signature) {
                Some(index) => index,
                None => {
                    new_types.push(signature);
                    new_types.len() - 1
                }
            };
            u32::try_from(index)
                .unwrap_or(u32::MAX)
                .saturating_add(shape.types)
        };
        for &is_64 in &shape.memories {
            let index = index_type(is_64);
            import_types.push(type_of((vec![index], vec![index])));
        }
        for &(element, is_64) in &shape.tables {
            let element = match element {
                wp::RefType::FUNCREF => wasm_encoder::RefType::FUNCREF,
                wp::RefType::EXTERNREF => wasm_encoder::RefType::EXTERNREF,
                other => {
                    return Err(GuestError::Unsupported(format!(
                        "a table of {other} cannot grow through the host"
                    )));
                }
            };
            let index = index_type(is_64);
            import_types.push(type_of((
                vec![wasm_encoder::ValType::Ref(element), index],
                vec![index],
            )));
        }
        Ok(Self {
            types: shape.types,
            imported_funcs: shape.imported_funcs,
            added: exports.memories.saturating_add(exports.tables),
            new_types,
            import_types,
            imports_done: shape.has_imports,
            exports_done: shape.has_exports,
            exports,
        })
    }

    fn add_imports(&mut self, imports: &mut wasm_encoder::ImportSection) {
        let names = (0..self.exports.memories)
            .map(memory_import)
            .chain((0..self.exports.tables).map(table_import));
        for (name, &ty) in names.zip(&self.import_types) {
            imports.import(MODULE, &name, wasm_encoder::EntityType::Function(ty));
        }
        self.imports_done = true;
    }

    fn add_exports(&mut self, exports: &mut wasm_encoder::ExportSection) {
        for index in 0..self.exports.memories {
            let name = self.exports.memory(index);
            exports.export(&name, wasm_encoder::ExportKind::Memory, index);
        }
        for index in 0..self.exports.tables {
            let name = self.exports.table(index);
            exports.export(&name, wasm_encoder::ExportKind::Table, index);
        }
        self.exports_done = true;
    }
}

/// Where a section comes in a module (the tag section sits between memory and global).
fn rank(id: wasm_encoder::SectionId) -> u8 {
    use wasm_encoder::SectionId as S;
    match id {
        S::Custom => 0,
        S::Type => 1,
        S::Import => 2,
        S::Function => 3,
        S::Table => 4,
        S::Memory => 5,
        S::Tag => 6,
        S::Global => 7,
        S::Export => 8,
        S::Start => 9,
        S::Element => 10,
        S::DataCount => 11,
        S::Code => 12,
        S::Data => 13,
    }
}

/// An index past the module's own types: the module is invalid (the engine then
/// reports the validator's own error).
#[derive(Debug)]
struct Invalid;

impl std::fmt::Display for Invalid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an index out of bounds")
    }
}

const INVALID: reencode::Error<Invalid> = reencode::Error::UserError(Invalid);

fn leb128(out: &mut Vec<u8>, mut value: u32) {
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

impl Rewriter {
    /// A function's index once the new imports are in (an index past `u32`, in an
    /// invalid module, is refused).
    fn shifted(&self, func: u32) -> Result<u32, reencode::Error<Invalid>> {
        match func < self.imported_funcs {
            true => Ok(func),
            false => func.checked_add(self.added).ok_or(INVALID),
        }
    }

    /// The index of the `k`th new import (memories first, then tables).
    fn helper(&self, k: u32) -> Result<u32, reencode::Error<Invalid>> {
        self.imported_funcs.checked_add(k).ok_or(INVALID)
    }

    fn own_type(&self, ty: u32) -> Result<(), reencode::Error<Invalid>> {
        match ty < self.types {
            true => Ok(()),
            false => Err(INVALID),
        }
    }
}

impl Reencode for Rewriter {
    type Error = Invalid;

    fn function_index(&mut self, func: u32) -> Result<u32, reencode::Error<Invalid>> {
        self.shifted(func)
    }

    fn instruction<'a>(
        &mut self,
        op: wp::Operator<'a>,
    ) -> Result<wasm_encoder::Instruction<'a>, reencode::Error<Invalid>> {
        match op {
            wp::Operator::MemoryGrow { mem } if mem < self.exports.memories => {
                Ok(wasm_encoder::Instruction::Call(self.helper(mem)?))
            }
            wp::Operator::TableGrow { table } if table < self.exports.tables => {
                Ok(wasm_encoder::Instruction::Call(
                    self.helper(self.exports.memories.saturating_add(table))?,
                ))
            }
            op => reencode::utils::instruction(self, op),
        }
    }

    fn parse_type_section(
        &mut self,
        types: &mut wasm_encoder::TypeSection,
        section: wp::TypeSectionReader<'_>,
    ) -> Result<(), reencode::Error<Invalid>> {
        reencode::utils::parse_type_section(self, types, section)?;
        for (params, results) in &self.new_types {
            types
                .ty()
                .function(params.iter().copied(), results.iter().copied());
        }
        Ok(())
    }

    fn type_index(&mut self, ty: u32) -> Result<u32, reencode::Error<Invalid>> {
        self.own_type(ty)?;
        Ok(ty)
    }

    /// Copies a body as it is but for the operators that name a function (which
    /// shift) and the growths (which become calls): re-encoding every operator took
    /// three times as long.
    fn parse_function_body(
        &mut self,
        code: &mut wasm_encoder::CodeSection,
        func: wp::FunctionBody<'_>,
    ) -> Result<(), reencode::Error<Invalid>> {
        let body = func.as_bytes();
        let base = func.range().start;
        let at = |offset: u64| usize::try_from(offset - base).unwrap_or(usize::MAX);
        let mut reader = func.get_operators_reader()?;
        let mut out = Vec::with_capacity(body.len() + 16);
        let mut copied = at(reader.original_position());
        out.extend_from_slice(body.get(..copied).ok_or(INVALID)?);
        while !reader.eof() {
            let (op, offset) = reader.read_with_offset()?;
            let (opcode, index) = match op {
                wp::Operator::Call { function_index } if function_index >= self.imported_funcs => {
                    (0x10, self.shifted(function_index)?)
                }
                wp::Operator::ReturnCall { function_index }
                    if function_index >= self.imported_funcs =>
                {
                    (0x12, self.shifted(function_index)?)
                }
                wp::Operator::RefFunc { function_index }
                    if function_index >= self.imported_funcs =>
                {
                    (0xd2, self.shifted(function_index)?)
                }
                wp::Operator::MemoryGrow { mem } if mem < self.exports.memories => {
                    (0x10, self.helper(mem)?)
                }
                wp::Operator::TableGrow { table } if table < self.exports.tables => (
                    0x10,
                    self.helper(self.exports.memories.saturating_add(table))?,
                ),
                wp::Operator::CallIndirect { type_index, .. }
                | wp::Operator::ReturnCallIndirect { type_index, .. } => {
                    self.own_type(type_index)?;
                    continue;
                }
                wp::Operator::Block { blockty }
                | wp::Operator::Loop { blockty }
                | wp::Operator::If { blockty } => {
                    if let wp::BlockType::FuncType(ty) = blockty {
                        self.own_type(ty)?;
                    }
                    continue;
                }
                _ => continue,
            };
            out.extend_from_slice(body.get(copied..at(offset)).ok_or(INVALID)?);
            out.push(opcode);
            leb128(&mut out, index);
            copied = at(reader.original_position());
        }
        out.extend_from_slice(body.get(copied..).ok_or(INVALID)?);
        code.raw(&out);
        Ok(())
    }

    fn parse_import_section(
        &mut self,
        imports: &mut wasm_encoder::ImportSection,
        section: wp::ImportSectionReader<'_>,
    ) -> Result<(), reencode::Error<Invalid>> {
        reencode::utils::parse_import_section(self, imports, section)?;
        self.add_imports(imports);
        Ok(())
    }

    fn parse_export_section(
        &mut self,
        exports: &mut wasm_encoder::ExportSection,
        section: wp::ExportSectionReader<'_>,
    ) -> Result<(), reencode::Error<Invalid>> {
        reencode::utils::parse_export_section(self, exports, section)?;
        self.add_exports(exports);
        Ok(())
    }

    fn intersperse_section_hook(
        &mut self,
        module: &mut wasm_encoder::Module,
        _after: Option<wasm_encoder::SectionId>,
        before: Option<wasm_encoder::SectionId>,
    ) -> Result<(), reencode::Error<Invalid>> {
        let next = before.map_or(u8::MAX, rank);
        // A module with code has a type section, which comes first, so a missing
        // import section is inserted after it.
        if !self.imports_done && next > rank(wasm_encoder::SectionId::Import) && next > 1 {
            let mut imports = wasm_encoder::ImportSection::new();
            self.add_imports(&mut imports);
            module.section(&imports);
        }
        if !self.exports_done && next > rank(wasm_encoder::SectionId::Export) {
            let mut exports = wasm_encoder::ExportSection::new();
            self.add_exports(&mut exports);
            module.section(&exports);
        }
        Ok(())
    }

    fn parse_custom_section(
        &mut self,
        _module: &mut wasm_encoder::Module,
        _section: wp::CustomSectionReader<'_>,
    ) -> Result<(), reencode::Error<Invalid>> {
        Ok(())
    }
}

/// Adds the host functions `module` imports from [`MODULE`] to `linker`.
pub(crate) fn add_to_linker(
    linker: &mut wasmi::Linker<GuestState>,
    module: &wasmi::Module,
) -> Result<(), wasmi::Error> {
    for import in module.imports().filter(|import| import.module() == MODULE) {
        let wasmi::ExternType::Func(ty) = import.ty() else {
            continue;
        };
        let name = import.name();
        let parsed = |prefix: &str| {
            name.strip_prefix(prefix)
                .and_then(|index| index.parse::<usize>().ok())
        };
        let growth = match (parsed("memory.grow:"), parsed("table.grow:")) {
            (Some(index), _) => Growth::Memory(index),
            (None, Some(index)) => Growth::Table(index),
            (None, None) => continue,
        };
        linker.func_new(
            MODULE,
            name,
            ty.clone(),
            move |mut caller, params, results| {
                let value = grow(&mut caller, growth, params)?;
                let slot = results.first_mut().ok_or_else(|| internal("no result"))?;
                *slot = value;
                Ok(())
            },
        )?;
    }
    Ok(())
}

/// Finds the instance's memories and tables, once instantiated.
pub(crate) fn targets(
    exports: &GrowExports,
    instance: &wasmi::Instance,
    store: &wasmi::Store<GuestState>,
) -> GrowTargets {
    GrowTargets {
        memories: (0..exports.memories)
            .filter_map(|index| instance.get_memory(store, &exports.memory(index)))
            .collect(),
        tables: (0..exports.tables)
            .filter_map(|index| instance.get_table(store, &exports.table(index)))
            .collect(),
    }
}

/// Which memory or table a host function grows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Growth {
    Memory(usize),
    Table(usize),
}

/// A growth the store lacks the fuel for, not done: the runner gives the call at
/// least `required` fuel, exactly as when wasmi stops before a block, then does the
/// growth itself ([`grow`] again) and resumes the guest with its result.
#[derive(Debug)]
pub(crate) struct NeedsFuel {
    pub(crate) required: u64,
    pub(crate) growth: Growth,
    pub(crate) params: Vec<wasmi::Val>,
}

impl std::fmt::Display for NeedsFuel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "a growth needs {} fuel", self.required)
    }
}

impl wasmi::errors::HostError for NeedsFuel {}

fn internal(message: &str) -> wasmi::Error {
    wasmi::Error::new(format!("sandtab: {message}"))
}

/// What `memory.grow`/`table.grow` returns: the old size, or -1.
fn result(grown: Option<u64>, is_64: bool) -> wasmi::Val {
    match (grown, is_64) {
        (Some(old), true) => wasmi::Val::I64(old as i64),
        (Some(old), false) => wasmi::Val::I32(old as u32 as i32),
        (None, true) => wasmi::Val::I64(-1),
        (None, false) => wasmi::Val::I32(-1),
    }
}

fn unsigned(value: Option<&wasmi::Val>) -> Result<u64, wasmi::Error> {
    match value {
        Some(wasmi::Val::I32(value)) => Ok(u64::from(*value as u32)),
        Some(wasmi::Val::I64(value)) => Ok(*value as u64),
        _ => Err(internal("a growth's delta is not an integer")),
    }
}

/// Fuel of the growth itself beyond the `call` (1, charged by wasmi with its block).
const CALL_EXTRA_FUEL: u64 = GROW_FUEL as u64 - 1;

/// Bytes copied per unit of fuel (`CustomFuelCosts::bytes_copied_per_fuel`).
const BYTES_PER_FUEL: u64 = crate::engine::BYTES_COPIED_PER_FUEL as u64;

/// Custom page sizes are off: a page is 64 KiB.
const PAGE: u64 = 1 << 16;

/// Does one growth, charging what wasmi's own instruction charges: [`GROW_FUEL`]
/// (less the `call`'s 1), and for a growth that succeeds its new bytes at the copying
/// rate (an 8-byte reference per table element). Errs with [`NeedsFuel`], before
/// changing anything, when the store holds less than that; the fuel for the bytes is
/// required only when the growth is within the memory's or table's bounds and the
/// limiter would allow it (wasmi charges it after those checks, too).
pub(crate) fn grow(
    mut ctx: impl wasmi::AsContextMut<Data = GuestState>,
    growth: Growth,
    params: &[wasmi::Val],
) -> Result<wasmi::Val, wasmi::Error> {
    let mut ctx = ctx.as_context_mut();
    let left = ctx.get_fuel()?;
    match growth {
        Growth::Memory(index) => {
            let memory = *ctx
                .data()
                .grow
                .memories
                .get(index)
                .ok_or_else(|| internal("a memory grew before the instance was ready"))?;
            let delta = unsigned(params.first())?;
            let ty = memory.ty(&ctx);
            let size = memory.size(&ctx);
            let bound = ty
                .maximum()
                .unwrap_or(if ty.is_64() { 1 << 48 } else { 1 << 16 });
            let bytes = delta.saturating_mul(PAGE);
            let likely = delta > 0
                && size
                    .checked_add(delta)
                    .is_some_and(|desired| desired <= bound)
                && ctx.data().limiter.allows_memory(
                    size.saturating_mul(PAGE),
                    size.saturating_add(delta).saturating_mul(PAGE),
                );
            let copy = if likely { bytes / BYTES_PER_FUEL } else { 0 };
            let required = CALL_EXTRA_FUEL.saturating_add(copy);
            if left < required {
                return Err(wasmi::Error::host(NeedsFuel {
                    required,
                    growth,
                    params: params.to_vec(),
                }));
            }
            let grown = memory.grow(&mut ctx, delta).ok();
            let charged = match grown {
                Some(_) if delta > 0 => CALL_EXTRA_FUEL.saturating_add(bytes / BYTES_PER_FUEL),
                _ => CALL_EXTRA_FUEL,
            };
            ctx.set_fuel(left.saturating_sub(charged))?;
            Ok(result(grown, ty.is_64()))
        }
        Growth::Table(index) => {
            let table = *ctx
                .data()
                .grow
                .tables
                .get(index)
                .ok_or_else(|| internal("a table grew before the instance was ready"))?;
            let init = match params.first() {
                Some(wasmi::Val::FuncRef(func)) => wasmi::Ref::Func(*func),
                Some(wasmi::Val::ExternRef(extern_ref)) => wasmi::Ref::Extern(*extern_ref),
                _ => return Err(internal("a table's element is not a reference")),
            };
            let delta = unsigned(params.get(1))?;
            let ty = table.ty(&ctx);
            let size = table.size(&ctx);
            let bound = ty.maximum().unwrap_or(u64::from(u32::MAX));
            let copy = delta.saturating_mul(8) / BYTES_PER_FUEL;
            let likely = delta > 0
                && size
                    .checked_add(delta)
                    .is_some_and(|desired| desired <= bound)
                && ctx
                    .data()
                    .limiter
                    .allows_table(size, size.saturating_add(delta));
            let required = CALL_EXTRA_FUEL.saturating_add(if likely { copy } else { 0 });
            if left < required {
                return Err(wasmi::Error::host(NeedsFuel {
                    required,
                    growth,
                    params: params.to_vec(),
                }));
            }
            let grown = match table.grow(&mut ctx, delta, init) {
                Ok(old) => Some(old),
                Err(
                    wasmi::errors::TableError::GrowOutOfBounds
                    | wasmi::errors::TableError::OutOfSystemMemory,
                ) => None,
                // The interpreter traps on anything else (a limiter's error: ours has none).
                Err(err) => return Err(wasmi::Error::new(err.to_string())),
            };
            let charged = match grown {
                Some(_) if delta > 0 => CALL_EXTRA_FUEL.saturating_add(copy),
                _ => CALL_EXTRA_FUEL,
            };
            ctx.set_fuel(left.saturating_sub(charged))?;
            Ok(result(grown, ty.is_64()))
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.
mod tests;
