//! Values between the runtime and JavaScript: the protocol's types through
//! serde-wasm-bindgen, errors as JS `Error`s with a `code`, file contents straight into
//! a `Uint8Array`.

use js_sys::{Array, Reflect, Uint8Array};
use sandtab_runtime::{Reply, RuntimeError};
use sandtab_vfs::storage::ContentSink;
use sandtab_vfs::{ErrorKind, VfsError, VfsResult};
use send_wrapper::SendWrapper;
use serde::Serialize;
use serde::de::DeserializeOwned;
use wasm_bindgen::prelude::*;

pub fn set(object: &JsValue, key: &str, value: &JsValue) {
    // Setting a data property on a plain object cannot fail.
    let _ = Reflect::set(object, &JsValue::from_str(key), value);
}

/// A runtime error as a JS `Error` whose `code` is its code.
pub fn js_error(err: RuntimeError) -> JsValue {
    let error = js_sys::Error::new(&err.message);
    set(&error, "code", &JsValue::from_str(&err.code));
    error.into()
}

/// A protocol value from JS, an error naming the field that is wrong.
pub fn from_js<T: DeserializeOwned>(value: JsValue, place: &str) -> Result<T, JsValue> {
    sandtab_runtime::protocol::decode(serde_wasm_bindgen::Deserializer::from(value), place).map_err(
        |mut err| {
            // serde-wasm-bindgen's errors are JS `Error`s whose text is `String(error)`,
            // "Error: <message>": the message alone follows the place.
            err.message = err.message.replacen(": Error: ", ": ", 1);
            js_error(err)
        },
    )
}

/// Options from JS, through a JSON value first: serde-wasm-bindgen reads only the
/// fields a struct knows, so an unknown (misspelt) option would pass unseen. Byte arrays
/// become arrays of numbers, which `Bytes` reads.
pub fn options_from_js<T: DeserializeOwned>(value: &JsValue, place: &str) -> Result<T, JsValue> {
    let tree = js_to_json(value, 0)
        .map_err(|message| js_error(RuntimeError::invalid(format!("{place}: {message}"))))?;
    sandtab_runtime::protocol::decode_value(tree, place).map_err(js_error)
}

/// How deep options may nest (a cycle would otherwise never end).
const MAX_DEPTH: usize = 64;

fn js_to_json(value: &JsValue, depth: usize) -> Result<serde_json::Value, String> {
    use serde_json::Value;
    if depth > MAX_DEPTH {
        return Err(format!("nested more than {MAX_DEPTH} deep"));
    }
    if value.is_undefined() || value.is_null() {
        return Ok(Value::Null);
    }
    if let Some(flag) = value.as_bool() {
        return Ok(Value::Bool(flag));
    }
    if let Some(number) = value.as_f64() {
        let whole = number.fract() == 0.0 && number.abs() < 9_007_199_254_740_992.0;
        return Ok(match whole {
            true if number >= 0.0 => Value::from(number as u64),
            true => Value::from(number as i64),
            false => serde_json::Number::from_f64(number).map_or(Value::Null, Value::Number),
        });
    }
    if let Some(text) = value.as_string() {
        return Ok(Value::String(text));
    }
    if let Some(bytes) = value.dyn_ref::<Uint8Array>() {
        return Ok(Value::Array(
            bytes.to_vec().into_iter().map(Value::from).collect(),
        ));
    }
    if Array::is_array(value) {
        return Array::from(value)
            .iter()
            .map(|item| js_to_json(&item, depth + 1))
            .collect::<Result<Vec<_>, _>>()
            .map(Value::Array);
    }
    if value.is_function() {
        return Err("a function cannot be an option here".into());
    }
    if value.is_object() {
        let mut map = serde_json::Map::new();
        for key in js_sys::Object::keys(value.unchecked_ref::<js_sys::Object>()).iter() {
            let name = key.as_string().unwrap_or_default();
            let item = Reflect::get(value, &key).unwrap_or(JsValue::UNDEFINED);
            if item.is_undefined() {
                continue;
            }
            map.insert(name, js_to_json(&item, depth + 1)?);
        }
        return Ok(Value::Object(map));
    }
    Err("a value that is not JSON (a symbol or a bigint)".into())
}

/// A protocol value as plain JS: objects (not `Map`s), `null` for nothing, bytes as
/// `Uint8Array`s.
pub fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsValue> {
    value
        .serialize(
            &serde_wasm_bindgen::Serializer::new()
                .serialize_missing_as_null(true)
                .serialize_maps_as_objects(true),
        )
        .map_err(|err| js_error(RuntimeError::invalid(err.to_string())))
}

/// A reply as plain JS. A JSON document (a recording, with nanosecond times past 2^53)
/// goes as JSON text and `JSON.parse`, as it would be written to a file and read back.
pub fn reply_to_js(reply: &Reply) -> Result<JsValue, JsValue> {
    let Reply::Json { value } = reply else {
        return to_js(reply);
    };
    let text = serde_json::to_string(value)
        .map_err(|err| js_error(RuntimeError::invalid(err.to_string())))?;
    let object = js_sys::Object::new();
    set(&object, "reply", &JsValue::from_str("json"));
    set(&object, "value", &js_sys::JSON::parse(&text)?);
    Ok(object.into())
}

/// Options whose `replay` recording is an object get it as JSON text: its nanosecond
/// times pass 2^53, which only JSON's digits keep exactly.
pub fn replay_as_text(options: JsValue) -> Result<JsValue, JsValue> {
    let replay = Reflect::get(&options, &JsValue::from_str("replay")).unwrap_or(JsValue::UNDEFINED);
    if !replay.is_object() {
        return Ok(options);
    }
    let text = js_sys::JSON::stringify(&replay).map_err(|_| {
        js_error(RuntimeError::invalid(
            "options.replay cannot be turned into JSON",
        ))
    })?;
    let copy = js_sys::Object::assign(&js_sys::Object::new(), options.unchecked_ref());
    set(&copy, "replay", &text);
    Ok(copy.into())
}

/// Builds the `Uint8Array` `readFile` answers with, piece by piece.
#[derive(Debug, Default)]
pub struct ArraySink {
    array: Option<SendWrapper<Uint8Array>>,
    filled: u32,
}

impl ContentSink for ArraySink {
    fn size(&mut self, size: u64) -> VfsResult<()> {
        self.array = Some(SendWrapper::new(new_byte_array(size)?));
        Ok(())
    }

    fn piece(&mut self, data: &[u8]) {
        if let Some(array) = &self.array {
            let end = self.filled + data.len() as u32;
            array.subarray(self.filled, end).copy_from(data);
            self.filled = end;
        }
    }
}

impl ArraySink {
    pub fn into_array(self) -> JsValue {
        self.array
            .map_or_else(|| Uint8Array::new_with_length(0), SendWrapper::take)
            .into()
    }
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
