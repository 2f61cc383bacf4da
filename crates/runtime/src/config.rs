//! A sandbox's options, as the page, Node or the CLI give them (camelCase JSON or a JS
//! object), checked once at open into what the runtime runs with.

use crate::bytes::Bytes;
use crate::error::{RuntimeError, RuntimeResult};
use crate::recording::Recording;
use sandtab_shell::{GuestLimits, ShellLimits};
use sandtab_vfs::{Mount, MountSource, Quota, VfsPath};
use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::time::Duration;

/// The default quota of a sandbox: room for a project and its dependencies.
pub const DEFAULT_QUOTA: Quota = Quota {
    max_bytes: 256 << 20,
    max_entries: 100_000,
    max_file_size: 128 << 20,
};

/// The longest sandbox name.
pub const MAX_NAME_LEN: usize = 100;

/// JavaScript's largest exact integer: larger "whole numbers" were rounded on the way.
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// A positive whole number (as JSON or JS gives it, so also `5.0`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(type = "number"))]
#[serde(transparent)]
pub struct Count(pub u64);

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = f64::deserialize(deserializer).map_err(|_| {
            de::Error::custom("must be a positive whole number (it is not a number)")
        })?;
        if value.fract() == 0.0 && (1.0..=MAX_SAFE_INTEGER).contains(&value) {
            Ok(Count(value as u64))
        } else {
            Err(de::Error::custom(format!(
                "must be a positive whole number, got {value}"
            )))
        }
    }
}

/// Which engine runs guest programs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum GuestTier {
    /// wasmi, inside the runtime: everywhere.
    Interpreter,
    /// The browser's own engine, metered, suspended with JSPI where guests wait:
    /// many times faster; only where the browser has JSPI.
    Engine,
}

/// Where a sandbox's files are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum StorageKind {
    /// IndexedDB (the browser's default).
    Indexeddb,
    /// The origin private file system: an append-only log.
    Opfs,
    /// Memory only: gone when the sandbox closes.
    Memory,
}

impl StorageKind {
    /// The name options use.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Indexeddb => "indexeddb",
            Self::Opfs => "opfs",
            Self::Memory => "memory",
        }
    }
}

/// The shell's limits; each one left out keeps its default.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ShellLimitsSpec {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_commands: Option<Count>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_loop_iterations: Option<Count>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_total_loop_iterations: Option<Count>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_function_depth: Option<Count>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<Count>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_output_bytes: Option<Count>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_written_bytes: Option<Count>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_file_write_bytes: Option<Count>,
}

impl ShellLimitsSpec {
    fn apply(&self, limits: &mut ShellLimits) {
        let size = |n: Count| usize::try_from(n.0).unwrap_or(usize::MAX);
        let set = |target: &mut usize, value: Option<Count>| {
            if let Some(value) = value {
                *target = size(value);
            }
        };
        set(&mut limits.max_commands, self.max_commands);
        set(&mut limits.max_loop_iterations, self.max_loop_iterations);
        set(
            &mut limits.max_total_loop_iterations,
            self.max_total_loop_iterations,
        );
        set(&mut limits.max_function_depth, self.max_function_depth);
        set(&mut limits.max_output_bytes, self.max_output_bytes);
        set(&mut limits.max_written_bytes, self.max_written_bytes);
        if let Some(ms) = self.timeout_ms {
            limits.timeout = Duration::from_millis(ms.0);
        }
        if let Some(bytes) = self.max_file_write_bytes {
            limits.max_file_write_bytes = bytes.0;
        }
    }
}

/// Guest programs' limits; each one left out keeps the value it overrides.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct GuestLimitsSpec {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fuel: Option<Count>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_bytes: Option<Count>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table_elements: Option<Count>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instances: Option<Count>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call_depth: Option<Count>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deadline_ms: Option<Count>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_bytes: Option<Count>,
}

