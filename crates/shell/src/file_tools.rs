//! The file tools an agent's model calls directly (`read_file`, `write_file`,
//! `edit_file`), on the sandbox's filesystem. Paths are absolute or relative to
//! [`crate::HOME`]. Each change is saved before it returns.
//!
//! A model's call goes through the gate ([`begin`], then [`FileToolCall::run`]): the
//! capability document's `builtins` may deny a tool or keep it to some directories, its
//! schema, limits and constraints are checked, and the call is in the audit log.

use crate::replay::Op;
use crate::{Gate, HOME, ShellError};
use sandtab_caps::{BuiltinCall, Denial, Via};
use sandtab_vfs::{FileKind, SandboxFs, VfsPath};
use serde_json::{Value, json};
use std::collections::VecDeque;

/// The largest file `read_file` returns whole (bytes); larger ones need a line range.
pub const MAX_READ_BYTES: usize = 1 << 20;

fn resolve(path: &str) -> Result<VfsPath, ShellError> {
    if path.is_empty() {
        return Err(ShellError::FileTool("the path is empty".into()));
    }
    Ok(VfsPath::parse(HOME)?.join(path)?)
}

async fn text_of(fs: &SandboxFs, path: &VfsPath, shown: &str) -> Result<String, ShellError> {
    fs.load_for_read(path).await?;
    let bytes = fs.mem().read(path)?;
    String::from_utf8(bytes).map_err(|_| {
        ShellError::FileTool(format!(
            "{shown} is not UTF-8 text; use bash (od, base64, file) for binary files"
        ))
    })
}

/// The text of `path`, or of its lines `offset..offset + limit` (counted from 1).
pub async fn read_file(
    fs: &SandboxFs,
    path: &str,
    offset: Option<usize>,
    limit: Option<usize>,
) -> Result<String, ShellError> {
    let resolved = resolve(path)?;
    let text = text_of(fs, &resolved, path).await?;
    if offset.is_none() && limit.is_none() {
        if text.len() > MAX_READ_BYTES {
            return Err(ShellError::FileTool(format!(
                "{path} is {} bytes; read it in parts with offset and limit (lines), or with bash",
                text.len()
            )));
        }
        return Ok(text);
    }
    let first = offset.unwrap_or(1).max(1) - 1;
    let lines: String = text
        .split_inclusive('\n')
        .skip(first)
        .take(limit.unwrap_or(usize::MAX))
        .collect();
    Ok(lines)
}

/// Creates or replaces `path` with `content` (directories created); the bytes written.
pub async fn write_file(fs: &SandboxFs, path: &str, content: &str) -> Result<usize, ShellError> {
    let resolved = resolve(path)?;
    if let Some(parent) = resolved.parent() {
        fs.mem().create_dir_all(&parent)?;
    }
    fs.mem().write(&resolved, content.as_bytes())?;
    fs.flush().await?;
    Ok(content.len())
}

/// Replaces `old` by `new` in `path`: `old` must occur exactly once, or at least once
/// with `replace_all`. Changes nothing otherwise. The number of replacements.
pub async fn edit_file(
    fs: &SandboxFs,
    path: &str,
    old: &str,
    new: &str,
    replace_all: bool,
) -> Result<usize, ShellError> {
    if old.is_empty() {
        return Err(ShellError::FileTool("old_string is empty".into()));
    }
    if old == new {
        return Err(ShellError::FileTool(
            "old_string and new_string are the same".into(),
        ));
    }
    let resolved = resolve(path)?;
    let text = text_of(fs, &resolved, path).await?;
    let count = text.matches(old).count();
    match count {
        0 => {
            return Err(ShellError::FileTool(format!(
                "old_string does not occur in {path} (it must match exactly, whitespace included)"
            )));
        }
        n if n > 1 && !replace_all => {
            return Err(ShellError::FileTool(format!(
                "old_string occurs {n} times in {path}; give more context to make it unique, or set replace_all"
            )));
        }
        _ => {}
    }
    let edited = match replace_all {
        true => text.replace(old, new),
        false => text.replacen(old, new, 1),
    };
    fs.mem().write_owned(&resolved, edited.into_bytes())?;
    fs.flush().await?;
    Ok(count)
}

/// How many symlinks [`real_path`] follows before giving up (Linux's limit).
const MAX_SYMLINKS: usize = 40;

