//! Reads the options object the page passes to `new Sandbox(options)`, with a clear error
//! for every wrong field instead of a silent default.

use js_sys::{Object, Reflect};
use sandtab_shell::ShellLimits;
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

/// `{ limits?: { maxCommands?, maxLoopIterations?, maxTotalLoopIterations?,
/// maxFunctionDepth?, timeoutMs?, maxOutputBytes? } }`; `undefined` means all defaults.
pub fn parse_limits(options: &JsValue) -> Result<ShellLimits, String> {
    let mut limits = ShellLimits::default();
    if options.is_undefined() || options.is_null() {
        return Ok(limits);
    }
    if !options.is_object() {
        return Err("sandbox options must be an object".into());
    }
    let given = get(options, "limits")?;
    if given.is_undefined() || given.is_null() {
        return Ok(limits);
    }
    if !given.is_object() {
        return Err("options.limits must be an object".into());
    }
    for key in Object::keys(given.unchecked_ref::<Object>()).iter() {
        let key = key.as_string().unwrap_or_default();
        if !LIMIT_FIELDS.contains(&key.as_str()) {
            return Err(format!(
                "unknown limit `{key}` (known: {})",
                LIMIT_FIELDS.join(", ")
            ));
        }
    }
    let field = |name: &str| -> Result<Option<u64>, String> {
        let value = get(&given, name)?;
        if value.is_undefined() {
            return Ok(None);
        }
        match value.as_f64() {
            Some(n) if n.fract() == 0.0 && (1.0..=MAX_SAFE_INTEGER).contains(&n) => {
                Ok(Some(n as u64))
            }
            _ => Err(format!(
                "limits.{name} must be a positive whole number, got {}",
                describe(&value)
            )),
        }
    };
    let as_usize = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
    if let Some(n) = field("maxCommands")? {
        limits.max_commands = as_usize(n);
    }
    if let Some(n) = field("maxLoopIterations")? {
        limits.max_loop_iterations = as_usize(n);
    }
    if let Some(n) = field("maxTotalLoopIterations")? {
        limits.max_total_loop_iterations = as_usize(n);
    }
    if let Some(n) = field("maxFunctionDepth")? {
        limits.max_function_depth = as_usize(n);
    }
    if let Some(n) = field("timeoutMs")? {
        limits.timeout = Duration::from_millis(n);
    }
    if let Some(n) = field("maxOutputBytes")? {
        limits.max_output_bytes = as_usize(n);
    }
    limits.validate().map_err(|err| err.to_string())?;
    Ok(limits)
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
