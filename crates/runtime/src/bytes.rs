//! Bytes in the protocol: a byte array to the worker (a `Uint8Array` in JS), base64 text
//! in a recording's JSON.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::cell::Cell;
use std::fmt;

thread_local! {
    /// Set while a recording is written: its bytes go as base64 text, not number arrays.
    static AS_BASE64: Cell<bool> = const { Cell::new(false) };
}

/// Runs `write` with [`Bytes`] serialised as base64 text (for JSON meant to be kept).
pub fn with_base64<T>(write: impl FnOnce() -> T) -> T {
    let before = AS_BASE64.with(|flag| flag.replace(true));
    let result = write();
    AS_BASE64.with(|flag| flag.set(before));
    result
}

/// Owned bytes. Read from a byte array, an array of numbers or base64 text; written as a
/// byte array, or as base64 text inside [`with_base64`].
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Bytes(pub Vec<u8>);

impl fmt::Debug for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Bytes({} bytes)", self.0.len())
    }
}

impl From<Vec<u8>> for Bytes {
    fn from(bytes: Vec<u8>) -> Self {
        Self(bytes)
    }
}

impl Serialize for Bytes {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if AS_BASE64.with(Cell::get) {
            serializer.serialize_str(&STANDARD.encode(&self.0))
        } else {
            serializer.serialize_bytes(&self.0)
        }
    }
}

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(BytesVisitor)
    }
}

struct BytesVisitor;

impl<'de> Visitor<'de> for BytesVisitor {
    type Value = Bytes;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("bytes (a Uint8Array, an array of numbers 0-255 or base64 text)")
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Bytes, E> {
        Ok(Bytes(v.to_vec()))
    }

    fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<Bytes, E> {
        Ok(Bytes(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Bytes, E> {
        STANDARD
            .decode(v)
            .map(Bytes)
            .map_err(|_| E::custom("bytes given as text must be base64"))
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Bytes, A::Error> {
        let mut bytes = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 20));
        while let Some(byte) = seq.next_element::<u8>()? {
            bytes.push(byte);
        }
        Ok(Bytes(bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_round_trips_as_base64_inside_with_base64_only() {
        let bytes = Bytes(vec![0, 1, 254, 255]);
        let plain = serde_json::to_string(&bytes).unwrap();
        assert_eq!(plain, "[0,1,254,255]");
        let kept = with_base64(|| serde_json::to_string(&bytes).unwrap());
        assert_eq!(kept, "\"AAH+/w==\"");
        for text in [plain, kept] {
            assert_eq!(serde_json::from_str::<Bytes>(&text).unwrap(), bytes);
        }
        assert!(serde_json::from_str::<Bytes>("\"not base64!\"").is_err());
        assert!(serde_json::from_str::<Bytes>("[256]").is_err());
    }
}
