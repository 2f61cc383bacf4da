//! Metering one function body: each fuel frame (the body, a loop body, an `if` arm)
//! charged its whole cost where it opens, as wasmi does ([`crate::frames`]); a check at
//! function entry and at every loop header; shifted function indices.
//!
//! Operators are copied byte for byte but for those that name a defined function
//! (`call`, `return_call`, `ref.func`), which are re-encoded with the shifted index:
//! re-encoding every operator would cost more and risk changing what is not ours.

use crate::cost::{BYTES_PER_FUEL, Dynamic, dynamic};
use crate::frames::frame_costs;
use crate::{MeterError, rewrite::Indices};
use wasm_encoder::{BlockType, Encode, Instruction};
use wasmparser::{BinaryReaderError, FunctionBody, Operator};

/// What the body rewriter needs from the module.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Context {
    pub(crate) indices: Indices,
    /// The function's parameter count: its first local's index is past them.
    pub(crate) params: u32,
}

fn parse(err: BinaryReaderError) -> MeterError {
    MeterError::Invalid(err.to_string())
}

/// The body, metered, ready for `CodeSection::raw`.
pub(crate) fn instrument(func: &FunctionBody<'_>, cx: Context) -> Result<Vec<u8>, MeterError> {
    let body = func.as_bytes();
    let base = func.range().start;
    let at = |offset: usize| {
        offset
            .checked_sub(base)
            .ok_or_else(|| MeterError::Rewrite("an operator outside its body".into()))
    };

    // The locals: their groups are copied as they are; the scratch `i32`s may follow.
    let mut reader = func.get_binary_reader();
    let groups = reader.read_var_u32().map_err(parse)?;
    let groups_start = at(reader.original_position())?;
    let mut declared = 0u32;
    for local in func.get_locals_reader().map_err(parse)? {
        let (count, _) = local.map_err(parse)?;
        declared = declared.saturating_add(count);
    }
    let scratch = cx.params.saturating_add(declared);

    let frames = frame_costs(func)?;
    let mut opened = frames.opened.into_iter();
    let mut open_frame = |code: &mut Vec<u8>, check: bool| -> Result<(), MeterError> {
        let frame = opened
            .next()
            .ok_or_else(|| MeterError::Rewrite("a frame the first pass did not see".into()))?;
        if let Some(cost) = frame {
            charge(code, cx.indices, cost, check);
        }
        Ok(())
    };

    let mut ops = func.get_operators_reader().map_err(parse)?;
    let locals_end = at(ops.original_position())?;
    let mut code = Vec::with_capacity(body.len() + body.len() / 4 + 32);
    charge(&mut code, cx.indices, frames.body, true);
    let mut needs_scratch = false;
    while !ops.eof() {
        let (op, offset) = ops.read_with_offset().map_err(parse)?;
        let end = at(ops.original_position())?;
        let start = at(offset)?;
        let charge = dynamic(&op);
        if let Some(Dynamic::Before { bytes } | Dynamic::AfterGrowth { bytes, .. }) = charge {
            needs_scratch = true;
            Instruction::LocalTee(scratch).encode(&mut code);
            if matches!(charge, Some(Dynamic::Before { .. })) {
                charge_count(&mut code, cx.indices.fuel_global, scratch, bytes);
            }
        }
        match shifted(&op, cx.indices)? {
            Some(instruction) => instruction.encode(&mut code),
            None => code.extend_from_slice(
                body.get(start..end)
                    .ok_or(MeterError::Rewrite("operator".into()))?,
            ),
        }
        if let Some(Dynamic::AfterGrowth { bytes, refused }) = charge {
            charge_growth(&mut code, cx.indices, scratch, bytes, refused);
        }
        match op {
            Operator::Loop { .. } => open_frame(&mut code, true)?,
            Operator::If { .. } | Operator::Else => open_frame(&mut code, false)?,
            _ => {}
        }
    }

    let mut out = Vec::with_capacity(code.len() + locals_end + 8);
    if needs_scratch {
        let groups = groups
            .checked_add(1)
            .ok_or(MeterError::TooLarge("local groups"))?;
        groups.encode(&mut out);
        out.extend_from_slice(
            body.get(groups_start..locals_end)
                .ok_or(MeterError::Rewrite("locals".into()))?,
        );
        SCRATCH_LOCALS.encode(&mut out);
        wasm_encoder::ValType::I32.encode(&mut out);
    } else {
        out.extend_from_slice(
            body.get(..locals_end)
                .ok_or(MeterError::Rewrite("locals".into()))?,
        );
    }
    out.extend_from_slice(&code);
    Ok(out)
}