impl GuestLimitsSpec {
    /// `base` with the limits given here, checked.
    pub fn over(&self, base: GuestLimits, place: &str) -> RuntimeResult<GuestLimits> {
        let mut limits = base;
        let pairs = [
            (&mut limits.fuel, self.fuel),
            (&mut limits.memory_bytes, self.memory_bytes),
            (&mut limits.table_elements, self.table_elements),
            (&mut limits.instances, self.instances),
            (&mut limits.call_depth, self.call_depth),
            (&mut limits.deadline_ms, self.deadline_ms),
            (&mut limits.output_bytes, self.output_bytes),
        ];
        for (target, value) in pairs {
            if let Some(value) = value {
                *target = value.0;
            }
        }
        limits
            .validate()
            .map_err(|err| RuntimeError::invalid(format!("{place}: {err}")))?;
        Ok(limits)
    }
}

/// The filesystem quota; each one left out keeps its default.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct QuotaSpec {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<Count>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_entries: Option<Count>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_file_size: Option<Count>,
}

/// A file's contents in a mount: text or bytes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(untagged, expecting = "a string or a Uint8Array")]
pub enum FileContents {
    /// UTF-8 text.
    Text(String),
    /// Bytes.
    Bytes(#[cfg_attr(test, ts(type = "Uint8Array"))] Bytes),
}

impl FileContents {
    fn into_bytes(self) -> Vec<u8> {
        match self {
            Self::Text(text) => text.into_bytes(),
            Self::Bytes(bytes) => bytes.0,
        }
    }
}

/// A read-only directory of files the host gives (`/skills`, `/data`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct MountSpec {
    /// An absolute path, not `/` or `/tmp`.
    pub path: String,
    /// Paths relative to the mount point, and their contents.
    pub files: BTreeMap<String, FileContents>,
}

/// A sandbox's options as given (`Sandbox.create(options)`, minus the page's callbacks).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SandboxOptions {
    /// Which sandbox ("default"): its storage and its lock are per name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Where the files are kept; the host's default when left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub storage: Option<StorageKind>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limits: Option<ShellLimitsSpec>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guest_limits: Option<GuestLimitsSpec>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quota: Option<QuotaSpec>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mounts: Option<Vec<MountSpec>>,
    /// Which engine runs guest programs: left out, the browser's engine where it has
    /// JSPI, else the interpreter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guest_tier: Option<GuestTier>,
    /// The capability document (see `sandtab-caps`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional, type = "Record<string, unknown>"))]
    pub capabilities: Option<Value>,
    /// Keep a recording of every operation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record: Option<bool>,
    /// A recording (its object or its JSON text) to replay in a new memory sandbox.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional, type = "unknown"))]
    pub replay: Option<Value>,
    /// A hand-off (`handoff` op; its object or JSON text) to resume in this new sandbox:
    /// its files, sessions and, where not given here, its options.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional, type = "unknown"))]
    pub resume: Option<Value>,
}

/// Whether the sandbox records, or replays a recording.
#[derive(Debug)]
pub enum TapeSetup {
    /// Recording; `options` are what a replay needs again.
    Record {
        /// The options that shape outcomes (limits, quota, capabilities).
        options: Value,
    },
    /// Replaying this recording.
    Replay(Box<Recording>),
}

/// Checked options: what a sandbox opens with.
#[derive(Debug)]
pub struct SandboxSetup {
    pub name: String,
    pub storage: Option<StorageKind>,
    pub limits: ShellLimits,
    pub quota: Quota,
    pub mounts: Vec<Mount>,
    pub capabilities: sandtab_caps::Capabilities,
    pub tape: Option<TapeSetup>,
    /// The hand-off to resume.
    pub resume: Option<Box<crate::handoff::Handoff>>,
    /// The options a hand-off carries on (limits, quota, mounts, capabilities).
    pub carried: SandboxOptions,
}

impl SandboxOptions {
    /// Reads options from JSON text, naming the place of an error.
    pub fn from_json(text: &str) -> RuntimeResult<Self> {
        let mut reader = serde_json::Deserializer::from_str(text);
        crate::protocol::decode(&mut reader, "options")
    }

