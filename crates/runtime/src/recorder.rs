//! Recording a sandbox and replaying a recording (`record: true`, `replay: RECORDING`).
//! A recording sandbox keeps each operation that changes something (exec, callTool,
//! writeFile and the agent's file tools, closeSession, fetch) with the inputs it
//! consumed from the tape and its outcome. A replaying sandbox is a fresh one in memory
//! whose sources give back the recorded inputs and whose doors are shut; `replay` runs
//! every operation again and reports any difference in outcome or in the final tree.

use crate::error::{RuntimeError, RuntimeResult};
use crate::protocol::{Op, Reply};
use crate::recording::{RECORDING_FORMAT, RECORDING_VERSION, RecordedOp, Recording};
use crate::sandbox::{OutputSink, Sandbox};
use sandtab_caps::GATED_BUILTINS;
use sandtab_shell::ExecOutcome;
use sandtab_shell::file_tools;
use sandtab_shell::replay::{Inputs, Outcome, OutputDigest, Tape, TapeMode, tree_digest};
use serde_json::{Value, json};
use std::any::Any;
use std::cell::RefCell;
use std::sync::Arc;

/// The tape of a recording or replaying sandbox, and what it has kept.
pub(crate) struct Recorder {
    pub(crate) tape: Arc<Tape>,
    /// The inputs opening the sandbox consumed (its new tree's times, MCP servers).
    opening: RefCell<Inputs>,
    ops: RefCell<Vec<RecordedOp>>,
    /// The options a replay needs.
    options: Value,
    /// The recording being replayed.
    replaying: Option<Box<Recording>>,
    /// The shell interpreter's own clocks and random draws on the tape, while it lives
    /// (not for a replay of a recording older than that).
    _shell_sources: Option<Box<dyn Any>>,
}

/// An operation under way on the tape; dropped unfinished (it failed before it ran), it
/// leaves nothing behind.
pub(crate) struct OpGuard<'a> {
    recorder: &'a Recorder,
    done: bool,
}

impl OpGuard<'_> {
    /// Keeps `op` with the inputs it consumed and its `outcome`.
    pub(crate) fn finish(mut self, op: Op, outcome: Outcome) {
        self.done = true;
        let inputs = self.recorder.tape.end();
        self.recorder.ops.borrow_mut().push(RecordedOp {
            op,
            inputs,
            outcome,
        });
    }
}

impl Drop for OpGuard<'_> {
    fn drop(&mut self) {
        if !self.done {
            self.recorder.tape.end();
        }
    }
}

/// Whether `Sandbox::run` records `op` around its work (the agent's file tools and
/// `bash` record themselves, as the op that changed something; reads are not kept).
pub(crate) fn is_recorded(op: &Op) -> bool {
    match op {
        Op::Exec(_)
        | Op::WriteFile { .. }
        | Op::WriteFiles { .. }
        | Op::Mkdir { .. }
        | Op::Remove { .. }
        | Op::Rename { .. }
        | Op::CloseSession { .. }
        | Op::Fetch { .. } => true,
        Op::CallTool { name, .. } => !GATED_BUILTINS.contains(&name.as_str()),
        _ => false,
    }
}

impl Recorder {
    pub(crate) fn new(
        mode: TapeMode,
        options: Value,
        replaying: Option<Box<Recording>>,
        platform: &dyn crate::Platform,
    ) -> Self {
        let tape = Arc::new(Tape::new(mode));
        let tapes_the_shell = replaying.as_ref().is_none_or(|r| r.tapes_the_shell());
        Self {
            _shell_sources: tapes_the_shell
                .then(|| platform.shell_sources_on_tape(tape.clone()))
                .flatten(),
            tape,
            opening: RefCell::default(),
            ops: RefCell::default(),
            options,
            replaying,
        }
    }

    pub(crate) fn records(&self) -> bool {
        self.tape.mode() == TapeMode::Record
    }

    pub(crate) fn replays(&self) -> bool {
        self.tape.mode() == TapeMode::Replay
    }

    pub(crate) fn begin_opening(&self) {
        let inputs = self
            .replaying
            .as_ref()
            .map(|r| r.opening.clone())
            .unwrap_or_default();
        self.tape.begin(inputs);
    }

    pub(crate) fn end_opening(&self) {
        *self.opening.borrow_mut() = self.tape.end();
    }

