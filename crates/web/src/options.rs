//! Reads the options object the page passes to `new Sandbox(options)`, with a clear error
//! for every wrong field instead of a silent default.

use js_sys::{Object, Reflect, Uint8Array};
use sandtab_shell::ShellLimits;
use sandtab_vfs::{Mount, MountSource, Quota, VfsPath};
use std::collections::HashMap;
use std::time::Duration;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

/// The largest integer a JS number holds exactly.
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// The JS names of the shell limits, in the order the docs list them.
const LIMIT_FIELDS: &[&str] = &[
    "maxCommands",
    "maxLoopIterations",
    "maxTotalLoopIterations",
    "maxFunctionDepth",
    "timeoutMs",
    "maxOutputBytes",
    "maxWrittenBytes",
    "maxFileWriteBytes",
];

/// The JS names of the guest program limits.
const GUEST_LIMIT_FIELDS: &[&str] = &[
    "fuel",
    "memoryBytes",
    "tableElements",
    "instances",
    "callDepth",
    "deadlineMs",
    "outputBytes",
];

/// The JS names of the filesystem quota fields.
const QUOTA_FIELDS: &[&str] = &["maxBytes", "maxEntries", "maxFileSize"];

/// The quota of a browser sandbox unless the page says otherwise. Files live in the
/// worker's memory, so the defaults keep a runaway agent from exhausting the tab.
pub const DEFAULT_QUOTA: Quota = Quota {
    max_bytes: 256 << 20,
    max_entries: 100_000,
    max_file_size: 128 << 20,
};

/// Where a sandbox keeps `/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StorageKind {
    IndexedDb,
    Opfs,
    Memory,
}

/// The longest sandbox name (it becomes part of a database name).
const MAX_NAME_LEN: usize = 100;

/// Everything `new Sandbox(options)` configures.
#[derive(Debug)]
pub struct SandboxConfig {
    pub limits: ShellLimits,
    pub quota: Quota,
    /// Which stored sandbox to open ("default" unless given).
    pub name: String,
    /// `None`: IndexedDB where the global scope has it, memory otherwise.
    pub storage: Option<StorageKind>,
    /// `/tmp` in memory, then the page's read-only mounts.
    pub mounts: Vec<Mount>,
    /// What the sandbox may reach, and how.
    pub doors: DoorsConfig,
    /// Whether it records, or replays a recording.
    pub tape: Option<TapeSetup>,
}

/// `options.record` / `options.replay`.
#[derive(Debug)]
pub enum TapeSetup {
    /// Record every operation; `options` are those a replay needs (JSON).
    Record { options: serde_json::Value },
    /// Replay this recording.
    Replay(Box<sandtab_shell::replay::Recording>),
}

/// The capability document and the page's functions behind it.
#[derive(Debug, Default)]
pub struct DoorsConfig {
    /// `hostCall(name, argsJson) => Promise<string>`: runs a granted tool's handler.
    pub host_call: Option<js_sys::Function>,
    /// `netFetch(request) => Promise<response>`: the page's network frame.
    pub net_fetch: Option<js_sys::Function>,
    /// `uiAction(action) => Promise<string | null>`: the page's ui frame.
    pub ui_action: Option<js_sys::Function>,
    /// The capability document (nothing granted unless given).
    pub capabilities: sandtab_caps::Capabilities,
}

