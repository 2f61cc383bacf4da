//! The module-level rewrite, on `wasm_encoder::reencode`: the new types, import,
//! globals, accessor functions and exports, shifted function indices everywhere they appear (element
//! segments, exports, start, constant expressions, the name section), the bounded
//! memories and tables, and every body metered by [`crate::body`].

use crate::body::{self, Context};
use crate::shape::Shape;
use crate::{
    FUEL_EXPORT, FUEL_SET_EXPORT, GROW_REFUSED_EXPORT, METER_MODULE, MeterError, MeterOptions,
    OUT_OF_FUEL, limits,
};
use wasm_encoder::reencode::{self, Reencode, utils};
use wasm_encoder::{
    ConstExpr, EntityType, ExportKind, Function, GlobalType, Instruction, Module, SectionId,
    ValType,
};

/// The indices the meter adds, and how the module's own functions move.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Indices {
    /// The module's function imports: a function index below this stays.
    imported_funcs: u32,
    /// The `out_of_fuel` import: right after the module's own function imports.
    pub(crate) out_of_fuel: u32,
    /// The fuel global: after every global the module has.
    pub(crate) fuel_global: u32,
    /// The refused-growth global: after the fuel global.
    pub(crate) refused_global: u32,
    /// The `[] -> []` type of `out_of_fuel`: after the module's own types.
    meter_type: u32,
    /// The fuel's reader (`[] -> [i64]`, the next type) and setter (`[i64] -> []`, the
    /// one after): after the module's own functions.
    fuel_get: u32,
    fuel_set: u32,
}

impl Indices {
    /// Function `index` once the import is in.
    pub(crate) fn function(&self, index: u32) -> Result<u32, MeterError> {
        if index < self.imported_funcs {
            return Ok(index);
        }
        index
            .checked_add(1)
            .ok_or(MeterError::TooLarge("a function index"))
    }
}

pub(crate) struct Rewriter<'a> {
    shape: &'a Shape,
    options: &'a MeterOptions,
    indices: Indices,
    /// Defined functions whose bodies are done, to find the next one's type.
    bodies: usize,
    memories: u32,
    tables: u32,
    types_done: bool,
    imports_done: bool,
    functions_done: bool,
    globals_done: bool,
    exports_done: bool,
    code_done: bool,
}

impl<'a> Rewriter<'a> {
    pub(crate) fn new(shape: &'a Shape, options: &'a MeterOptions) -> Self {
        // Checked in `shape`: every new index fits.
        let defined = u32::try_from(shape.func_types.len()).unwrap_or(u32::MAX);
        let fuel_get = shape
            .imported_funcs
            .saturating_add(1)
            .saturating_add(defined);
        Self {
            indices: Indices {
                imported_funcs: shape.imported_funcs,
                out_of_fuel: shape.imported_funcs,
                fuel_global: shape.globals,
                refused_global: shape.globals.saturating_add(1),
                meter_type: shape.types,
                fuel_get,
                fuel_set: fuel_get.saturating_add(1),
            },
            shape,
            options,
            bodies: 0,
            memories: 0,
            tables: shape.imported_tables,
            types_done: shape.has_types,
            imports_done: shape.has_imports,
            functions_done: shape.has_functions,
            globals_done: shape.has_globals,
            exports_done: shape.has_exports,
            code_done: shape.has_code,
        }
    }

    /// Rewrites `bytes` (validated) into a new module.
    pub(crate) fn run(mut self, bytes: &[u8]) -> Result<Vec<u8>, MeterError> {
        let mut module = Module::new();
        self.parse_core_module(&mut module, wasmparser::Parser::new(0), bytes)
            .map_err(|err| match err {
                reencode::Error::UserError(err) => err,
                other => MeterError::Rewrite(other.to_string()),
            })?;
        Ok(module.finish())
    }

    fn add_type(&mut self, types: &mut wasm_encoder::TypeSection) {
        types.ty().function([], []);
        types.ty().function([], [ValType::I64]);
        types.ty().function([ValType::I64], []);
        self.types_done = true;
    }

