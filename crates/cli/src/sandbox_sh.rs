//! `sandtab sh` on the typed runtime (`sandtab_runtime::Sandbox`), the sandbox a tab and
//! Node run: with `--caps`, `--tool`, `--record`, `--resume` or `--handoff`, and for
//! `--replay`. Plain `sandtab sh` keeps running on the shell directly, which streams the
//! process's stdin to the script (an exec through the runtime has no stdin).

use crate::args::{Options, Script};
use crate::platform::{CliPlatform, HostDoors};
use crate::quote;
use sandtab_runtime::config::{Count, GuestLimitsSpec, QuotaSpec, ShellLimitsSpec};
use sandtab_runtime::{
    ExecRequest, Op, Platform, Reply, RuntimeError, Sandbox, SandboxOptions, StorageKind,
};
use sandtab_shell::Stream;
use serde_json::Value;
use std::io::Write;
use std::path::Path;
use std::rc::Rc;

/// JavaScript's largest exact integer: "no limit" in options a tab reads back.
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// The most bytes of each stream an exec keeps (all of it is streamed out).
const KEPT_OUTPUT: u64 = 1 << 20;

/// A script run from the command line may take as long as it takes.
const SCRIPT_TIMEOUT_MS: u64 = 24 * 3600 * 1000;

fn failed(err: RuntimeError) -> String {
    format!("{}: {}", err.code, err.message)
}

fn read_json(what: &str, path: &Path) -> Result<Value, String> {
    let text =
        std::fs::read_to_string(path).map_err(|err| format!("{what} {}: {err}", path.display()))?;
    serde_json::from_str(&text).map_err(|err| format!("{what} {}: not JSON: {err}", path.display()))
}

fn write_json(what: &str, path: &Path, value: &Value) -> Result<(), String> {
    let text = serde_json::to_string(value).map_err(|err| err.to_string())?;
    std::fs::write(path, text).map_err(|err| format!("{what} {}: {err}", path.display()))
}

/// The platform with the `--tool` commands, checked against the document's grants.
fn platform(options: &Options) -> Rc<dyn Platform> {
    Rc::new(CliPlatform::new(HostDoors::new(&options.sandbox.tools)))
}

/// Whether the document (a JSON value) has `section.key`.
fn document_has(document: Option<&Value>, section: &str, key: &str) -> bool {
    document.is_some_and(|doc| doc.get(section).and_then(|s| s.get(key)).is_some())
}

/// The sandbox's options from the command line.
fn sandbox_options(options: &Options) -> Result<SandboxOptions, String> {
    let flags = &options.sandbox;
    let capabilities = flags
        .caps
        .as_deref()
        .map(|path| read_json("--caps", path))
        .transpose()?;
    let resume = flags
        .resume
        .as_deref()
        .map(|path| read_json("--resume", path))
        .transpose()?;
    let resuming = resume.is_some();
    // A resumed sandbox keeps the limits and quota it was handed unless flags say
    // otherwise; a new one gets the command line's (a day's timeout, the byte quota).
    let shell_limits =
        (!resuming && !document_has(capabilities.as_ref(), "limits", "shell")).then(|| {
            ShellLimitsSpec {
                timeout_ms: Some(Count(SCRIPT_TIMEOUT_MS)),
                max_written_bytes: Some(Count(MAX_SAFE_INTEGER)),
                ..ShellLimitsSpec::default()
            }
        });
    let quota = match options.quota_bytes {
        Some(bytes) => Some(bytes),
        None if resuming || document_has(capabilities.as_ref(), "filesystem", "quota") => None,
        None => Some(options.quota()),
    }
    .map(|bytes| QuotaSpec {
        max_bytes: Some(Count(bytes.min(MAX_SAFE_INTEGER))),
        max_entries: Some(Count(MAX_SAFE_INTEGER)),
        max_file_size: Some(Count(MAX_SAFE_INTEGER)),
    });
    let guest = GuestLimitsSpec {
        fuel: options.fuel.map(Count),
        memory_bytes: options
            .memory_mb
            .map(|mb| Count(mb.saturating_mul(1 << 20))),
        deadline_ms: options.deadline_ms.map(Count),
        ..GuestLimitsSpec::default()
    };
    let guest_limits = (guest != GuestLimitsSpec::default()).then_some(guest);
    if let Some(document) = &capabilities {
        check_tools(document, options)?;
    }
    Ok(SandboxOptions {
        // Resumed, it keeps its name (a hand-off back says where it came from).
        name: resume
            .as_ref()
            .and_then(|handoff| handoff.get("name"))
            .and_then(Value::as_str)
            .map(str::to_owned),
        storage: Some(StorageKind::Memory),
        limits: shell_limits,
        guest_limits,
        quota,
        capabilities,
        record: flags.record.is_some().then_some(true),
        resume,
        ..SandboxOptions::default()
    })
}

