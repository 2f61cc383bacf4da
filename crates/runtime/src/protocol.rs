//! The one vocabulary of a sandbox: [`Op`] is what it is asked (by the Rust API, by the
//! page through its worker, and in a recording), [`Reply`] what it answers. The worker's
//! messages carry [`PROTOCOL_VERSION`]; the TypeScript types in
//! `web/src/generated/protocol.ts` are generated from these (see the test below).

use crate::bytes::Bytes;
use crate::config::GuestLimitsSpec;
use crate::error::{RuntimeError, RuntimeResult};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// The version of the page ↔ worker protocol. A page and a worker of different versions
/// (a stale cached bundle) refuse each other's messages with `EPROTO`.
pub const PROTOCOL_VERSION: u32 = 2;

/// Deserialises `T`, naming the field an error is in (`exec.guestLimits.fuel: ...`).
pub fn decode<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
    deserializer: D,
    place: &str,
) -> RuntimeResult<T>
where
    D::Error: std::fmt::Display,
{
    serde_path_to_error::deserialize(deserializer).map_err(|err| {
        let path = err.path().to_string();
        let at = match path.as_str() {
            "." | "" => place.to_owned(),
            path => format!("{place}.{path}"),
        };
        RuntimeError::invalid(format!("{at}: {}", err.inner()))
    })
}

/// [`decode`] from a JSON value.
pub fn decode_value<T: DeserializeOwned>(value: Value, place: &str) -> RuntimeResult<T> {
    decode(value, place)
}

/// An exec: a script and how to run it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ExecRequest {
    /// The script (bash).
    #[cfg_attr(test, ts(optional = false))]
    pub script: String,
    /// The session it runs in ("main" when left out), made on first use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// Run in a new session dropped afterwards.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[cfg_attr(test, ts(as = "Option<bool>"))]
    pub fresh: bool,
    /// The most bytes of each stream kept in the result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output_bytes: Option<crate::config::Count>,
    /// Guest limits for this exec only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guest_limits: Option<GuestLimitsSpec>,
    /// The script's standard input, whole: what its first command reads when nothing in
    /// the script pipes into it (empty when left out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(type = "Uint8Array"))]
    pub stdin: Option<Bytes>,
    /// Standard input written while the script runs, as stream number N
    /// (`Sandbox::write_stdin`, `Sandbox::end_stdin`); not with `stdin`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdin_stream: Option<u32>,
    /// The stream is a terminal typed into (with `stdinStream`): the script's own
    /// commands see an empty stdin, and a program whose stdin is that one reads the
    /// terminal and sees a terminal (`isatty`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[cfg_attr(test, ts(as = "Option<bool>"))]
    pub tty: bool,
    /// Environment variables for this exec only, exported; afterwards each is what it
    /// was before.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[cfg_attr(test, ts(as = "Option<BTreeMap<String, String>>"))]
    pub env: BTreeMap<String, String>,
    /// The directory this exec starts in (absolute, or relative to the session's);
    /// afterwards the session is back in its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Wall-clock milliseconds for this exec, at most the sandbox's `timeoutMs`. The
    /// host arms the timer when the exec starts and calls `Sandbox::time_out`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

/// A file to write, for [`Op::WriteFiles`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct FileToWrite {
    pub path: String,
    #[cfg_attr(test, ts(type = "Uint8Array"))]
    pub data: Bytes,
}

/// A request through the network policy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FetchRequest {
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub method: Option<String>,
    /// Header names and values, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(test, ts(as = "Option<Vec<(String, String)>>", optional))]
    pub headers: Vec<(String, String)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional, type = "Uint8Array"))]
    pub body: Option<Bytes>,
    /// Follow redirects (within what the policy allows); true when left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub follow: Option<bool>,
}

/// The `ui` door's actions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(tag = "action", rename_all = "camelCase", deny_unknown_fields)]
pub enum UiRequest {
    /// Shows `html` (model-written; contained) titled `title`.
    Show {
        html: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(test, ts(optional))]
        title: Option<String>,
    },
    /// Waits for the person's next event (its JSON), or null after `timeoutMs`.
    #[serde(rename_all = "camelCase")]
    Wait {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(test, ts(optional))]
        timeout_ms: Option<u64>,
    },
    /// Closes what is shown.
    Close,
}