    fn add_functions(&mut self, functions: &mut wasm_encoder::FunctionSection) {
        let get_type = self.indices.meter_type.saturating_add(1);
        functions.function(get_type);
        functions.function(get_type.saturating_add(1));
        self.functions_done = true;
    }

    fn add_code(&mut self, code: &mut wasm_encoder::CodeSection) {
        let fuel = self.indices.fuel_global;
        let mut get = Function::new([]);
        get.instruction(&Instruction::GlobalGet(fuel));
        get.instruction(&Instruction::End);
        code.function(&get);
        let mut set = Function::new([]);
        set.instruction(&Instruction::LocalGet(0));
        set.instruction(&Instruction::GlobalSet(fuel));
        set.instruction(&Instruction::End);
        code.function(&set);
        self.code_done = true;
    }

    fn add_import(&mut self, imports: &mut wasm_encoder::ImportSection) {
        let ty = EntityType::Function(self.indices.meter_type);
        imports.import(METER_MODULE, OUT_OF_FUEL, ty);
        self.imports_done = true;
    }

    fn add_global(&mut self, globals: &mut wasm_encoder::GlobalSection) {
        let ty = GlobalType {
            val_type: ValType::I64,
            mutable: true,
            shared: false,
        };
        globals.global(ty, &ConstExpr::i64_const(0));
        let refused = GlobalType {
            val_type: ValType::I32,
            mutable: true,
            shared: false,
        };
        globals.global(refused, &ConstExpr::i32_const(0));
        self.globals_done = true;
    }

    fn add_export(&mut self, exports: &mut wasm_encoder::ExportSection) {
        exports.export(FUEL_EXPORT, ExportKind::Func, self.indices.fuel_get);
        exports.export(FUEL_SET_EXPORT, ExportKind::Func, self.indices.fuel_set);
        exports.export(
            GROW_REFUSED_EXPORT,
            ExportKind::Global,
            self.indices.refused_global,
        );
        self.exports_done = true;
    }
}

/// Where a section comes in a module (the tag section sits between memory and global).
fn rank(id: SectionId) -> u8 {
    match id {
        SectionId::Custom => 0,
        SectionId::Type => 1,
        SectionId::Import => 2,
        SectionId::Function => 3,
        SectionId::Table => 4,
        SectionId::Memory => 5,
        SectionId::Tag => 6,
        SectionId::Global => 7,
        SectionId::Export => 8,
        SectionId::Start => 9,
        SectionId::Element => 10,
        SectionId::DataCount => 11,
        SectionId::Code => 12,
        SectionId::Data => 13,
    }
}

type Result2<T> = Result<T, reencode::Error<MeterError>>;

fn user(err: MeterError) -> reencode::Error<MeterError> {
    reencode::Error::UserError(err)
}

