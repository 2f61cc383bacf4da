//! Running a script in a session: the exec options checked once, the session chosen,
//! per-exec guest limits set and put back, the cancel handle kept, the exec audited.

use crate::config::GuestTier;
use crate::error::{RuntimeError, RuntimeResult};
use crate::protocol::{ExecRequest, ExecResult};
use crate::sandbox::{OutputSink, Sandbox};
use sandtab_shell::{DEFAULT_SESSION, ExecOutcome, Stream};

/// Runs `request` in `sandbox`, streaming output to `output`.
pub async fn exec(
    sandbox: &Sandbox,
    request: ExecRequest,
    output: OutputSink<'_>,
) -> RuntimeResult<ExecResult> {
    let tier = sandbox.guest_tier();
    let revision = sandbox.fs().mem().revision();
    let (outcome, read) = run_counting_stdin(sandbox, &request, output).await;
    let mut result = result(outcome?, tier);
    result.files_changed = sandbox.fs().mem().revision() != revision;
    if request.tty {
        result.stdin_read = Some(read);
    }
    Ok(result)
}

/// The shell's outcome of running `request` (the `bash` tool wants it unconverted).
pub(crate) async fn run(
    sandbox: &Sandbox,
    request: &ExecRequest,
    output: OutputSink<'_>,
) -> RuntimeResult<ExecOutcome> {
    run_counting_stdin(sandbox, request, output).await.0
}

/// [`run`], and how many bytes of its stdin stream the exec read.
async fn run_counting_stdin(
    sandbox: &Sandbox,
    request: &ExecRequest,
    output: OutputSink<'_>,
) -> (RuntimeResult<ExecOutcome>, u64) {
    // The exec's stdin stream ends with it, refused or not: later chunks are dropped.
    let stream = request
        .stdin_stream
        .map(|n| (n, sandbox.stdin.borrow_mut().start(n)));
    let outcome = run_in_session(sandbox, request, stream.as_ref(), output).await;
    let read = match stream {
        Some((n, _)) => sandbox.stdin.borrow_mut().finish(n),
        None => 0,
    };
    (outcome, read)
}

// Holding the `RefCell` borrow across the await is the point: it marks the sandbox busy
// for the whole exec, and a second exec meanwhile gets `EBUSY` from `try_borrow_mut`.
#[allow(clippy::await_holding_refcell_ref)]
async fn run_in_session(
    sandbox: &Sandbox,
    request: &ExecRequest,
    stream: Option<&(u32, Option<std::sync::Arc<crate::stdin::Pipe>>)>,
    output: OutputSink<'_>,
) -> RuntimeResult<ExecOutcome> {
    let mut sessions = sandbox
        .sessions
        .try_borrow_mut()
        .map_err(|_| RuntimeError::busy())?;
    if request.fresh && request.session.is_some() {
        return Err(RuntimeError::invalid(
            "exec options: give either session or fresh, not both",
        ));
    }
    if request.stdin.is_some() && request.stdin_stream.is_some() {
        return Err(RuntimeError::invalid(
            "exec options: give either stdin or stdinStream, not both",
        ));
    }
    if request.tty && request.stdin_stream.is_none() {
        return Err(RuntimeError::invalid(
            "exec options: tty needs the terminal's input as stdinStream",
        ));
    }
    if let Some(ms) = request.timeout_ms {
        let most = sessions.limits().timeout.as_millis();
        if ms == 0 || u128::from(ms) > most {
            return Err(RuntimeError::invalid(format!(
                "exec options: timeoutMs must be from 1 to the sandbox's limits.timeoutMs ({most}), not {ms}"
            )));
        }
    }
    let cap = request
        .max_output_bytes
        .map_or(sessions.limits().max_output_bytes, |n| {
            usize::try_from(n.0).unwrap_or(usize::MAX)
        });
    let mut fresh;
    let (shell, session_name) = if request.fresh {
        fresh = sessions.fresh()?;
        (&mut fresh, "(fresh)")
    } else {
        let name = request.session.as_deref().unwrap_or(DEFAULT_SESSION);
        (sessions.session(name)?, name)
    };
    let usual = shell.limits().guest;
    let guest_limits = match &request.guest_limits {
        Some(spec) => Some(spec.over(usual, "guestLimits")?),
        None => None,
    };
    // Checked before anything is set: a bad option leaves the session as it was.
    let overridden = shell.apply_overrides(&request.env, request.cwd.as_deref())?;
    if let Some(limits) = guest_limits
        && let Err(err) = shell.set_guest_limits(limits)
    {
        if let Some(overridden) = overridden {
            shell.restore_overrides(overridden);
        }
        return Err(err.into());
    }
    *sandbox.cancel.borrow_mut() = Some(shell.cancel_handle());
    let stdin = request.stdin.clone().map(|bytes| bytes.0);
    let outcome = match stream {
        Some((_, Some(pipe))) if request.tty => {
            shell
                .exec_in_terminal(&request.script, pipe.clone(), cap, output)
                .await
        }
        Some((_, Some(pipe))) => {
            shell
                .exec_with_stdin_stream_cap(&request.script, pipe.clone(), cap, output)
                .await
        }
        // A stream that already finished: nothing will come.
        Some((_, None)) => {
            shell
                .exec_with_output_cap(&request.script, Some(Vec::new()), cap, output)
                .await
        }
        None => {
            shell
                .exec_with_output_cap(&request.script, stdin, cap, output)
                .await
        }
    };
    *sandbox.cancel.borrow_mut() = None;
    if request.guest_limits.is_some() {
        let _ = shell.set_guest_limits(usual);
    }
    if let Some(overridden) = overridden {
        shell.restore_overrides(overridden);
    }
    sandbox.gate.log_exec(
        session_name,
        &request.script,
        outcome.exit_code,
        outcome.stdout_total,
        outcome.stderr_total,
    );
    Ok(outcome)
}

/// The shell's outcome as the protocol gives it; `tier` runs the sandbox's guests.
pub(crate) fn result(outcome: ExecOutcome, tier: GuestTier) -> ExecResult {
    let stdout_note = outcome.truncation_note(Stream::Stdout);
    let stderr_note = outcome.truncation_note(Stream::Stderr);
    ExecResult {
        stdout_note,
        stderr_note,
        exit_code: outcome.exit_code,
        stdout_truncated: outcome.stdout_truncated,
        stderr_truncated: outcome.stderr_truncated,
        stdout_total: outcome.stdout_total,
        stderr_total: outcome.stderr_total,
        save_error: outcome.save_error.map(Into::into),
        guest_tier: outcome.ran_guest.then_some(tier),
        stdin_read: None,
        files_changed: false,
        stdout: outcome.stdout.into(),
        stderr: outcome.stderr.into(),
    }
}
