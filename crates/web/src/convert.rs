//! Rust values as the plain JS objects the worker posts to the page.

use js_sys::{Array, Object, Reflect, Uint8Array};
use sandtab_shell::ExecOutcome;
use sandtab_vfs::storage::{FsckReport, SnapshotInfo};
use sandtab_vfs::{ErrorKind, FileKind, VfsError, VfsResult};
use wasm_bindgen::prelude::*;

pub fn set(object: &Object, key: &str, value: &JsValue) {
    // Setting a data property on a fresh plain object cannot fail.
    let _ = Reflect::set(object, &JsValue::from_str(key), value);
}

/// A plain object of named counts (`{ files: 3, bytes: 12 }`).
pub fn counts(fields: &[(&str, u64)]) -> Object {
    let object = Object::new();
    for (name, value) in fields {
        set(&object, name, &JsValue::from_f64(*value as f64));
    }
    object
}

/// A filesystem error as a JS `Error` whose `code` is the errno name (`EDQUOT`, ...).
pub fn vfs_error(err: VfsError) -> JsValue {
    let error = js_sys::Error::new(&err.to_string());
    set(&error, "code", &JsValue::from_str(err.kind().errno_name()));
    error.into()
}

fn error_object(err: &VfsError) -> JsValue {
    let object = Object::new();
    set(&object, "code", &JsValue::from_str(err.kind().errno_name()));
    set(&object, "message", &JsValue::from_str(&err.to_string()));
    object.into()
}

pub fn entry_kind(kind: FileKind) -> &'static str {
    match kind {
        FileKind::File => "file",
        FileKind::Directory => "dir",
        FileKind::Symlink => "symlink",
    }
}

pub fn outcome_to_js(outcome: &ExecOutcome) -> JsValue {
    let object = Object::new();
    set(
        &object,
        "stdout",
        &Uint8Array::from(outcome.stdout.as_slice()),
    );
    set(
        &object,
        "stderr",
        &Uint8Array::from(outcome.stderr.as_slice()),
    );
    set(&object, "exitCode", &JsValue::from(outcome.exit_code));
    set(
        &object,
        "stdoutTruncated",
        &JsValue::from_bool(outcome.stdout_truncated),
    );
    set(
        &object,
        "stderrTruncated",
        &JsValue::from_bool(outcome.stderr_truncated),
    );
    set(
        &object,
        "stdoutTotal",
        &JsValue::from_f64(outcome.stdout_total as f64),
    );
    set(
        &object,
        "stderrTotal",
        &JsValue::from_f64(outcome.stderr_total as f64),
    );
    let note = |stream| {
        outcome
            .truncation_note(stream)
            .map_or(JsValue::NULL, |note| JsValue::from_str(&note))
    };
    set(&object, "stdoutNote", &note(sandtab_shell::Stream::Stdout));
    set(&object, "stderrNote", &note(sandtab_shell::Stream::Stderr));
    let save_error = outcome
        .save_error
        .as_ref()
        .map_or(JsValue::NULL, error_object);
    set(&object, "saveError", &save_error);
    object.into()
}

pub fn snapshot_to_js(info: &SnapshotInfo) -> Object {
    let object = Object::new();
    set(&object, "id", &JsValue::from_f64(info.id as f64));
    set(&object, "label", &JsValue::from_str(&info.label));
    // Milliseconds since the epoch, as `Date.now()`.
    set(
        &object,
        "created",
        &JsValue::from_f64((info.created / 1_000_000) as f64),
    );
    set(&object, "files", &JsValue::from_f64(info.files as f64));
    set(&object, "bytes", &JsValue::from_f64(info.bytes as f64));
    object
}

pub fn fsck_to_js(report: &FsckReport) -> Object {
    let object = Object::new();
    set(&object, "clean", &JsValue::from_bool(report.is_clean()));
    set(&object, "summary", &JsValue::from_str(&report.summary()));
    let problems: Array = report
        .problems
        .iter()
        .map(|problem| JsValue::from_str(problem))
        .collect();
    set(&object, "problems", &problems);
    set(&object, "inodes", &JsValue::from_f64(report.inodes as f64));
    set(&object, "files", &JsValue::from_f64(report.files as f64));
    set(
        &object,
        "bytesChecked",
        &JsValue::from_f64(report.bytes_checked as f64),
    );
    object
}

/// A zeroed `Uint8Array` of `size` bytes, or ENOMEM/EFBIG if the browser cannot make it
/// (the size may come from stored data).
pub fn new_byte_array(size: u64) -> VfsResult<Uint8Array> {
    let length = u32::try_from(size).map_err(|_| {
        VfsError::new(ErrorKind::FileTooLarge, "/")
            .with_detail(format!("{size} bytes do not fit in one Uint8Array"))
    })?;
    // `Reflect.construct` throws where `new_with_length` would abort the runtime.
    let constructor: js_sys::Function = Uint8Array::new_with_length(0).constructor();
    Reflect::construct(&constructor, &Array::of1(&length.into()))
        .map(JsCast::unchecked_into)
        .map_err(|_| {
            VfsError::new(ErrorKind::OutOfMemory, "/")
                .with_detail(format!("the browser cannot make an array of {size} bytes"))
        })
}