/// `op` re-encoded with a shifted function index, if it names a defined function.
fn shifted(
    op: &Operator<'_>,
    indices: Indices,
) -> Result<Option<Instruction<'static>>, MeterError> {
    Ok(match *op {
        Operator::Call { function_index } => {
            Some(Instruction::Call(indices.function(function_index)?))
        }
        Operator::ReturnCall { function_index } => {
            Some(Instruction::ReturnCall(indices.function(function_index)?))
        }
        Operator::RefFunc { function_index } => {
            Some(Instruction::RefFunc(indices.function(function_index)?))
        }
        _ => None,
    })
}

/// Opens a frame in `code`: its charge, and (at function entry and loop headers) the
/// check that calls the host when the slice's fuel is spent.
fn charge(code: &mut Vec<u8>, indices: Indices, cost: u64, check: bool) {
    let fuel = indices.fuel_global;
    if cost > 0 {
        let cost = i64::try_from(cost).unwrap_or(i64::MAX);
        for instruction in [
            Instruction::GlobalGet(fuel),
            Instruction::I64Const(cost),
            Instruction::I64Sub,
            Instruction::GlobalSet(fuel),
        ] {
            instruction.encode(code);
        }
    }
    if check {
        for instruction in [
            Instruction::GlobalGet(fuel),
            Instruction::I64Const(0),
            Instruction::I64LtS,
            Instruction::If(BlockType::Empty),
            Instruction::Call(indices.out_of_fuel),
            Instruction::End,
        ] {
            instruction.encode(code);
        }
    }
}

/// The scratch `i32` locals a function with a run-time charge gains: the operand,
/// and a growth's result.
const SCRATCH_LOCALS: u32 = 2;

/// Charges the count in local `scratch` of items of `bytes` each, at wasmi's rate.
fn charge_count(code: &mut Vec<u8>, fuel: u32, scratch: u32, bytes: u64) {
    let bytes = i64::try_from(bytes).unwrap_or(i64::MAX);
    let per_fuel = i64::try_from(BYTES_PER_FUEL).unwrap_or(i64::MAX);
    for instruction in [
        Instruction::GlobalGet(fuel),
        Instruction::LocalGet(scratch),
        Instruction::I64ExtendI32U,
        Instruction::I64Const(bytes),
        Instruction::I64Mul,
        Instruction::I64Const(per_fuel),
        Instruction::I64DivU,
        Instruction::I64Sub,
        Instruction::GlobalSet(fuel),
    ] {
        instruction.encode(code);
    }
}

/// After a growth (its result on the stack, left there): charges its delta, in local
/// `scratch`, if it succeeded; marks the refused-growth global if it did not.
fn charge_growth(code: &mut Vec<u8>, indices: Indices, scratch: u32, bytes: u64, refused: i32) {
    let fuel = indices.fuel_global;
    let result = scratch.saturating_add(1);
    for instruction in [
        Instruction::LocalTee(result),
        Instruction::I32Const(-1),
        Instruction::I32Ne,
        Instruction::If(BlockType::Empty),
    ] {
        instruction.encode(code);
    }
    charge_count(code, fuel, scratch, bytes);
    for instruction in [
        Instruction::Else,
        Instruction::I32Const(refused),
        Instruction::GlobalSet(indices.refused_global),
        Instruction::End,
        Instruction::LocalGet(result),
    ] {
        instruction.encode(code);
    }
}