/// `{ limits?: {...}, quota?: { maxBytes?, maxEntries?, maxFileSize? } }`;
/// `undefined` means all defaults.
pub fn parse(options: &JsValue) -> Result<SandboxConfig, String> {
    let mut config = SandboxConfig {
        limits: ShellLimits::default(),
        quota: DEFAULT_QUOTA,
        name: "default".to_owned(),
        storage: None,
        mounts: vec![Mount {
            path: VfsPath::parse("/tmp").map_err(|err| err.to_string())?,
            source: MountSource::Memory,
        }],
        doors: DoorsConfig::default(),
        tape: None,
    };
    if options.is_undefined() || options.is_null() {
        return Ok(config);
    }
    if !options.is_object() {
        return Err("sandbox options must be an object".into());
    }
    check_keys(
        options,
        "options",
        &[
            "limits",
            "quota",
            "name",
            "storage",
            "mounts",
            "guestLimits",
            "hostCall",
            "netFetch",
            "uiAction",
            "capabilities",
            "record",
            "replay",
        ],
    )?;
    apply_capabilities(options, &mut config)?;
    config.tape = tape_setup(options)?;
    let name = get(options, "name")?;
    if !name.is_undefined() {
        let Some(text) = name.as_string() else {
            return Err(format!(
                "options.name must be a string, got {}",
                describe(&name)
            ));
        };
        if text.is_empty() || text.len() > MAX_NAME_LEN || text.chars().any(char::is_control) {
            return Err(format!(
                "options.name must be 1 to {MAX_NAME_LEN} characters without control characters, got {text:?}"
            ));
        }
        config.name = text;
    }
    let storage = get(options, "storage")?;
    if !storage.is_undefined() {
        config.storage = Some(match storage.as_string().as_deref() {
            Some("indexeddb") => StorageKind::IndexedDb,
            Some("opfs") => StorageKind::Opfs,
            Some("memory") => StorageKind::Memory,
            _ => {
                return Err(format!(
                    "options.storage must be \"indexeddb\", \"opfs\" or \"memory\", got {}",
                    describe(&storage)
                ));
            }
        });
    }
    config
        .mounts
        .extend(parse_mounts(&get(options, "mounts")?)?);

    let limits = whole_numbers(options, "limits", LIMIT_FIELDS)?;
    let as_usize = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
    let target = &mut config.limits;
    for (name, value) in limits {
        match name {
            "maxCommands" => target.max_commands = as_usize(value),
            "maxLoopIterations" => target.max_loop_iterations = as_usize(value),
            "maxTotalLoopIterations" => target.max_total_loop_iterations = as_usize(value),
            "maxFunctionDepth" => target.max_function_depth = as_usize(value),
            "timeoutMs" => target.timeout = Duration::from_millis(value),
            "maxOutputBytes" => target.max_output_bytes = as_usize(value),
            "maxWrittenBytes" => target.max_written_bytes = as_usize(value),
            _ => target.max_file_write_bytes = value,
        }
    }
    config.limits.guest = guest_limits_in(options, "guestLimits", config.limits.guest)?;
    config.limits.validate().map_err(|err| err.to_string())?;
    config.doors.host_call = function(options, "hostCall")?;
    config.doors.net_fetch = function(options, "netFetch")?;
    config.doors.ui_action = function(options, "uiAction")?;

    for (name, value) in whole_numbers(options, "quota", QUOTA_FIELDS)? {
        match name {
            "maxBytes" => config.quota.max_bytes = value,
            "maxEntries" => config.quota.max_entries = value,
            _ => config.quota.max_file_size = value,
        }
    }
    Ok(config)
}

/// `record: true` (the options a replay needs are kept with it) or `replay: RECORDING`
/// (the object `recording()` gave, or its JSON text).
fn tape_setup(options: &JsValue) -> Result<Option<TapeSetup>, String> {
    let record = get(options, "record")?;
    let replay = get(options, "replay")?;
    let recording = !record.is_undefined() && !record.is_null() && record != JsValue::FALSE;
    if recording && record != JsValue::TRUE {
        return Err(format!(
            "options.record must be true or false, got {}",
            describe(&record)
        ));
    }
    match (recording, replay.is_undefined() || replay.is_null()) {
        (true, false) => Err("options.record and options.replay cannot both be given".into()),
        (true, true) => {
            let mut kept = serde_json::Map::new();
            for key in ["limits", "guestLimits", "quota", "capabilities"] {
                let value = get(options, key)?;
                if value.is_undefined() {
                    continue;
                }
                let text = js_sys::JSON::stringify(&value)
                    .ok()
                    .and_then(|t| t.as_string())
                    .ok_or_else(|| format!("options.{key} cannot be turned into JSON"))?;
                let value = serde_json::from_str(&text).map_err(|err| err.to_string())?;
                kept.insert(key.to_owned(), value);
            }
            Ok(Some(TapeSetup::Record {
                options: serde_json::Value::Object(kept),
            }))
        }
        (false, true) => Ok(None),
        (false, false) => {
            let text = match replay.as_string() {
                Some(text) => text,
                None => js_sys::JSON::stringify(&replay)
                    .ok()
                    .and_then(|t| t.as_string())
                    .ok_or("options.replay must be a recording (an object or its JSON text)")?,
            };
            let recording = sandtab_shell::replay::Recording::from_json(&text)
                .map_err(|err| format!("options.replay: {err}"))?;
            Ok(Some(TapeSetup::Replay(Box::new(recording))))
        }
    }
}

fn function(options: &JsValue, key: &str) -> Result<Option<js_sys::Function>, String> {
    let value = get(options, key)?;
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    value
        .dyn_into()
        .map(Some)
        .map_err(|value| format!("options.{key} must be a function, got {}", describe(&value)))
}