    /// Checks the options and works out what the sandbox opens with.
    pub fn resolve(mut self) -> RuntimeResult<SandboxSetup> {
        let resume = match self.resume.take().filter(|v| !v.is_null()) {
            None => None,
            Some(value) => {
                if self.record == Some(true) || self.replay.as_ref().is_some_and(|v| !v.is_null()) {
                    return Err(RuntimeError::invalid(
                        "options.resume cannot be given with record or replay",
                    ));
                }
                let handoff = crate::handoff::Handoff::from_value(value)?;
                let carried = &handoff.options;
                self.limits = self.limits.take().or_else(|| carried.limits.clone());
                self.guest_limits = self
                    .guest_limits
                    .take()
                    .or_else(|| carried.guest_limits.clone());
                self.quota = self.quota.take().or_else(|| carried.quota.clone());
                self.mounts = self.mounts.take().or_else(|| carried.mounts.clone());
                self.capabilities = self
                    .capabilities
                    .take()
                    .or_else(|| carried.capabilities.clone());
                Some(Box::new(handoff))
            }
        };
        let carried = SandboxOptions {
            limits: self.limits.clone(),
            guest_limits: self.guest_limits.clone(),
            quota: self.quota.clone(),
            mounts: self.mounts.clone(),
            capabilities: self.capabilities.clone(),
            ..SandboxOptions::default()
        };
        let capabilities = match &self.capabilities {
            None | Some(Value::Null) => sandtab_caps::Capabilities::default(),
            Some(value @ Value::Object(_)) => sandtab_caps::Capabilities::from_value(value)
                .map_err(|err| RuntimeError::invalid(err.to_string()))?,
            Some(Value::String(text)) => sandtab_caps::Capabilities::from_json(text)
                .map_err(|err| RuntimeError::invalid(err.to_string()))?,
            Some(_) => {
                return Err(RuntimeError::invalid(
                    "options.capabilities must be an object",
                ));
            }
        };
        self.merge_document_sections(&capabilities)?;
        let tape = self.tape_setup()?;
        let name = match self.name.take() {
            None => "default".to_owned(),
            Some(name)
                if name.is_empty()
                    || name.len() > MAX_NAME_LEN
                    || name.chars().any(char::is_control) =>
            {
                return Err(RuntimeError::invalid(format!(
                    "options.name must be 1 to {MAX_NAME_LEN} characters without control characters, got {name:?}"
                )));
            }
            Some(name) => name,
        };
        let mut limits = ShellLimits::default();
        if let Some(spec) = &self.limits {
            spec.apply(&mut limits);
        }
        if let Some(spec) = &self.guest_limits {
            limits.guest = spec.over(limits.guest, "guestLimits")?;
        }
        limits
            .validate()
            .map_err(|err| RuntimeError::invalid(err.to_string()))?;
        let mut quota = DEFAULT_QUOTA;
        if let Some(spec) = &self.quota {
            quota.max_bytes = spec.max_bytes.map_or(quota.max_bytes, |n| n.0);
            quota.max_entries = spec.max_entries.map_or(quota.max_entries, |n| n.0);
            quota.max_file_size = spec.max_file_size.map_or(quota.max_file_size, |n| n.0);
        }
        Ok(SandboxSetup {
            name,
            storage: self.storage,
            limits,
            quota,
            mounts: mounts(self.mounts.take().unwrap_or_default())?,
            capabilities,
            tape,
            resume,
            carried,
        })
    }