/// Everything a sandbox can be asked. Each is answered by one [`Reply`] (see
/// [`Op::reply_kind`]) or a [`RuntimeError`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(
    tag = "op",
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    deny_unknown_fields
)]
pub enum Op {
    /// Runs a script: [`Reply::Exec`].
    Exec(ExecRequest),
    /// Calls a tool through the gate (granted, or sandtab's own `bash`, `read_file`,
    /// `write_file`, `edit_file`): its JSON answer as [`Reply::Text`].
    CallTool { name: String, args: String },
    /// A file's bytes: [`Reply::Bytes`].
    ReadFile { path: String },
    /// Replaces a file (its directory must exist, unless `parents`) and saves it:
    /// [`Reply::Done`].
    WriteFile {
        path: String,
        #[cfg_attr(test, ts(type = "Uint8Array"))]
        data: Bytes,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        #[cfg_attr(test, ts(as = "Option<bool>", optional))]
        parents: bool,
    },
    /// Writes files in order (with `parents`, making their directories) and saves them
    /// together: [`Reply::Done`]. One that fails stops the rest; those before it stay.
    WriteFiles {
        files: Vec<FileToWrite>,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        #[cfg_attr(test, ts(as = "Option<bool>", optional))]
        parents: bool,
    },
    /// Makes a directory; with `parents`, the ones above it too, and one that exists
    /// is no error: [`Reply::Done`].
    Mkdir {
        path: String,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        #[cfg_attr(test, ts(as = "Option<bool>", optional))]
        parents: bool,
    },
    /// Removes a file, a symlink or an empty directory; with `recursive`, a directory
    /// and all below it; with `force`, a missing path is no error: [`Reply::Done`].
    Remove {
        path: String,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        #[cfg_attr(test, ts(as = "Option<bool>", optional))]
        recursive: bool,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        #[cfg_attr(test, ts(as = "Option<bool>", optional))]
        force: bool,
    },
    /// Renames (moves) a file or directory, replacing a file at `to`: [`Reply::Done`].
    Rename { from: String, to: String },
    /// What is at a path, following symlinks: [`Reply::Stat`].
    Stat { path: String },
    /// A directory's entries, sorted: [`Reply::Entries`].
    ListDir { path: String },
    /// Space in use and the quota: [`Reply::Usage`].
    Usage,
    /// Which sandbox this is: [`Reply::Info`].
    Info,
    /// Saves what is not saved yet: [`Reply::Flushed`].
    Flush,
    /// Saves, then snapshots the files: [`Reply::Snapshot`].
    Snapshot { label: String },
    /// The snapshots kept: [`Reply::Snapshots`].
    Snapshots,
    /// Makes the files what a snapshot holds: [`Reply::Done`].
    Restore { id: u64 },
    /// Deletes a snapshot: [`Reply::Done`].
    DeleteSnapshot { id: u64 },
    /// Copies the files (or a snapshot's) into a new stored sandbox: [`Reply::Done`].
    Fork {
        new_name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(test, ts(optional))]
        snapshot_id: Option<u64>,
    },
    /// A tar archive of a directory ("/" when left out): [`Reply::Bytes`].
    ExportTar {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(test, ts(optional))]
        path: Option<String>,
    },
    /// Unpacks a tar archive below a directory: [`Reply::Imported`].
    ImportTar {
        #[cfg_attr(test, ts(type = "Uint8Array"))]
        data: Bytes,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(test, ts(optional))]
        path: Option<String>,
    },
    /// Checks every stored record: [`Reply::Fsck`].
    Fsck,
    /// Ends a shell session: [`Reply::Flag`] (whether there was one).
    CloseSession { name: String },
    /// The sessions that exist: [`Reply::Names`].
    SessionNames,
    /// Tab completion: what may complete the word before the cursor of a terminal's
    /// line (`before`, the line up to the cursor) in session `session` ("main" when
    /// left out): [`Reply::Completion`]. A query: nothing runs.
    Complete {
        before: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(test, ts(optional))]
        session: Option<String>,
    },
    /// Whether `script` is a whole command, or one that goes on (an open quote, `if`
    /// without `fi`, a trailing `|`): [`Reply::Flag`], true when whole or wrong beyond
    /// what more lines could fix. A terminal asks before running a line. A query.
    IsComplete { script: String },
    /// The agent's `read_file`: [`Reply::Text`] (the text).
    ReadText {
        path: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(test, ts(optional))]
        offset: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(test, ts(optional))]
        limit: Option<u32>,
    },
    /// The agent's `write_file`: [`Reply::Count`] (bytes written).
    WriteText { path: String, content: String },
    /// The agent's `edit_file`: [`Reply::Count`] (replacements).
    EditFile {
        path: String,
        old_string: String,
        new_string: String,
        #[serde(default)]
        #[cfg_attr(test, ts(as = "Option<bool>", optional))]
        replace_all: bool,
    },
    /// A request through the network policy: [`Reply::Fetched`].
    Fetch { request: FetchRequest },
    /// The `ui` door: [`Reply::UiEvent`].
    Ui { request: UiRequest },
    /// The recording so far: [`Reply::Json`].
    Recording,
    /// Replays the recording the sandbox was opened with: [`Reply::Json`].
    Replay,
    /// Saves, then takes the sandbox down to hand to another host (`options.resume`
    /// there): [`Reply::Json`].
    Handoff,
    /// The audit log as JSON Lines: [`Reply::Text`].
    AuditLog,
    /// The tools' definitions for a model (`openai`, `anthropic`, `mcp`): [`Reply::Text`].
    ToolDefinitions { format: String },
}

