//! A recording: the operations a sandbox was asked to do (execs and the agent's file and
//! tool calls), each with the inputs it consumed and what it gave back, and the digest
//! of the file tree at the end. Replaying it in a fresh sandbox must give the same
//! outcomes and the same tree, bit for bit.

use super::tape::Inputs;
use sandtab_vfs::{FileKind, SandboxFs, VfsPath, VfsResult};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// What the `format` field of a recording says.
pub const RECORDING_FORMAT: &str = "sandtab-recording";
/// The recording format this sandtab writes. Version 2 added the shell interpreter's
/// own clocks and random draws (`$SECONDS`, `time`, `$SRANDOM`); a version 1 recording
/// still replays, with those read from the real sources as when it was made.
pub const RECORDING_VERSION: u32 = 2;
/// The oldest recording format this sandtab reads.
pub const OLDEST_RECORDING_VERSION: u32 = 1;
/// The most operations one recording may hold.
pub const MAX_OPS: usize = 100_000;

/// One operation the sandbox was asked to do.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Op {
    /// `exec(script, options)`.
    Exec {
        /// The script.
        script: String,
        /// The session named, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        session: Option<String>,
        /// Whether it ran in a fresh session.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        fresh: bool,
        /// Its output cap, if given.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_output_bytes: Option<u64>,
        /// Its `guestLimits`, as given.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        guest_limits: Option<Value>,
    },
    /// `callTool(name, args)` for a granted tool.
    CallTool {
        /// The tool.
        name: String,
        /// Its arguments (JSON text).
        args: String,
    },
    /// `writeFile(path, data)`.
    WriteFile {
        /// The path.
        path: String,
        /// The contents, base64.
        data: String,
    },
    /// The agent's `write_file`.
    WriteText {
        /// The path.
        path: String,
        /// The text.
        content: String,
    },
    /// The agent's `edit_file`.
    EditFile {
        /// The path.
        path: String,
        /// The text replaced.
        old_string: String,
        /// What replaces it.
        new_string: String,
        /// Every occurrence, not just a unique one.
        #[serde(default)]
        replace_all: bool,
    },
    /// `closeSession(name)`.
    CloseSession {
        /// The session.
        name: String,
    },
    /// `fetch(request)`.
    Fetch {
        /// The request as the page gave it.
        request: Value,
    },
}

/// What an operation gave back: for an exec its exit status and output digests, for
/// the others their answer (or error) as text.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// The exec's exit status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// SHA-256 of the stdout returned, and its total size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdout: Option<OutputDigest>,
    /// SHA-256 of the stderr returned, and its total size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr: Option<OutputDigest>,
    /// The answer of any other operation: `ok: TEXT` or `error: TEXT`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
}

/// A stream's digest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutputDigest {
    /// SHA-256 (hex) of the bytes returned.
    pub sha256: String,
    /// Every byte written, including any past the output cap.
    pub total: u64,
}

impl OutputDigest {
    /// The digest of `bytes`, of which `total` were written.
    pub fn of(bytes: &[u8], total: u64) -> Self {
        Self {
            sha256: hex(&Sha256::digest(bytes)),
            total,
        }
    }
}

/// One recorded operation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedOp {
    /// What was asked.
    #[serde(flatten)]
    pub op: Op,
    /// The inputs it consumed.
    #[serde(default)]
    pub inputs: Inputs,
    /// What it gave.
    pub outcome: Outcome,
}

/// A whole recording.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Recording {
    /// Always [`RECORDING_FORMAT`].
    pub format: String,
    /// [`RECORDING_VERSION`].
    pub version: u32,
    /// The sandbox's options that shape what it does (capabilities, limits, quota).
    #[serde(default)]
    pub options: Value,
    /// The programs installed (names and SHA-256), which the replaying sandbox needs too.
    #[serde(default)]
    pub programs: Vec<Value>,
    /// The inputs opening the sandbox consumed (its new tree's times, its MCP servers'
    /// answers).
    #[serde(default)]
    pub opening: Inputs,
    /// The operations, in order.
    pub ops: Vec<RecordedOp>,
    /// The digest of the file tree after the last operation ([`tree_digest`]).
    pub tree: String,
}

