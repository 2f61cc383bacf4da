//! What each fuel frame of a function body costs, as wasmi charges it.
//!
//! wasmi opens every function body, loop body and `if` arm with one `ConsumeFuel`
//! instruction that charges the whole frame at once: every operator in it, those of
//! nested `block`s included, whether or not a branch later skips them. Its translator
//! charges the operators of unreachable code too (after `br`, `return`, `unreachable`,
//! until an enclosing block's end is reachable again), to the frame they sit in, and a
//! `loop` or `if` there opens no frame of its own: its operators go to that frame as
//! well. This first pass over the body adds the costs up per frame.

use crate::MeterError;
use crate::cost::cost;
use wasmparser::{BinaryReaderError, FunctionBody, Operator};

/// What entering a function body, a loop body, or either arm of an `if` costs beside
/// its operators: each opens with its `ConsumeFuel`, which "charges at least 1 unit of
/// fuel out of caution" (wasmi's `encode_consume_fuel_op`). A `block` has none.
pub(crate) const FRAME_BASE: u64 = 1;

/// The frames of one function body: the body's, then for every `loop`, `if` and
/// `else` in order, the frame it opens (`None` where it opens none: in unreachable
/// code).
#[derive(Debug)]
pub(crate) struct Frames {
    pub(crate) body: u64,
    pub(crate) opened: Vec<Option<u64>>,
}

/// An open control construct.
struct Control {
    /// Whether it opened a fuel frame (a reachable `loop` or `if`).
    frame: bool,
    /// Whether a loop: a branch to it goes back to its header, not past its end.
    is_loop: bool,
    /// Whether its start was reachable.
    reachable_at_start: bool,
    /// Whether a reachable branch, or the end of an arm, goes past its end.
    branched_past_end: bool,
    /// An `if` not yet given an `else`: a false condition goes past its end.
    false_goes_past_end: bool,
}

impl Control {
    fn new(reachable: bool) -> Self {
        Self {
            frame: false,
            is_loop: false,
            reachable_at_start: reachable,
            branched_past_end: false,
            false_goes_past_end: false,
        }
    }
}

/// The cost of each fuel frame of `func`.
pub(crate) fn frame_costs(func: &FunctionBody<'_>) -> Result<Frames, MeterError> {
    let malformed = || MeterError::Rewrite("unbalanced control structure".into());
    // Every frame's cost, the body's first; `opened` points into it.
    let mut costs = vec![FRAME_BASE];
    let mut opened: Vec<Option<usize>> = Vec::new();
    // The frames open now, innermost last: indices into `costs`.
    let mut frames = vec![0usize];
    let mut controls: Vec<Control> = Vec::new();
    let mut reachable = true;
    let mut ops = func.get_operators_reader().map_err(parse)?;
    while !ops.eof() {
        let op = ops.read().map_err(parse)?;
        let frame = *frames.last().ok_or_else(malformed)?;
        let total = costs.get_mut(frame).ok_or_else(malformed)?;
        *total = total.saturating_add(cost(&op));
        match op {
            Operator::Loop { .. } | Operator::If { .. } => {
                let is_if = matches!(op, Operator::If { .. });
                controls.push(Control {
                    frame: reachable,
                    is_loop: !is_if,
                    false_goes_past_end: reachable && is_if,
                    ..Control::new(reachable)
                });
                opened.push(open(&mut costs, &mut frames, reachable));
            }
            Operator::Block { .. } | Operator::Try { .. } | Operator::TryTable { .. } => {
                controls.push(Control::new(reachable));
            }
            Operator::Else => {
                let control = controls.last_mut().ok_or_else(malformed)?;
                // The then-arm's end falling through goes past the `if`'s end; a false
                // condition now enters the else arm, reachable whenever the `if` was.
                control.branched_past_end |= reachable;
                control.false_goes_past_end = false;
                reachable = control.reachable_at_start;
                if control.frame {
                    frames.pop().ok_or_else(malformed)?;
                }
                opened.push(open(&mut costs, &mut frames, control.frame));
            }
            Operator::Catch { .. } | Operator::CatchAll => {
                let control = controls.last_mut().ok_or_else(malformed)?;
                control.branched_past_end |= reachable;
                reachable = control.reachable_at_start;
            }
            Operator::End | Operator::Delegate { .. } => {
                // The function's own `end` closes no control.
                let Some(control) = controls.pop() else {
                    continue;
                };
                if control.frame {
                    frames.pop().ok_or_else(malformed)?;
                }
                reachable |= control.branched_past_end || control.false_goes_past_end;
            }
            Operator::Br { relative_depth } => {
                branch_to(&mut controls, relative_depth, reachable);
                reachable = false;
            }
            Operator::BrIf { relative_depth }
            | Operator::BrOnNull { relative_depth }
            | Operator::BrOnNonNull { relative_depth } => {
                branch_to(&mut controls, relative_depth, reachable);
            }
            Operator::BrTable { targets } => {
                for depth in targets.targets() {
                    branch_to(&mut controls, depth.map_err(parse)?, reachable);
                }
                branch_to(&mut controls, targets.default(), reachable);
                reachable = false;
            }
            Operator::Return
            | Operator::Unreachable
            | Operator::ReturnCall { .. }
            | Operator::ReturnCallIndirect { .. }
            | Operator::ReturnCallRef { .. }
            | Operator::Throw { .. }
            | Operator::ThrowRef
            | Operator::Rethrow { .. } => reachable = false,
            _ => {}
        }
    }
    let cost_of = |index: usize| costs.get(index).copied().ok_or_else(malformed);
    Ok(Frames {
        body: cost_of(0)?,
        opened: opened
            .into_iter()
            .map(|frame| frame.map(cost_of).transpose())
            .collect::<Result<_, _>>()?,
    })
}

/// Opens a frame if `reachable`: its index in `costs`.
fn open(costs: &mut Vec<u64>, frames: &mut Vec<usize>, reachable: bool) -> Option<usize> {
    if !reachable {
        return None;
    }
    frames.push(costs.len());
    costs.push(FRAME_BASE);
    Some(costs.len() - 1)
}

/// Marks the control `depth` levels out as branched past its end, if the branch is
/// reachable and the control is not a loop. (Depth past the controls: the function
/// body, whose end returns.)
fn branch_to(controls: &mut [Control], depth: u32, reachable: bool) {
    if !reachable {
        return;
    }
    let Some(index) = usize::try_from(depth)
        .ok()
        .and_then(|depth| controls.len().checked_sub(depth.checked_add(1)?))
    else {
        return;
    };
    if let Some(control) = controls.get_mut(index)
        && !control.is_loop
    {
        control.branched_past_end = true;
    }
}

fn parse(err: BinaryReaderError) -> MeterError {
    MeterError::Invalid(err.to_string())
}