    /// Starts an operation to record; one at a time.
    pub(crate) fn begin(&self) -> RuntimeResult<OpGuard<'_>> {
        if self.tape.active() {
            return Err(RuntimeError::new(
                "EBUSY",
                "this sandbox is recording: one operation at a time (wait for the one running)",
            ));
        }
        self.tape.begin(Inputs::default());
        Ok(OpGuard {
            recorder: self,
            done: false,
        })
    }

    /// Does `op` on the tape and keeps it with its outcome.
    pub(crate) async fn record(
        &self,
        sandbox: &Sandbox,
        op: Op,
        output: OutputSink<'_>,
    ) -> RuntimeResult<Reply> {
        let guard = self.begin()?;
        let reply = sandbox.perform(op.clone(), output).await;
        // An exec refused before it ran (busy, bad options) leaves nothing on the tape.
        if matches!(op, Op::Exec(_)) && reply.is_err() {
            return reply;
        }
        guard.finish(op, outcome(&reply));
        reply
    }

    /// The recording so far.
    pub(crate) async fn recording(&self, sandbox: &Sandbox) -> RuntimeResult<Value> {
        if !self.records() {
            return Err(RuntimeError::invalid(
                "this sandbox is not recording (open it with record: true)",
            ));
        }
        // First: the borrows below must not be held across this await.
        let tree = tree_digest(&sandbox.fs).await?;
        let recording = Recording {
            format: RECORDING_FORMAT.into(),
            version: RECORDING_VERSION,
            options: self.options.clone(),
            programs: program_list(sandbox),
            opening: self.opening.borrow().clone(),
            ops: self.ops.borrow().clone(),
            tree,
        };
        recording.to_json_value()
    }

    /// Replays every recorded operation with its recorded inputs: `{ ok, ops,
    /// mismatches: [{ index, op, expected, actual }], divergence, tree: { expected,
    /// actual } }`.
    pub(crate) async fn replay(&self, sandbox: &Sandbox) -> RuntimeResult<Value> {
        let Some(recording) = self.replaying.as_ref().filter(|_| self.replays()) else {
            return Err(RuntimeError::invalid(
                "this sandbox has no recording to replay (open it with replay: RECORDING)",
            ));
        };
        let installed = program_list(sandbox);
        if let Some(wanted) = recording.programs.iter().find(|p| !installed.contains(p)) {
            return Err(RuntimeError::invalid(format!(
                "the recording ran the program {wanted}, which this sandbox does not have: give the same `programs`"
            )));
        }
        let mut mismatches = Vec::new();
        for (index, recorded) in recording.ops.iter().enumerate() {
            self.tape.begin(recorded.inputs.clone());
            let actual = match &recorded.op {
                // The agent's file tools were recorded as the change they made: their
                // gate check and audit line read the clock outside the recorded op, so
                // they are replayed without the gate (through it, the check's readings
                // would take the file's recorded times).
                Op::WriteText { path, content } => answer_outcome(
                    file_tools::write_file(&sandbox.fs, path, content)
                        .await
                        .map(|n| n.to_string())
                        .map_err(|err| err.to_string()),
                ),
                Op::EditFile {
                    path,
                    old_string,
                    new_string,
                    replace_all,
                } => answer_outcome(
                    file_tools::edit_file(&sandbox.fs, path, old_string, new_string, *replace_all)
                        .await
                        .map(|n| n.to_string())
                        .map_err(|err| err.to_string()),
                ),
                op => {
                    let mut discard = |_: sandtab_shell::Stream, _: &[u8]| {};
                    // Boxed: `perform` is what called this replay.
                    let run: futures::future::LocalBoxFuture<'_, RuntimeResult<Reply>> =
                        Box::pin(sandbox.perform(op.clone(), &mut discard));
                    outcome(&run.await)
                }
            };
            self.tape.end();
            if actual != recorded.outcome {
                mismatches.push(json!({
                    "index": index,
                    "op": recorded.op.summary(),
                    "expected": recorded.outcome,
                    "actual": actual,
                }));
            }
        }
        let tree = tree_digest(&sandbox.fs).await?;
        let divergence = self.tape.divergence();
        Ok(json!({
            "ok": mismatches.is_empty() && tree == recording.tree && divergence.is_none(),
            "ops": recording.ops.len(),
            "mismatches": mismatches,
            "divergence": divergence,
            "tree": { "expected": recording.tree, "actual": tree },
        }))
    }
}

/// The installed programs as a recording lists them: `{ names, sha256 }`.
fn program_list(sandbox: &Sandbox) -> Vec<Value> {
    sandbox
        .sessions
        .try_borrow()
        .map(|s| {
            s.programs()
                .map(|(names, sha256)| json!({"names": names, "sha256": sha256}))
                .collect()
        })
        .unwrap_or_default()
}

/// An exec's outcome as a recording keeps it.
pub(crate) fn exec_outcome(stdout: &[u8], stderr: &[u8], outcome: &ExecOutcome) -> Outcome {
    Outcome {
        exit_code: Some(outcome.exit_code),
        stdout: Some(OutputDigest::of(stdout, outcome.stdout_total)),
        stderr: Some(OutputDigest::of(stderr, outcome.stderr_total)),
        answer: None,
    }
}

/// Any other operation's outcome.
pub(crate) fn answer_outcome(answer: Result<String, String>) -> Outcome {
    Outcome {
        answer: Some(match answer {
            Ok(text) => format!("ok: {text}"),
            Err(text) => format!("error: {text}"),
        }),
        ..Outcome::default()
    }
}

/// The outcome of a reply as a recording keeps it (the same for every version).
fn outcome(reply: &RuntimeResult<Reply>) -> Outcome {
    let answer = match reply {
        Err(err) => Err(err.message.clone()),
        Ok(Reply::Exec(result)) => {
            return Outcome {
                exit_code: Some(result.exit_code),
                stdout: Some(OutputDigest::of(&result.stdout.0, result.stdout_total)),
                stderr: Some(OutputDigest::of(&result.stderr.0, result.stderr_total)),
                answer: None,
            };
        }
        Ok(Reply::Done) => Ok(String::new()),
        Ok(Reply::Text { text }) => Ok(text.clone()),
        Ok(Reply::Count { count }) => Ok(count.to_string()),
        Ok(Reply::Flag { value }) => Ok(value.to_string()),
        Ok(Reply::Fetched(response)) => Ok(format!(
            "{} {} {}",
            response.status,
            response.url,
            OutputDigest::of(&response.body.0, response.body.0.len() as u64).sha256
        )),
        Ok(other) => Ok(serde_json::to_string(other).unwrap_or_default()),
    };
    answer_outcome(answer)
}
