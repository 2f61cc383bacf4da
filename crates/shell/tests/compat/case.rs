//! The cases as data: one YAML file per topic under `tests/compat/`, each a list of
//! cases; the expectation of each case is what real bash did (recorded with
//! `COMPAT_BLESS=1`).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Files in the working directory, by relative path: a file's contents (`hex:` and hex
/// digits when they are not UTF-8), `""` for a directory (its key ends in `/`), the target
/// for a symlink (its key ends in `@`). A key ends in ` (755)` when its mode is not the
/// default one (0644 for a file, 0755 for a directory).
pub type Tree = BTreeMap<String, String>;

/// One script, what it starts with, and what bash made of it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    pub name: String,
    pub script: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdin: Option<String>,
    /// The working directory's files before the script runs.
    #[serde(default, skip_serializing_if = "Tree::is_empty")]
    pub files: Tree,
    /// Why sandtab does not give bash's outcome yet, when it does not. Such a case that
    /// starts passing fails the suite until this is taken off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub known_failure: Option<String>,
    /// What real bash did. Missing until the case is blessed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Outcome>,
}

/// What a shell made of a case.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Outcome {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub stdout: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub stderr: String,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub exit: i32,
    /// The files afterwards, when they differ from the files before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files: Option<Tree>,
}

fn is_zero(code: &i32) -> bool {
    *code == 0
}

/// One file of cases.
#[derive(Debug)]
pub struct CaseFile {
    pub path: PathBuf,
    pub topic: String,
    pub cases: Vec<Case>,
}

impl CaseFile {
    pub fn save(&self) -> Result<(), String> {
        let text = serde_yaml_ng::to_string(&self.cases).map_err(|e| e.to_string())?;
        let header = format!(
            "# Compatibility cases: {}. Expectations are real bash's (COMPAT_BLESS=1).\n",
            self.topic
        );
        std::fs::write(&self.path, header + &text)
            .map_err(|e| format!("{}: {e}", self.path.display()))
    }
}

/// Every `*.yaml` file of `dir`, sorted by name.
pub fn load_all(dir: &Path) -> Result<Vec<CaseFile>, String> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    paths.sort();
    let mut files = Vec::new();
    for path in paths {
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let cases: Vec<Case> =
            serde_yaml_ng::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let topic = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        files.push(CaseFile { path, topic, cases });
    }
    Ok(files)
}

/// A file's contents as a tree value.
pub fn encode_contents(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) if !text.starts_with("hex:") => text.to_owned(),
        _ => {
            let mut out = String::from("hex:");
            for byte in bytes {
                out.push_str(&format!("{byte:02x}"));
            }
            out
        }
    }
}

/// A tree value back to a file's contents.
pub fn decode_contents(value: &str) -> Result<Vec<u8>, String> {
    let Some(hex) = value.strip_prefix("hex:") else {
        return Ok(value.as_bytes().to_vec());
    };
    if hex.len() % 2 != 0 {
        return Err(format!("odd number of hex digits in {value:?}"));
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).map_err(|e| format!("{value:?}: {e}")))
        .collect()
}

/// What a tree key says: the relative path, the kind and the mode given.
#[derive(Debug, PartialEq, Eq)]
pub enum Entry {
    File { path: String, mode: u32 },
    Dir { path: String, mode: u32 },
    Symlink { path: String },
}

pub fn parse_key(key: &str) -> Result<Entry, String> {
    let (rest, mode) = match key.strip_suffix(')').and_then(|k| k.rsplit_once(" (")) {
        Some((rest, mode)) => (
            rest,
            Some(u32::from_str_radix(mode, 8).map_err(|e| format!("mode in {key:?}: {e}"))?),
        ),
        None => (key, None),
    };
    if let Some(path) = rest.strip_suffix('/') {
        Ok(Entry::Dir {
            path: path.to_owned(),
            mode: mode.unwrap_or(0o755),
        })
    } else if let Some(path) = rest.strip_suffix('@') {
        Ok(Entry::Symlink {
            path: path.to_owned(),
        })
    } else {
        Ok(Entry::File {
            path: rest.to_owned(),
            mode: mode.unwrap_or(0o644),
        })
    }
}

/// The tree key of an entry.
pub fn key(path: &str, kind: Kind, mode: u32) -> String {
    let (suffix, default_mode) = match kind {
        Kind::File => ("", 0o644),
        Kind::Dir => ("/", 0o755),
        Kind::Symlink => return format!("{path}@"),
    };
    if mode & 0o7777 == default_mode {
        format!("{path}{suffix}")
    } else {
        format!("{path}{suffix} ({:o})", mode & 0o7777)
    }
}

#[derive(Debug, Clone, Copy)]
pub enum Kind {
    File,
    Dir,
    Symlink,
}