impl Op {
    /// Whether this op only reads what is in memory, so it may be answered while a
    /// command runs (the worker answers it at once instead of queueing it).
    pub fn is_query(&self) -> bool {
        matches!(
            self,
            Op::ListDir { .. }
                | Op::Stat { .. }
                | Op::Usage
                | Op::Info
                | Op::Snapshots
                | Op::AuditLog
                | Op::ToolDefinitions { .. }
                | Op::Complete { .. }
                | Op::IsComplete { .. }
        )
    }

    /// A short description for reports (`exec "ls"`, `callTool weather`).
    pub fn summary(&self) -> String {
        match self {
            Op::Exec(request) => format!("exec {:?}", request.script),
            Op::CallTool { name, .. } => format!("callTool {name}"),
            Op::WriteFile { path, .. } => format!("writeFile {path}"),
            Op::WriteFiles { files, .. } => format!("writeFiles ({} files)", files.len()),
            Op::Mkdir { path, .. } => format!("mkdir {path}"),
            Op::Remove { path, .. } => format!("rm {path}"),
            Op::Rename { from, to } => format!("rename {from} {to}"),
            Op::WriteText { path, .. } => format!("write_file {path}"),
            Op::EditFile { path, .. } => format!("edit_file {path}"),
            Op::CloseSession { name } => format!("closeSession {name}"),
            Op::Fetch { request } => format!("fetch {}", request.url),
            other => serde_json::to_value(other)
                .ok()
                .and_then(|v| v.get("op").and_then(Value::as_str).map(str::to_owned))
                .unwrap_or_default(),
        }
    }
}

/// A stream of an exec, with the part kept and its totals.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ExecResult {
    #[cfg_attr(test, ts(type = "Uint8Array"))]
    pub stdout: Bytes,
    #[cfg_attr(test, ts(type = "Uint8Array"))]
    pub stderr: Bytes,
    pub exit_code: i32,
    pub stdout_truncated: bool,
    pub stderr_truncated: bool,
    /// Every byte written to stdout, including any past the cap.
    pub stdout_total: u64,
    pub stderr_total: u64,
    /// What was cut, for a person (null when nothing was).
    pub stdout_note: Option<String>,
    pub stderr_note: Option<String>,
    /// Set when storage refused to save the command's changes.
    pub save_error: Option<RuntimeError>,
    /// The engine the command's guest programs ran on; null when it ran none.
    #[serde(default)]
    pub guest_tier: Option<crate::config::GuestTier>,
    /// In a terminal (`tty`): how many bytes of what was typed the command read; the
    /// terminal gives the rest to its prompt as typed ahead (chunks that come after
    /// the command ended never reach the runtime, so the writer counts from here).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub stdin_read: Option<u64>,
    /// Whether the exec changed any file (names, metadata or contents).
    #[serde(default)]
    pub files_changed: bool,
}