    /// The document's `limits` and `filesystem` sections become options; each may be
    /// given in one place only.
    fn merge_document_sections(
        &mut self,
        capabilities: &sandtab_caps::Capabilities,
    ) -> RuntimeResult<()> {
        fn take<T: serde::de::DeserializeOwned>(
            section: &serde_json::Map<String, Value>,
            place: &str,
            key: &str,
            option: &str,
            given: bool,
        ) -> RuntimeResult<Option<T>> {
            let Some(value) = section.get(key) else {
                return Ok(None);
            };
            if given {
                return Err(RuntimeError::invalid(format!(
                    "`{option}` is given both in options and as capabilities.{place}.{key}: give it in one place"
                )));
            }
            crate::protocol::decode(value.clone(), &format!("capabilities.{place}.{key}")).map(Some)
        }
        let check =
            |section: &serde_json::Map<String, Value>, place: &str, known: &[&str]| match section
                .keys()
                .find(|key| !known.contains(&key.as_str()))
            {
                Some(key) => Err(RuntimeError::invalid(format!(
                    "unknown capabilities.{place} field `{key}` (known: {})",
                    known.join(", ")
                ))),
                None => Ok(()),
            };
        if let Some(section) = &capabilities.limits {
            check(section, "limits", &["shell", "guest"])?;
            if let Some(shell) = take(section, "limits", "shell", "limits", self.limits.is_some())?
            {
                self.limits = Some(shell);
            }
            if let Some(guest) = take(
                section,
                "limits",
                "guest",
                "guestLimits",
                self.guest_limits.is_some(),
            )? {
                self.guest_limits = Some(guest);
            }
        }
        if let Some(section) = &capabilities.filesystem {
            check(section, "filesystem", &["quota", "mounts"])?;
            if let Some(quota) = take(
                section,
                "filesystem",
                "quota",
                "quota",
                self.quota.is_some(),
            )? {
                self.quota = Some(quota);
            }
            if let Some(mounts) = take(
                section,
                "filesystem",
                "mounts",
                "mounts",
                self.mounts.is_some(),
            )? {
                self.mounts = Some(mounts);
            }
        }
        Ok(())
    }

    fn tape_setup(&self) -> RuntimeResult<Option<TapeSetup>> {
        let recording = self.record == Some(true);
        match (recording, self.replay.as_ref().filter(|v| !v.is_null())) {
            (true, Some(_)) => Err(RuntimeError::invalid(
                "options.record and options.replay cannot both be given",
            )),
            (true, None) => {
                let kept = SandboxOptions {
                    limits: self.limits.clone(),
                    guest_limits: self.guest_limits.clone(),
                    quota: self.quota.clone(),
                    capabilities: self.capabilities.clone(),
                    ..SandboxOptions::default()
                };
                let options = serde_json::to_value(kept)
                    .map_err(|err| RuntimeError::invalid(err.to_string()))?;
                Ok(Some(TapeSetup::Record { options }))
            }
            (false, None) => Ok(None),
            (false, Some(replay)) => {
                let text = match replay {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                };
                let recording = Recording::from_json(&text).map_err(|err| {
                    RuntimeError::invalid(format!("options.replay: {}", err.message))
                })?;
                Ok(Some(TapeSetup::Replay(Box::new(recording))))
            }
        }
    }
}

fn mounts(specs: Vec<MountSpec>) -> RuntimeResult<Vec<Mount>> {
    let invalid = RuntimeError::invalid;
    let mut mounts = vec![
        Mount {
            path: VfsPath::parse("/tmp")?,
            source: MountSource::Memory,
        },
        sandtab_shell::python_support::mount(),
    ];
    for (index, spec) in specs.into_iter().enumerate() {
        let what = format!("mounts[{index}]");
        if !spec.path.starts_with('/') {
            return Err(invalid(format!(
                "{what}.path must be absolute, got {:?}",
                spec.path
            )));
        }
        let path =
            VfsPath::parse(&spec.path).map_err(|err| invalid(format!("{what}.path: {err}")))?;
        if path.is_root() || path == VfsPath::parse("/tmp")? {
            return Err(invalid(format!("{what}.path cannot be / or /tmp")));
        }
        let files = spec
            .files
            .into_iter()
            .map(|(name, contents)| (name, contents.into_bytes()))
            .collect();
        mounts.push(Mount {
            path,
            source: MountSource::ReadOnly(files),
        });
    }
    Ok(mounts)
}
