//! Reads the options object the page passes to `new Sandbox(options)`, with a clear error
//! for every wrong field instead of a silent default.

use js_sys::{Object, Reflect};
use sandtab_shell::ShellLimits;
use sandtab_vfs::Quota;
use std::collections::HashMap;
use std::time::Duration;
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

/// Everything `new Sandbox(options)` configures.
#[derive(Debug)]
pub struct SandboxConfig {
    pub limits: ShellLimits,
    pub quota: Quota,
}

/// `{ limits?: {...}, quota?: { maxBytes?, maxEntries?, maxFileSize? } }`;
/// `undefined` means all defaults.
pub fn parse(options: &JsValue) -> Result<SandboxConfig, String> {
    let mut config = SandboxConfig {
        limits: ShellLimits::default(),
        quota: DEFAULT_QUOTA,
    };
    if options.is_undefined() || options.is_null() {
        return Ok(config);
    }
    if !options.is_object() {
        return Err("sandbox options must be an object".into());
    }
    check_keys(options, "options", &["limits", "quota"])?;

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
            _ => target.max_output_bytes = as_usize(value),
        }
    }
    config.limits.validate().map_err(|err| err.to_string())?;

    for (name, value) in whole_numbers(options, "quota", QUOTA_FIELDS)? {
        match name {
            "maxBytes" => config.quota.max_bytes = value,
            "maxEntries" => config.quota.max_entries = value,
            _ => config.quota.max_file_size = value,
        }
    }
    Ok(config)
}

/// The positive whole numbers of `options[section]`, refusing unknown keys.
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