impl Recording {
    /// Reads a recording from JSON, refusing another format, an unknown version, or more
    /// than [`MAX_OPS`] operations.
    pub fn from_json(text: &str) -> Result<Self, String> {
        let deserializer = &mut serde_json::Deserializer::from_str(text);
        let recording: Recording = serde_path_to_error::deserialize(deserializer)
            .map_err(|err| format!("not a sandtab recording: {}: {}", err.path(), err.inner()))?;
        if recording.format != RECORDING_FORMAT {
            return Err(format!(
                "not a sandtab recording (its format is `{}`)",
                recording.format
            ));
        }
        if !(OLDEST_RECORDING_VERSION..=RECORDING_VERSION).contains(&recording.version) {
            return Err(format!(
                "a recording of version {}; this sandtab reads versions {OLDEST_RECORDING_VERSION} to {RECORDING_VERSION}",
                recording.version
            ));
        }
        if recording.ops.len() > MAX_OPS {
            return Err(format!("a recording of more than {MAX_OPS} operations"));
        }
        Ok(recording)
    }

    /// Whether the shell interpreter's own clocks and random draws are on its tape
    /// (from version 2).
    pub fn tapes_the_shell(&self) -> bool {
        self.version >= 2
    }
}

/// A digest of the whole file tree: every entry's path, kind, mode, size,
/// modification time, link target and contents (SHA-256). Equal digests mean the same
/// tree, bit for bit; inode numbers and access times are left out (the page's own
/// reads move access times).
pub async fn tree_digest(fs: &SandboxFs) -> VfsResult<String> {
    tree_digest_without(fs, &[]).await
}

/// [`tree_digest`] leaving out the entries at `skip` (read-only mounts, which each host
/// makes afresh) and everything below them.
pub async fn tree_digest_without(fs: &SandboxFs, skip: &[VfsPath]) -> VfsResult<String> {
    let mut hasher = Sha256::new();
    let mut pending = vec![VfsPath::root()];
    while let Some(dir) = pending.pop() {
        let mut entries = fs.mem().read_dir(&dir)?;
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        for entry in entries {
            let path = dir.join(&entry.name)?;
            if skip.contains(&path) {
                continue;
            }
            let meta = fs.mem().lstat(&path)?;
            let kind = match meta.kind {
                FileKind::File => "f",
                FileKind::Directory => "d",
                FileKind::Symlink => "l",
            };
            hasher.update(format!(
                "{path}\0{kind}\0{:o}\0{}\0{}\0",
                meta.mode, meta.size, meta.modified.0
            ));
            match meta.kind {
                FileKind::File => {
                    fs.load_for_read(&path).await?;
                    let data = fs
                        .mem()
                        .read_contents_with(&path, |data| Sha256::digest(data))?;
                    hasher.update(data);
                }
                FileKind::Symlink => hasher.update(fs.mem().read_link(&path)?),
                FileKind::Directory => pending.push(path),
            }
            hasher.update(b"\n");
        }
    }
    Ok(hex(&hasher.finalize()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_version(version: u32) -> String {
        serde_json::json!({"format": RECORDING_FORMAT, "version": version, "ops": [], "tree": ""})
            .to_string()
    }

    #[test]
    fn older_versions_are_read_and_say_what_they_hold() {
        let current = Recording::from_json(&with_version(RECORDING_VERSION)).unwrap();
        assert!(current.tapes_the_shell());
        let first = Recording::from_json(&with_version(1)).unwrap();
        assert!(
            !first.tapes_the_shell(),
            "version 1 has no shell clocks on its tape"
        );
        let err = Recording::from_json(&with_version(RECORDING_VERSION + 1)).unwrap_err();
        assert_eq!(
            err,
            format!(
                "a recording of version 3; this sandtab reads versions 1 to {RECORDING_VERSION}"
            )
        );
        assert!(Recording::from_json(&with_version(0)).is_err());
    }
}