/// The absolute path `path` (relative to [`HOME`]) really names: every symlink on the
/// way followed, as the filesystem would when the tool opens it. A part that does not
/// exist yet is taken as it is (a file `write_file` would create).
pub fn real_path(fs: &SandboxFs, path: &str) -> Result<String, ShellError> {
    let resolved = resolve(path)?;
    let mut pending: VecDeque<String> = resolved.components().iter().cloned().collect();
    let mut current = VfsPath::root();
    let mut followed = 0;
    while let Some(name) = pending.pop_front() {
        let next = current.join(&name)?;
        match fs.mem().lstat(&next) {
            Ok(meta) if meta.kind == FileKind::Symlink => {
                followed += 1;
                if followed > MAX_SYMLINKS {
                    return Err(ShellError::FileTool(format!(
                        "{path}: too many levels of symbolic links"
                    )));
                }
                let target = current.join(&fs.mem().read_link(&next)?)?;
                let mut rest: VecDeque<String> = target.components().iter().cloned().collect();
                rest.extend(pending);
                pending = rest;
                current = VfsPath::root();
            }
            _ => current = next,
        }
    }
    Ok(current.to_string())
}

/// Why a model's file tool call did not succeed.
#[derive(Debug)]
pub enum ToolCallError {
    /// The gate refused it (`CAP_...`).
    Denied(Denial),
    /// It was allowed and failed (not found, no match, not text, ...).
    Failed(ShellError),
}

/// What a file tool call does, its arguments checked.
#[derive(Debug, Clone)]
enum Action {
    Read {
        path: String,
        offset: Option<usize>,
        limit: Option<usize>,
    },
    Write {
        path: String,
        content: String,
    },
    Edit {
        path: String,
        old: String,
        new: String,
        replace_all: bool,
    },
}

/// A file tool call the gate allowed, to [`FileToolCall::run`].
#[derive(Debug)]
pub struct FileToolCall {
    action: Action,
    call: BuiltinCall,
}