impl Reencode for Rewriter<'_> {
    type Error = MeterError;

    fn function_index(&mut self, func: u32) -> u32 {
        // Validation bounds a module's functions far below `u32::MAX`, so the shift
        // cannot overflow; were it to, the output's validation would refuse the index.
        self.indices.function(func).unwrap_or(u32::MAX)
    }

    fn parse_type_section(
        &mut self,
        types: &mut wasm_encoder::TypeSection,
        section: wasmparser::TypeSectionReader<'_>,
    ) -> Result2<()> {
        utils::parse_type_section(self, types, section)?;
        self.add_type(types);
        Ok(())
    }

    fn parse_import_section(
        &mut self,
        imports: &mut wasm_encoder::ImportSection,
        section: wasmparser::ImportSectionReader<'_>,
    ) -> Result2<()> {
        utils::parse_import_section(self, imports, section)?;
        self.add_import(imports);
        Ok(())
    }

    fn parse_function_section(
        &mut self,
        functions: &mut wasm_encoder::FunctionSection,
        section: wasmparser::FunctionSectionReader<'_>,
    ) -> Result2<()> {
        utils::parse_function_section(self, functions, section)?;
        self.add_functions(functions);
        Ok(())
    }

    fn parse_code_section(
        &mut self,
        code: &mut wasm_encoder::CodeSection,
        section: wasmparser::CodeSectionReader<'_>,
    ) -> Result2<()> {
        utils::parse_code_section(self, code, section)?;
        self.add_code(code);
        Ok(())
    }

    fn parse_global_section(
        &mut self,
        globals: &mut wasm_encoder::GlobalSection,
        section: wasmparser::GlobalSectionReader<'_>,
    ) -> Result2<()> {
        utils::parse_global_section(self, globals, section)?;
        self.add_global(globals);
        Ok(())
    }

    fn parse_export_section(
        &mut self,
        exports: &mut wasm_encoder::ExportSection,
        section: wasmparser::ExportSectionReader<'_>,
    ) -> Result2<()> {
        utils::parse_export_section(self, exports, section)?;
        self.add_export(exports);
        Ok(())
    }

    fn parse_memory_section(
        &mut self,
        memories: &mut wasm_encoder::MemorySection,
        section: wasmparser::MemorySectionReader<'_>,
    ) -> Result2<()> {
        for memory in section {
            let ty = limits::memory(self.memories, memory?, self.options).map_err(user)?;
            memories.memory(self.memory_type(ty));
            self.memories = self.memories.saturating_add(1);
        }
        Ok(())
    }

    fn parse_table(
        &mut self,
        tables: &mut wasm_encoder::TableSection,
        mut table: wasmparser::Table<'_>,
    ) -> Result2<()> {
        table.ty = limits::table(self.tables, table.ty, self.options).map_err(user)?;
        self.tables = self.tables.saturating_add(1);
        utils::parse_table(self, tables, table)
    }

    fn parse_function_body(
        &mut self,
        code: &mut wasm_encoder::CodeSection,
        func: wasmparser::FunctionBody<'_>,
    ) -> Result2<()> {
        let cx = Context {
            indices: self.indices,
            params: self.shape.params_of(self.bodies),
        };
        self.bodies = self.bodies.saturating_add(1);
        code.raw(&body::instrument(&func, cx).map_err(user)?);
        Ok(())
    }

    /// Adds the meter's sections where the module has none of that kind.
    fn intersperse_section_hook(
        &mut self,
        module: &mut Module,
        _after: Option<SectionId>,
        before: Option<SectionId>,
    ) -> Result2<()> {
        let next = before.map_or(u8::MAX, rank);
        if !self.types_done && next > rank(SectionId::Type) {
            let mut types = wasm_encoder::TypeSection::new();
            self.add_type(&mut types);
            module.section(&types);
        }
        if !self.imports_done && next > rank(SectionId::Import) {
            let mut imports = wasm_encoder::ImportSection::new();
            self.add_import(&mut imports);
            module.section(&imports);
        }
        if !self.functions_done && next > rank(SectionId::Function) {
            let mut functions = wasm_encoder::FunctionSection::new();
            self.add_functions(&mut functions);
            module.section(&functions);
        }
        if !self.globals_done && next > rank(SectionId::Global) {
            let mut globals = wasm_encoder::GlobalSection::new();
            self.add_global(&mut globals);
            module.section(&globals);
        }
        if !self.exports_done && next > rank(SectionId::Export) {
            let mut exports = wasm_encoder::ExportSection::new();
            self.add_export(&mut exports);
            module.section(&exports);
        }
        if !self.code_done && next > rank(SectionId::Code) {
            let mut code = wasm_encoder::CodeSection::new();
            self.add_code(&mut code);
            module.section(&code);
        }
        Ok(())
    }

    /// Keeps the `name` section, its function indices shifted, when it parses;
    /// drops every other custom section (see the crate docs).
    fn parse_custom_section(
        &mut self,
        module: &mut Module,
        section: wasmparser::CustomSectionReader<'_>,
    ) -> Result2<()> {
        if let wasmparser::KnownCustom::Name(reader) = section.as_known()
            && let Some(names) = crate::names::rewrite(self, reader)
        {
            module.section(&names);
        }
        Ok(())
    }
}