/// `options.capabilities`: the capability document (an object or its JSON text). Its
/// `limits: {shell, guest}` and `filesystem: {quota, mounts}` sections are the options'
/// `limits`/`guestLimits` and `quota`/`mounts` given in the document (same fields);
/// each may be given in one place only.
fn apply_capabilities(options: &JsValue, config: &mut SandboxConfig) -> Result<(), String> {
    let value = get(options, "capabilities")?;
    if value.is_undefined() || value.is_null() {
        return Ok(());
    }
    let text = match value.as_string() {
        Some(text) => text,
        None if value.is_object() => js_sys::JSON::stringify(&value)
            .ok()
            .and_then(|t| t.as_string())
            .ok_or("options.capabilities cannot be turned into JSON")?,
        None => {
            return Err(format!(
                "options.capabilities must be an object, got {}",
                describe(&value)
            ));
        }
    };
    config.doors.capabilities =
        sandtab_caps::Capabilities::from_json(&text).map_err(|err| err.to_string())?;
    // The sections become options, checked by the same code as the options themselves:
    // `limits: {shell, guest}` and `filesystem: {quota, mounts}`.
    let sections = [
        (
            "limits",
            config.doors.capabilities.limits.clone(),
            [("shell", "limits"), ("guest", "guestLimits")],
        ),
        (
            "filesystem",
            config.doors.capabilities.filesystem.clone(),
            [("quota", "quota"), ("mounts", "mounts")],
        ),
    ];
    for (place, found, keys) in sections {
        let Some(found) = found else { continue };
        let json = serde_json::Value::Object(found).to_string();
        let parsed =
            js_sys::JSON::parse(&json).map_err(|_| format!("capabilities.{place} is not JSON"))?;
        let names: Vec<&str> = keys.iter().map(|(doc, _)| *doc).collect();
        check_keys(&parsed, &format!("capabilities.{place}"), &names)?;
        for (doc_key, option_key) in keys {
            let inner = get(&parsed, doc_key)?;
            if inner.is_undefined() {
                continue;
            }
            if !get(options, option_key)?.is_undefined() {
                return Err(format!(
                    "`{option_key}` is given both in options and as capabilities.{place}.{doc_key}: give it in one place"
                ));
            }
            Reflect::set(options, &JsValue::from_str(option_key), &inner)
                .map_err(|_| format!("options.{option_key} cannot be set"))?;
        }
    }
    Ok(())
}

/// `[{ path: "/project", files: { "src/a.rs": "text" or Uint8Array, ... } }]`: read-only
/// mounts filled by the page.
fn parse_mounts(value: &JsValue) -> Result<Vec<Mount>, String> {
    if value.is_undefined() {
        return Ok(Vec::new());
    }
    if !js_sys::Array::is_array(value) {
        return Err(format!(
            "options.mounts must be an array, got {}",
            describe(value)
        ));
    }
    let mut mounts = Vec::new();
    for (index, item) in js_sys::Array::from(value).iter().enumerate() {
        let what = format!("mounts[{index}]");
        if !item.is_object() {
            return Err(format!("{what} must be an object"));
        }
        check_keys(&item, &what, &["path", "files"])?;
        let path = get(&item, "path")?
            .as_string()
            .ok_or_else(|| format!("{what}.path must be a string"))?;
        if !path.starts_with('/') {
            return Err(format!("{what}.path must be absolute, got {path:?}"));
        }
        let path = VfsPath::parse(&path).map_err(|err| format!("{what}.path: {err}"))?;
        if path.is_root() || path == VfsPath::parse("/tmp").map_err(|e| e.to_string())? {
            return Err(format!("{what}.path cannot be / or /tmp"));
        }
        let files = get(&item, "files")?;
        if !files.is_object() {
            return Err(format!("{what}.files must be an object of path: contents"));
        }
        let mut contents = Vec::new();
        for key in Object::keys(files.unchecked_ref::<Object>()).iter() {
            let name = key.as_string().unwrap_or_default();
            let data = get(&files, &name)?;
            let bytes = if let Some(text) = data.as_string() {
                text.into_bytes()
            } else if data.is_instance_of::<Uint8Array>() {
                Uint8Array::new(&data).to_vec()
            } else {
                return Err(format!(
                    "{what}.files[{name:?}] must be a string or a Uint8Array, got {}",
                    describe(&data)
                ));
            };
            contents.push((name, bytes));
        }
        mounts.push(Mount {
            path,
            source: MountSource::ReadOnly(contents),
        });
    }
    Ok(mounts)
}

/// The positive whole numbers of `options[section]`, refusing unknown keys.
/// `base` with the fields of `options[section]` (`{ fuel?, memoryBytes?, ... }`) applied.
pub fn guest_limits_in(
    options: &JsValue,
    section: &str,
    base: sandtab_shell::GuestLimits,
) -> Result<sandtab_shell::GuestLimits, String> {
    let mut limits = base;
    for (name, value) in whole_numbers(options, section, GUEST_LIMIT_FIELDS)? {
        match name {
            "fuel" => limits.fuel = value,
            "memoryBytes" => limits.memory_bytes = value,
            "tableElements" => limits.table_elements = value,
            "instances" => limits.instances = value,
            "callDepth" => limits.call_depth = value,
            "deadlineMs" => limits.deadline_ms = value,
            _ => limits.output_bytes = value,
        }
    }
    limits
        .validate()
        .map_err(|err| format!("{section}: {err}"))?;
    Ok(limits)
}