/// Checks the model's call of file tool `name` (`read_file`, `write_file`,
/// `edit_file`) with JSON `args` at the gate (a refusal is logged there), its paths
/// resolved on `fs` for the document's `paths`.
pub fn begin(
    gate: &Gate,
    fs: &SandboxFs,
    name: &str,
    args: &str,
    via: Via,
) -> Result<FileToolCall, ToolCallError> {
    if !matches!(name, "read_file" | "write_file" | "edit_file") {
        return Err(ToolCallError::Denied(Denial::new(
            sandtab_caps::Code::Denied,
            format!("`{name}` is not a file tool"),
        )));
    }
    let resolve = |path: &str| real_path(fs, path).map_err(|err| err.to_string());
    let call = gate
        .begin_builtin(name, args, via, &resolve)
        .map_err(ToolCallError::Denied)?;
    let parsed = call.args();
    let text = |key: &str| {
        parsed
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let count = |key: &str| {
        parsed
            .get(key)
            .and_then(Value::as_u64)
            .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
    };
    // The schema made sure of the types; a missing optional is its default.
    let action = match name {
        "read_file" => Action::Read {
            path: text("path"),
            offset: count("offset"),
            limit: count("limit"),
        },
        "write_file" => Action::Write {
            path: text("path"),
            content: text("content"),
        },
        _ => Action::Edit {
            path: text("path"),
            old: text("old_string"),
            new: text("new_string"),
            replace_all: parsed
                .get("replace_all")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        },
    };
    Ok(FileToolCall { action, call })
}

impl FileToolCall {
    /// The operation a recording keeps for this call (reads change nothing: none).
    pub fn recorded_op(&self) -> Option<Op> {
        match &self.action {
            Action::Read { .. } => None,
            Action::Write { path, content } => Some(Op::WriteText {
                path: path.clone(),
                content: content.clone(),
            }),
            Action::Edit {
                path,
                old,
                new,
                replace_all,
            } => Some(Op::EditFile {
                path: path.clone(),
                old_string: old.clone(),
                new_string: new.clone(),
                replace_all: *replace_all,
            }),
        }
    }

    /// Carries the call out on `fs` and logs how it went; the answer a model gets:
    /// `{"content"}`, `{"bytes_written"}` or `{"replacements"}`.
    pub async fn run(self, fs: &SandboxFs) -> Result<Value, ShellError> {
        let answer = self.perform(fs).await;
        self.finish(&answer);
        answer
    }

    /// Carries the call out on `fs` (see [`FileToolCall::run`]), not logged yet.
    pub async fn perform(&self, fs: &SandboxFs) -> Result<Value, ShellError> {
        match &self.action {
            Action::Read {
                path,
                offset,
                limit,
            } => read_file(fs, path, *offset, *limit)
                .await
                .map(|content| json!({ "content": content })),
            Action::Write { path, content } => write_file(fs, path, content)
                .await
                .map(|n| json!({ "bytes_written": n })),
            Action::Edit {
                path,
                old,
                new,
                replace_all,
            } => edit_file(fs, path, old, new, *replace_all)
                .await
                .map(|n| json!({ "replacements": n })),
        }
    }

    /// Logs how [`FileToolCall::perform`] went (a read's size is its text's).
    pub fn finish(self, answer: &Result<Value, ShellError>) {
        match answer {
            Ok(value) => self.call.finish(Ok(match value.get("content") {
                Some(Value::String(content)) => content.len(),
                _ => value.to_string().len(),
            })),
            Err(err) => self.call.finish(Err(&err.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.
    use super::*;
    use crate::WallClock;
    use sandtab_caps::{Capabilities, Code, NoDoors};
    use sandtab_vfs::Quota;
    use std::sync::Arc;

    fn p(path: &str) -> VfsPath {
        VfsPath::parse(path).unwrap()
    }

    fn setup(doc: &str) -> (Gate, SandboxFs) {
        let gate = Gate::new(Capabilities::from_json(doc).unwrap(), Arc::new(NoDoors));
        let fs = SandboxFs::in_memory(Arc::new(WallClock), Quota::UNLIMITED, vec![]).unwrap();
        fs.mem().create_dir_all(&p("/home/agent/src")).unwrap();
        (gate, fs)
    }

    async fn call(gate: &Gate, fs: &SandboxFs, name: &str, args: Value) -> Result<Value, String> {
        match begin(gate, fs, name, &args.to_string(), Via::Api) {
            Err(ToolCallError::Denied(denial)) => Err(denial.code.as_str().to_owned()),
            Err(ToolCallError::Failed(err)) => Err(err.to_string()),
            Ok(call) => call.run(fs).await.map_err(|err| err.to_string()),
        }
    }

    #[test]
    fn real_paths_follow_every_symlink() {
        let (_, fs) = setup("{}");
        let mem = fs.mem();
        mem.symlink("/etc", &p("/home/agent/src/up")).unwrap();
        mem.symlink("../src/up", &p("/home/agent/src/rel")).unwrap();
        mem.symlink("loop2", &p("/home/agent/loop1")).unwrap();
        mem.symlink("loop1", &p("/home/agent/loop2")).unwrap();
        assert_eq!(real_path(&fs, "src/up/passwd").unwrap(), "/etc/passwd");
        assert_eq!(real_path(&fs, "src/rel/x").unwrap(), "/etc/x");
        assert_eq!(
            real_path(&fs, "src/new/file").unwrap(),
            "/home/agent/src/new/file"
        );
        assert!(real_path(&fs, "loop1").is_err());
    }

    #[tokio::test]
    async fn the_model_s_file_tools_go_through_the_gate() {
        let (gate, fs) =
            setup(r#"{"builtins": {"write_file": false, "edit_file": {"paths": ["src"]}}}"#);
        let mem = fs.mem();
        mem.write(&p("/home/agent/b.txt"), b"hello").unwrap();
        mem.write(&p("/home/agent/src/a.txt"), b"hello").unwrap();
        mem.symlink("/home/agent/b.txt", &p("/home/agent/src/link"))
            .unwrap();
        let denied = call(
            &gate,
            &fs,
            "write_file",
            json!({"path": "x", "content": "y"}),
        )
        .await;
        assert_eq!(denied, Err(Code::Denied.as_str().to_owned()));
        assert!(!mem.exists(&p("/home/agent/x")), "nothing written");
        let edit = |path: &str| json!({"path": path, "old_string": "hello", "new_string": "bye"});
        for path in ["b.txt", "src/link", "src/../b.txt"] {
            assert_eq!(
                call(&gate, &fs, "edit_file", edit(path)).await,
                Err("CAP_CONSTRAINT".to_owned()),
                "{path}"
            );
        }
        assert_eq!(mem.read(&p("/home/agent/b.txt")).unwrap(), b"hello");
        assert_eq!(
            call(&gate, &fs, "edit_file", edit("src/a.txt")).await,
            Ok(json!({"replacements": 1}))
        );
        assert_eq!(
            call(&gate, &fs, "read_file", json!({"path": "src/a.txt"})).await,
            Ok(json!({"content": "bye"}))
        );
        let missing = call(&gate, &fs, "read_file", json!({"path": "nope"})).await;
        assert!(missing.is_err());
        let log = gate.audit().to_jsonl();
        let entries: Vec<Value> = log
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let codes: Vec<&str> = entries
            .iter()
            .map(|e| e["code"].as_str().unwrap_or("ok"))
            .collect();
        assert_eq!(
            codes,
            [
                "CAP_DENIED",
                "CAP_CONSTRAINT",
                "CAP_CONSTRAINT",
                "CAP_CONSTRAINT",
                "ok",
                "ok",
                "CAP_TOOL_FAILED"
            ]
        );
        assert_eq!(entries[0]["kind"], "denial");
        assert_eq!(entries[4]["kind"], "tool");
        assert_eq!(entries[5]["result_bytes"], 3);
        assert_eq!(entries[6]["kind"], "tool", "a failure is not a refusal");
    }
}