/// What is at a path.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct FileStat {
    /// `file` or `dir` (symlinks are followed).
    #[cfg_attr(test, ts(type = "'file' | 'dir'"))]
    pub kind: String,
    /// Bytes of a file; 0 for a directory.
    pub size: u64,
    /// Permission bits (for example `0o644`, 420).
    pub mode: u32,
    /// Milliseconds since the epoch, with a fraction: the last change of the contents.
    pub modified: f64,
    /// Milliseconds since the epoch: when it was made.
    pub created: f64,
}

/// A directory entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct DirEntry {
    pub name: String,
    /// `file`, `dir` or `symlink`.
    #[cfg_attr(test, ts(type = "'file' | 'dir' | 'symlink'"))]
    pub kind: String,
    pub size: u64,
    /// Milliseconds since the epoch, with a fraction.
    pub modified: f64,
}

/// A snapshot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SnapshotEntry {
    pub id: u64,
    pub label: String,
    /// Milliseconds since the epoch.
    pub created: u64,
    pub files: u64,
    pub bytes: u64,
}

/// A response that came through the network policy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct FetchResponse {
    pub status: u16,
    pub status_text: String,
    pub headers: Vec<(String, String)>,
    pub url: String,
    pub redirected: bool,
    #[cfg_attr(test, ts(type = "Uint8Array"))]
    pub body: Bytes,
}

/// What an [`Op`] answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(
    tag = "reply",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Reply {
    Exec(ExecResult),
    Done,
    Text {
        text: String,
    },
    Bytes {
        #[cfg_attr(test, ts(type = "Uint8Array"))]
        data: Bytes,
    },
    Count {
        count: u64,
    },
    Flag {
        value: bool,
    },
    Names {
        names: Vec<String>,
    },
    /// The word being completed (as typed) and what may take its place, sorted (a
    /// directory ends with `/`).
    Completion {
        word: String,
        candidates: Vec<String>,
    },
    Entries {
        entries: Vec<DirEntry>,
    },
    Stat(FileStat),
    Usage {
        bytes: u64,
        files: u64,
        dirs: u64,
        max_bytes: u64,
        max_entries: u64,
        max_file_size: u64,
    },
    Info {
        name: String,
        storage: crate::config::StorageKind,
        /// The engine guest programs run on.
        guest_tier: crate::config::GuestTier,
    },
    Flushed {
        records: u64,
        bytes: u64,
    },
    Snapshot(SnapshotEntry),
    Snapshots {
        snapshots: Vec<SnapshotEntry>,
    },
    Imported {
        files: u64,
        directories: u64,
        symlinks: u64,
        skipped: u64,
    },
    Fsck {
        clean: bool,
        summary: String,
        problems: Vec<String>,
        inodes: u64,
        files: u64,
        bytes_checked: u64,
    },
    Fetched(FetchResponse),
    UiEvent {
        event: Option<String>,
    },
    /// A JSON document (a recording, a replay's report).
    Json {
        #[cfg_attr(test, ts(type = "unknown"))]
        value: Value,
    },
}

/// A message from the page to the worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Request {
    /// [`PROTOCOL_VERSION`] of the page that sent it.
    pub v: u32,
    /// The caller's id for the answer.
    pub id: u32,
    /// What is asked.
    pub op: Op,
}

