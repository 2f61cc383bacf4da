//! A first pass over a (validated) module: what the rewrite needs to know before it
//! starts, and the refusals that do not depend on rewriting anything.

use crate::{
    FUEL_EXPORT, FUEL_SET_EXPORT, GROW_REFUSED_EXPORT, METER_MODULE, MeterError, MeterOptions,
    limits,
};
use wasmparser::{Parser, Payload, TypeRef};

/// The counts and per-function facts the rewrite needs.
#[derive(Debug, Default)]
pub(crate) struct Shape {
    /// Types the module defines (every entry of every recursion group).
    pub(crate) types: u32,
    /// Per type: how many parameters it takes (0 for a non-function type).
    pub(crate) type_params: Vec<u32>,
    /// Functions the module imports: the meter's import comes right after them.
    pub(crate) imported_funcs: u32,
    /// Globals imported plus globals defined: the fuel global's index.
    pub(crate) globals: u32,
    /// Tables imported: a defined table's index starts after them.
    pub(crate) imported_tables: u32,
    /// Per defined function: its type's index.
    pub(crate) func_types: Vec<u32>,
    pub(crate) has_types: bool,
    pub(crate) has_imports: bool,
    pub(crate) has_globals: bool,
    pub(crate) has_exports: bool,
    pub(crate) has_functions: bool,
    pub(crate) has_code: bool,
}

/// The error for a count past `u32`.
fn too_large() -> MeterError {
    MeterError::TooLarge("more than 2^32 entries")
}

fn bump(count: &mut u32) -> Result<(), MeterError> {
    *count = count.checked_add(1).ok_or_else(too_large)?;
    Ok(())
}

/// Reads the module's shape, refusing what the meter cannot bound or would collide
/// with (see [`MeterError`]). `bytes` has been validated.
pub(crate) fn shape(bytes: &[u8], options: &MeterOptions) -> Result<Shape, MeterError> {
    let invalid = |err: wasmparser::BinaryReaderError| MeterError::Invalid(err.to_string());
    let mut shape = Shape::default();
    let mut memories = 0u32;
    for payload in Parser::new(0).parse_all(bytes) {
        match payload.map_err(invalid)? {
            Payload::TypeSection(section) => {
                shape.has_types = true;
                for group in section {
                    for sub in group.map_err(invalid)?.into_types() {
                        let params = match sub.composite_type.inner {
                            wasmparser::CompositeInnerType::Func(ref func) => {
                                u32::try_from(func.params().len()).map_err(|_| too_large())?
                            }
                            _ => 0,
                        };
                        shape.type_params.push(params);
                        bump(&mut shape.types)?;
                    }
                }
            }
            Payload::ImportSection(section) => {
                shape.has_imports = true;
                for import in section {
                    let import = import.map_err(invalid)?;
                    if import.module == METER_MODULE {
                        return Err(MeterError::ReservedImport {
                            module: import.module.to_owned(),
                            name: import.name.to_owned(),
                        });
                    }
                    match import.ty {
                        TypeRef::Func(_) => {
                            bump(&mut shape.imported_funcs)?;
                        }
                        TypeRef::Global(_) => bump(&mut shape.globals)?,
                        TypeRef::Table(ty) => {
                            if ty.table64 {
                                return Err(MeterError::Table64 {
                                    index: shape.imported_tables,
                                });
                            }
                            bump(&mut shape.imported_tables)?;
                        }
                        TypeRef::Memory(_) => {
                            return Err(MeterError::ImportedMemory {
                                module: import.module.to_owned(),
                                name: import.name.to_owned(),
                            });
                        }
                        TypeRef::Tag(_) => {}
                    }
                }
            }
            Payload::FunctionSection(section) => {
                shape.has_functions = true;
                for ty in section {
                    shape.func_types.push(ty.map_err(invalid)?);
                }
            }
            Payload::TableSection(section) => {
                for (k, table) in (0u32..).zip(section) {
                    let index = shape.imported_tables.checked_add(k).ok_or_else(too_large)?;
                    limits::table(index, table.map_err(invalid)?.ty, options)?;
                }
            }
            Payload::MemorySection(section) => {
                for memory in section {
                    limits::memory(memories, memory.map_err(invalid)?, options)?;
                    bump(&mut memories)?;
                }
            }
            Payload::GlobalSection(section) => {
                shape.has_globals = true;
                for global in section {
                    global.map_err(invalid)?;
                    bump(&mut shape.globals)?;
                }
            }
            Payload::CodeSectionStart { .. } => shape.has_code = true,
            Payload::ExportSection(section) => {
                shape.has_exports = true;
                for export in section {
                    let export = export.map_err(invalid)?;
                    if [FUEL_EXPORT, FUEL_SET_EXPORT, GROW_REFUSED_EXPORT].contains(&export.name) {
                        return Err(MeterError::ReservedExport(export.name.to_owned()));
                    }
                }
            }
            _ => {}
        }
    }
    // The new import, functions and types must have indices too.
    let defined = u32::try_from(shape.func_types.len()).map_err(|_| too_large())?;
    shape
        .imported_funcs
        .checked_add(defined)
        .and_then(|funcs| funcs.checked_add(3))
        .ok_or_else(too_large)?;
    shape.types.checked_add(3).ok_or_else(too_large)?;
    shape.globals.checked_add(2).ok_or_else(too_large)?;
    Ok(shape)
}

impl Shape {
    /// How many parameters defined function `k` takes (0 if unknown: validated
    /// modules always know).
    pub(crate) fn params_of(&self, k: usize) -> u32 {
        self.func_types
            .get(k)
            .and_then(|&ty| self.type_params.get(usize::try_from(ty).ok()?))
            .copied()
            .unwrap_or(0)
    }
}
