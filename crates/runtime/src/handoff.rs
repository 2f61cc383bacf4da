//! Handing a sandbox to another host and back: its files (every entry, with modes and
//! times), its sessions' shell state and the options that shape it (capabilities minus
//! the secrets the page keeps), as one JSON document. A tab hands off to Node or the CLI
//! (`Sandbox.create({ resume })`, `sandtab sh --resume FILE`), which hand the result back
//! the same way; the tree digest proves nothing was lost on the way.

use crate::bytes::Bytes;
use crate::config::SandboxOptions;
use crate::error::{RuntimeError, RuntimeResult};
use crate::sandbox::Sandbox;
use sandtab_shell::Sessions;
use sandtab_shell::replay::tree_digest_without;
use sandtab_vfs::{FileKind, SandboxFs, Timestamp, VfsPath};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What the `format` field of a hand-off says.
pub const HANDOFF_FORMAT: &str = "sandtab-handoff";
/// The hand-off format this sandtab writes and reads.
pub const HANDOFF_VERSION: u32 = 1;

/// Nanosecond times as decimal text: past 2^53, a JSON number would lose its last
/// digits in JavaScript, and the tree digest with them.
mod nanos_text {
    use serde::{Deserialize, Deserializer, Serializer, de};

    pub fn serialize<S: Serializer>(nanos: &u64, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&nanos.to_string())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u64, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse()
            .map_err(|_| de::Error::custom("a time must be nanoseconds as decimal text"))
    }
}

/// One entry of the tree (times in nanoseconds since the epoch).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase", deny_unknown_fields)]
pub enum Entry {
    Dir {
        path: String,
        mode: u32,
        #[serde(with = "nanos_text")]
        modified: u64,
    },
    File {
        path: String,
        mode: u32,
        #[serde(with = "nanos_text")]
        modified: u64,
        data: Bytes,
    },
    Symlink {
        path: String,
        target: String,
        #[serde(with = "nanos_text")]
        modified: u64,
    },
}

/// A session's name and shell state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionState {
    pub name: String,
    pub state: Value,
}

/// A sandbox handed over.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Handoff {
    pub format: String,
    pub version: u32,
    /// The sandbox's name where it came from.
    pub name: String,
    /// Its limits, quota, mounts and capability document.
    pub options: SandboxOptions,
    /// Every entry below `/` but inside read-only mounts, parents first.
    pub entries: Vec<Entry>,
    pub sessions: Vec<SessionState>,
    /// The tree's digest when it was handed over (read-only mounts left out).
    pub tree: String,
}

impl Handoff {
    /// Reads a hand-off (its JSON value or text).
    pub fn from_value(value: Value) -> RuntimeResult<Self> {
        let value = match value {
            Value::String(text) => serde_json::from_str(&text)
                .map_err(|err| RuntimeError::invalid(format!("options.resume: {err}")))?,
            other => other,
        };
        let handoff: Handoff = crate::protocol::decode_value(value, "options.resume")?;
        if handoff.format != HANDOFF_FORMAT || handoff.version != HANDOFF_VERSION {
            return Err(RuntimeError::invalid(format!(
                "options.resume: not a sandtab hand-off of version {HANDOFF_VERSION} (format `{}`, version {})",
                handoff.format, handoff.version
            )));
        }
        Ok(handoff)
    }

    /// The hand-off as JSON, its bytes as base64.
    pub fn to_value(&self) -> RuntimeResult<Value> {
        crate::bytes::with_base64(|| serde_json::to_value(self))
            .map_err(|err| RuntimeError::invalid(err.to_string()))
    }
}

/// Saves `sandbox` and takes it down as a hand-off.
pub(crate) async fn hand_off(sandbox: &Sandbox) -> RuntimeResult<Value> {
    let fs = sandbox.fs();
    fs.flush().await?;
    let read_only: Vec<VfsPath> = sandbox.read_only_mounts();
    let mut entries = Vec::new();
    let mut pending = vec![VfsPath::root()];
    while let Some(dir) = pending.pop() {
        let mut listed = fs.mem().read_dir(&dir)?;
        listed.sort_by(|a, b| a.name.cmp(&b.name));
        for entry in listed {
            let path = dir.join(&entry.name)?;
            if read_only.contains(&path) {
                continue;
            }
            let meta = fs.mem().lstat(&path)?;
            let (text, modified) = (path.to_string(), meta.modified.0);
            entries.push(match meta.kind {
                FileKind::Directory => {
                    pending.push(path);
                    Entry::Dir {
                        path: text,
                        mode: meta.mode,
                        modified,
                    }
                }
                FileKind::File => {
                    fs.load_for_read(&path).await?;
                    Entry::File {
                        data: fs.mem().read(&path)?.into(),
                        path: text,
                        mode: meta.mode,
                        modified,
                    }
                }
                FileKind::Symlink => Entry::Symlink {
                    target: fs.mem().read_link(&path)?,
                    path: text,
                    modified,
                },
            });
        }
    }
    let sessions = sandbox
        .sessions
        .try_borrow()
        .map_err(|_| RuntimeError::busy())?
        .export_states()
        .into_iter()
        .map(|(name, state)| SessionState { name, state })
        .collect();
    Handoff {
        format: HANDOFF_FORMAT.into(),
        version: HANDOFF_VERSION,
        name: sandbox.name().to_owned(),
        options: sandbox.carried_options().clone(),
        entries,
        sessions,
        tree: tree_digest_without(fs, &read_only).await?,
    }
    .to_value()
}

/// Puts a hand-off's files and sessions into a new, empty sandbox, and checks the tree.
pub(crate) async fn resume(
    handoff: &Handoff,
    fs: &SandboxFs,
    sessions: &mut Sessions,
    read_only: &[VfsPath],
) -> RuntimeResult<()> {
    let mem = fs.mem();
    let mut dirs = Vec::new();
    for entry in &handoff.entries {
        match entry {
            Entry::Dir {
                path,
                mode,
                modified,
            } => {
                let path = VfsPath::parse(path)?;
                mem.create_dir_all(&path)?;
                mem.set_mode(&path, *mode)?;
                dirs.push((path, *modified));
            }
            Entry::File {
                path,
                mode,
                modified,
                data,
            } => {
                let path = VfsPath::parse(path)?;
                mem.write(&path, &data.0)?;
                mem.set_mode(&path, *mode)?;
                mem.set_modified(&path, Timestamp(*modified))?;
            }
            Entry::Symlink {
                path,
                target,
                modified,
            } => {
                let path = VfsPath::parse(path)?;
                if mem.lstat(&path).is_ok() {
                    mem.remove_file(&path)?;
                }
                mem.symlink(target, &path)?;
                mem.set_times_nofollow(&path, None, Some(Timestamp(*modified)))?;
            }
        }
    }
    // Directories' times last: making their entries moved them.
    for (path, modified) in dirs.iter().rev() {
        mem.set_modified(path, Timestamp(*modified))?;
    }
    for session in &handoff.sessions {
        sessions
            .session(&session.name)?
            .import_state(&session.state)?;
    }
    fs.flush().await?;
    let tree = tree_digest_without(fs, read_only).await?;
    if tree != handoff.tree {
        return Err(RuntimeError::new(
            "EUCLEAN",
            "options.resume: the files resumed differ from those handed off (tree digests differ)",
        ));
    }
    Ok(())
}