/// Each `--tool` must name a tool the document grants.
fn check_tools(document: &Value, options: &Options) -> Result<(), String> {
    let granted: Vec<&str> = document
        .get("tools")
        .and_then(Value::as_array)
        .map(|tools| {
            tools
                .iter()
                .filter_map(|tool| tool.get("name").and_then(Value::as_str))
                .collect()
        })
        .unwrap_or_default();
    match options
        .sandbox
        .tools
        .iter()
        .find(|tool| !granted.contains(&tool.name.as_str()))
    {
        Some(tool) => Err(format!(
            "--tool {}: the capability document grants no tool `{}`",
            tool.name, tool.name
        )),
        None => Ok(()),
    }
}

/// Opens the sandbox the flags describe (the `--dir`s are copied in afterwards).
pub async fn open(options: &Options) -> Result<Sandbox, String> {
    if options.sandbox.record.is_some() && !options.dirs.is_empty() {
        return Err(
            "--dir cannot be given with --record: a recording holds only what its operations did"
                .into(),
        );
    }
    if options.sandbox.caps.is_none()
        && options.sandbox.resume.is_none()
        && let Some(tool) = options.sandbox.tools.first()
    {
        return Err(format!(
            "--tool {}: no capability document grants it (give --caps FILE)",
            tool.name
        ));
    }
    Sandbox::open(sandbox_options(options)?, platform(options))
        .await
        .map_err(failed)
}

/// Runs the script (its environment and arguments set first) in the main session,
/// then writes the recording and the hand-off: the script's exit status.
pub async fn run_script(
    sandbox: &Sandbox,
    options: &Options,
    script: &Script,
    args: &[String],
) -> Result<i32, String> {
    let text = match script {
        Script::Inline(text) => text.clone(),
        Script::File(path) => {
            std::fs::read_to_string(path).map_err(|err| format!("{}: {err}", path.display()))?
        }
    };
    // Positional parameters and the environment, as `bash -c SCRIPT ARGS...` sets them.
    let mut prelude = String::new();
    for (key, value) in &options.env {
        prelude.push_str(&format!("export {key}={}\n", quote(value)));
    }
    if !args.is_empty() {
        let quoted: Vec<String> = args.iter().map(|arg| quote(arg)).collect();
        prelude.push_str(&format!("set -- {}\n", quoted.join(" ")));
    }
    if !prelude.is_empty() {
        let (code, stderr) = exec(sandbox, &prelude, &mut |_, _| {}).await?;
        if code != 0 {
            return Err(format!("setting up the script's environment: {stderr}"));
        }
    }
    let mut forward = |stream: Stream, bytes: &[u8]| {
        // A closed pipe (`| head`) ends the output, not the script.
        let _ = match stream {
            Stream::Stdout => std::io::stdout()
                .write_all(bytes)
                .and_then(|()| std::io::stdout().flush()),
            Stream::Stderr => std::io::stderr().write_all(bytes),
        };
    };
    let (code, _) = exec(sandbox, &text, &mut forward).await?;
    if let Some(path) = &options.sandbox.record {
        let recording = json_reply(sandbox, Op::Recording).await?;
        write_json("--record", path, &recording)?;
    }
    if let Some(path) = &options.sandbox.handoff {
        let handoff = json_reply(sandbox, Op::Handoff).await?;
        write_json("--handoff", path, &handoff)?;
    }
    Ok(code)
}

/// Runs `script` in the main session: its exit status and its stderr as text.
async fn exec(
    sandbox: &Sandbox,
    script: &str,
    output: &mut (dyn FnMut(Stream, &[u8]) + Send),
) -> Result<(i32, String), String> {
    let request = ExecRequest {
        script: script.to_owned(),
        max_output_bytes: Some(Count(KEPT_OUTPUT)),
        ..ExecRequest::default()
    };
    match sandbox
        .run(Op::Exec(request), output)
        .await
        .map_err(failed)?
    {
        Reply::Exec(result) => Ok((
            result.exit_code,
            String::from_utf8_lossy(&result.stderr.0).into_owned(),
        )),
        other => Err(format!("an exec answered {other:?}")),
    }
}

async fn json_reply(sandbox: &Sandbox, op: Op) -> Result<Value, String> {
    match sandbox.run(op, &mut |_, _| {}).await.map_err(failed)? {
        Reply::Json { value } => Ok(value),
        other => Err(format!("expected JSON, got {other:?}")),
    }
}

/// `sh --replay FILE`: replays the recording in a new memory sandbox with the options it
/// keeps, prints the report; 0 when it matched, 1 when not.
pub async fn replay(options: &Options, path: &Path) -> Result<i32, String> {
    let recording = read_json("--replay", path)?;
    let mut replay_options = match recording.get("options") {
        Some(Value::Object(kept)) => Value::Object(kept.clone()),
        _ => Value::Object(serde_json::Map::new()),
    };
    replay_options["replay"] = recording;
    let replay_options = SandboxOptions::from_json(&replay_options.to_string()).map_err(failed)?;
    let sandbox = Sandbox::open(replay_options, platform(options))
        .await
        .map_err(failed)?;
    let report = json_reply(&sandbox, Op::Replay).await?;
    let text = serde_json::to_string_pretty(&report).map_err(|err| err.to_string())?;
    println!("{text}");
    Ok(if report["ok"] == Value::Bool(true) {
        0
    } else {
        1
    })
}