impl Request {
    /// Reads a request, refusing one of another protocol version first (its op may not
    /// parse at all).
    pub fn check_version(version: Option<u32>) -> RuntimeResult<()> {
        match version {
            Some(PROTOCOL_VERSION) => Ok(()),
            Some(other) => Err(RuntimeError::new(
                "EPROTO",
                format!(
                    "the page speaks sandtab protocol {other} and this runtime {PROTOCOL_VERSION}: reload the page (a cached copy is out of date)"
                ),
            )),
            None => Err(RuntimeError::new(
                "EPROTO",
                "a message without a protocol version",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ts_rs::TS;

    /// The generated TypeScript, as committed.
    const GENERATED: &str = "../../web/src/generated/protocol.ts";

    fn typescript() -> String {
        let mut out = String::from(
            "// Generated from crates/runtime/src/protocol.rs by `SANDTAB_BLESS=1 cargo test -p sandtab-runtime`.\n// Do not edit: a test fails when this differs from what the Rust types generate.\n\n",
        );
        out.push_str(&format!(
            "export const PROTOCOL_VERSION = {PROTOCOL_VERSION};\n\n"
        ));
        let decls = [
            crate::config::Count::decl(),
            crate::config::StorageKind::decl(),
            crate::config::GuestTier::decl(),
            crate::config::ShellLimitsSpec::decl(),
            GuestLimitsSpec::decl(),
            crate::config::QuotaSpec::decl(),
            crate::config::FileContents::decl(),
            crate::config::MountSpec::decl(),
            crate::config::SandboxOptions::decl(),
            RuntimeError::decl(),
            ExecRequest::decl(),
            FileToWrite::decl(),
            FetchRequest::decl(),
            UiRequest::decl(),
            Op::decl(),
            ExecResult::decl(),
            DirEntry::decl(),
            FileStat::decl(),
            SnapshotEntry::decl(),
            FetchResponse::decl(),
            Reply::decl(),
            Request::decl(),
        ];
        for decl in decls {
            out.push_str("export ");
            out.push_str(&decl);
            out.push_str("\n\n");
        }
        out.truncate(out.trim_end().len());
        out.push('\n');
        // ts-rs writes 64-bit integers as `bigint`; serde-wasm-bindgen (as the worker
        // uses it) gives them as numbers, and none here passes 2^53.
        out.replace("bigint", "number")
    }

    #[test]
    fn the_typescript_types_are_generated_from_these() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(GENERATED);
        let wanted = typescript();
        if std::env::var_os("SANDTAB_BLESS").is_some() {
            std::fs::write(&path, &wanted).unwrap();
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == wanted,
            "{} is out of date: run `SANDTAB_BLESS=1 cargo test -p sandtab-runtime` and commit it",
            path.display()
        );
    }

    #[test]
    fn ops_read_as_the_page_writes_them() {
        let op: Op = serde_json::from_str(
            r#"{"op":"exec","script":"ls","session":"s","guestLimits":{"fuel":5}}"#,
        )
        .unwrap();
        let Op::Exec(request) = &op else {
            panic!("{op:?}")
        };
        assert_eq!(request.session.as_deref(), Some("s"));
        assert_eq!(request.guest_limits.as_ref().unwrap().fuel.unwrap().0, 5);
        let op: Op = serde_json::from_str(r#"{"op":"fork","newName":"b","snapshotId":3}"#).unwrap();
        assert_eq!(
            op,
            Op::Fork {
                new_name: "b".into(),
                snapshot_id: Some(3)
            }
        );
    }

    #[test]
    fn a_bad_op_names_the_field() {
        let err = decode::<Op, _>(
            &mut serde_json::Deserializer::from_str(
                r#"{"op":"exec","script":"ls","maxOutputBytes":-1}"#,
            ),
            "exec",
        )
        .unwrap_err();
        assert_eq!(err.code, "EINVAL");
        assert!(
            err.message.contains("must be a positive whole number"),
            "{}",
            err.message
        );
        let err = decode::<Op, _>(
            &mut serde_json::Deserializer::from_str(r#"{"op":"exec","script":"ls","sesion":"x"}"#),
            "exec",
        )
        .unwrap_err();
        assert!(
            err.message.contains("unknown field `sesion`"),
            "{}",
            err.message
        );
    }

    #[test]
    fn another_protocol_version_is_refused() {
        assert!(Request::check_version(Some(PROTOCOL_VERSION)).is_ok());
        let err = Request::check_version(Some(PROTOCOL_VERSION + 1)).unwrap_err();
        assert_eq!(err.code, "EPROTO");
        assert!(err.message.contains("reload the page"));
    }
}