fn whole_numbers(
    options: &JsValue,
    section: &str,
    known: &'static [&'static str],
) -> Result<HashMap<&'static str, u64>, String> {
    let mut found = HashMap::new();
    let object = get(options, section)?;
    if object.is_undefined() || object.is_null() {
        return Ok(found);
    }
    if !object.is_object() {
        return Err(format!("options.{section} must be an object"));
    }
    check_keys(&object, section, known)?;
    for &name in known {
        let value = get(&object, name)?;
        if value.is_undefined() {
            continue;
        }
        match value.as_f64() {
            Some(n) if n.fract() == 0.0 && (1.0..=MAX_SAFE_INTEGER).contains(&n) => {
                found.insert(name, n as u64);
            }
            _ => {
                return Err(format!(
                    "{section}.{name} must be a positive whole number, got {}",
                    describe(&value)
                ));
            }
        }
    }
    Ok(found)
}

fn check_keys(object: &JsValue, what: &str, known: &[&str]) -> Result<(), String> {
    for key in Object::keys(object.unchecked_ref::<Object>()).iter() {
        let key = key.as_string().unwrap_or_default();
        if !known.contains(&key.as_str()) {
            let what = if what == "options" {
                "option".to_owned()
            } else {
                format!("{what} field")
            };
            return Err(format!(
                "unknown {what} `{key}` (known: {})",
                known.join(", ")
            ));
        }
    }
    Ok(())
}

fn get(object: &JsValue, key: &str) -> Result<JsValue, String> {
    Reflect::get(object, &JsValue::from_str(key)).map_err(|_| format!("cannot read `{key}`"))
}

fn describe(value: &JsValue) -> String {
    if let Some(text) = value.as_string() {
        format!("the string {text:?}")
    } else if let Some(n) = value.as_f64() {
        n.to_string()
    } else if value.is_null() {
        "null".into()
    } else {
        format!(
            "a value of type {}",
            value.js_typeof().as_string().unwrap_or_default()
        )
    }
}

/// What one exec's options choose besides guest limits.
#[derive(Debug, Default)]
pub struct ExecChoice {
    /// The named session to run in (default `"main"`).
    pub session: Option<String>,
    /// Run in a new session dropped afterwards.
    pub fresh: bool,
    /// Bytes of each stream to keep in the outcome, instead of the sandbox's limit.
    pub max_output_bytes: Option<usize>,
}

/// The keys an exec's options may have.
const EXEC_FIELDS: &[&str] = &["session", "fresh", "maxOutputBytes", "guestLimits"];

/// Reads `{ session?, fresh?, maxOutputBytes?, guestLimits? }` (guest limits are read by
/// `guest_limits_in`), refusing unknown keys and values of the wrong kind.
pub fn exec_options(options: Option<&JsValue>) -> Result<ExecChoice, String> {
    let mut choice = ExecChoice::default();
    let Some(options) = options.filter(|o| !o.is_undefined() && !o.is_null()) else {
        return Ok(choice);
    };
    if !options.is_object() {
        return Err("exec options must be an object".into());
    }
    check_keys(options, "exec options", EXEC_FIELDS)?;
    let session = get(options, "session")?;
    if !session.is_undefined() {
        choice.session = Some(session.as_string().ok_or_else(|| {
            format!(
                "exec options: session must be a string, got {}",
                describe(&session)
            )
        })?);
    }
    let fresh = get(options, "fresh")?;
    if !fresh.is_undefined() {
        choice.fresh = fresh.as_bool().ok_or_else(|| {
            format!(
                "exec options: fresh must be true or false, got {}",
                describe(&fresh)
            )
        })?;
    }
    if choice.fresh && choice.session.is_some() {
        return Err("exec options: give either session or fresh, not both".into());
    }
    let cap = get(options, "maxOutputBytes")?;
    if !cap.is_undefined() {
        match cap.as_f64() {
            Some(n) if n.fract() == 0.0 && (1.0..=MAX_SAFE_INTEGER).contains(&n) => {
                choice.max_output_bytes = Some(usize::try_from(n as u64).unwrap_or(usize::MAX));
            }
            _ => {
                return Err(format!(
                    "exec options: maxOutputBytes must be a positive whole number, got {}",
                    describe(&cap)
                ));
            }
        }
    }
    Ok(choice)
}
