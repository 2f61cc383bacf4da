//! The recording format: the [`Op`]s a sandbox was asked, each with the inputs it
//! consumed and its outcome, and the digest of the tree at the end. Version 3 keeps the
//! protocol's own [`Op`]s; versions 1 and 2 (the shell's earlier format) are read and
//! turned into them, so old recordings still replay.

use crate::bytes::{self, Bytes};
use crate::error::{RuntimeError, RuntimeResult};
use crate::protocol::{ExecRequest, FetchRequest, Op, decode_value};
use sandtab_shell::replay::{self as legacy, Inputs, Outcome};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What the `format` field of a recording says.
pub use legacy::RECORDING_FORMAT;
/// The version this sandtab writes: 3 keeps the protocol's ops.
pub const RECORDING_VERSION: u32 = 3;

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
    pub format: String,
    pub version: u32,
    /// The options that shape what the sandbox does (limits, quota, capabilities).
    #[serde(default)]
    pub options: Value,
    /// The programs installed (names and SHA-256), which a replay needs too.
    #[serde(default)]
    pub programs: Vec<Value>,
    /// The inputs opening the sandbox consumed.
    #[serde(default)]
    pub opening: Inputs,
    pub ops: Vec<RecordedOp>,
    /// [`legacy::tree_digest`] after the last operation.
    pub tree: String,
}

impl Recording {
    /// Reads a recording of any version this sandtab knows.
    pub fn from_json(text: &str) -> RuntimeResult<Self> {
        let invalid = |err: String| RuntimeError::invalid(err);
        let head: Value = serde_json::from_str(text)
            .map_err(|err| invalid(format!("not a sandtab recording: {err}")))?;
        let version = head.get("version").and_then(Value::as_u64);
        if let Some(other) = version.filter(|v| *v > u64::from(RECORDING_VERSION) || *v == 0) {
            return Err(invalid(format!(
                "a recording of version {other}; this sandtab reads versions {} to {RECORDING_VERSION}",
                legacy::OLDEST_RECORDING_VERSION
            )));
        }
        if version != Some(u64::from(RECORDING_VERSION)) {
            // Versions 1 and 2, or an error naming the versions read.
            return legacy::Recording::from_json(text)
                .map_err(invalid)
                .and_then(Self::from_legacy);
        }
        let recording: Recording = serde_path_to_error::deserialize(head).map_err(|err| {
            invalid(format!(
                "not a sandtab recording: {}: {}",
                err.path(),
                err.inner()
            ))
        })?;
        if recording.format != RECORDING_FORMAT {
            return Err(invalid(format!(
                "not a sandtab recording (its format is `{}`)",
                recording.format
            )));
        }
        if recording.ops.len() > legacy::MAX_OPS {
            return Err(invalid(format!(
                "a recording of more than {} operations",
                legacy::MAX_OPS
            )));
        }
        Ok(recording)
    }

    /// The recording as JSON, its bytes as base64.
    pub fn to_json_value(&self) -> RuntimeResult<Value> {
        bytes::with_base64(|| serde_json::to_value(self))
            .map_err(|err| RuntimeError::invalid(err.to_string()))
    }

    /// Whether the shell interpreter's own clocks and random draws are on the tape (from
    /// version 2).
    pub fn tapes_the_shell(&self) -> bool {
        self.version >= 2
    }

    fn from_legacy(old: legacy::Recording) -> RuntimeResult<Self> {
        let tapes_the_shell = old.tapes_the_shell();
        let ops = old
            .ops
            .into_iter()
            .map(|recorded| {
                Ok(RecordedOp {
                    op: from_legacy_op(recorded.op)?,
                    inputs: recorded.inputs,
                    outcome: recorded.outcome,
                })
            })
            .collect::<RuntimeResult<Vec<_>>>()?;
        Ok(Self {
            format: old.format,
            // Kept, so that a version 1 replay still reads the shell's real clocks.
            version: if tapes_the_shell { 2 } else { 1 },
            options: old.options,
            programs: old.programs,
            opening: old.opening,
            ops,
            tree: old.tree,
        })
    }
}

/// An operation of the shell's earlier format as the protocol's.
pub fn from_legacy_op(op: legacy::Op) -> RuntimeResult<Op> {
    Ok(match op {
        legacy::Op::Exec {
            script,
            session,
            fresh,
            max_output_bytes,
            guest_limits,
        } => Op::Exec(ExecRequest {
            script,
            session,
            fresh,
            max_output_bytes: max_output_bytes.map(crate::config::Count),
            guest_limits: guest_limits
                .map(|limits| decode_value(limits, "a recorded exec's guestLimits"))
                .transpose()?,
            ..ExecRequest::default()
        }),
        legacy::Op::CallTool { name, args } => Op::CallTool { name, args },
        legacy::Op::WriteFile { path, data } => Op::WriteFile {
            path,
            data: decode_value(Value::String(data), "a recorded writeFile's data")?,
            parents: false,
        },
        legacy::Op::WriteText { path, content } => Op::WriteText { path, content },
        legacy::Op::EditFile {
            path,
            old_string,
            new_string,
            replace_all,
        } => Op::EditFile {
            path,
            old_string,
            new_string,
            replace_all,
        },
        legacy::Op::CloseSession { name } => Op::CloseSession { name },
        legacy::Op::Fetch { request } => {
            let text = |key: &str| request.get(key).and_then(Value::as_str).map(str::to_owned);
            let headers: Vec<(String, String)> =
                decode_value(request["headers"].clone(), "a recorded request's headers")?;
            let body = match request.get("body") {
                Some(Value::String(b64)) => Some(decode_value::<Bytes>(
                    Value::String(b64.clone()),
                    "a recorded request's body",
                )?),
                _ => None,
            };
            Op::Fetch {
                request: FetchRequest {
                    url: text("url")
                        .ok_or_else(|| RuntimeError::invalid("a recorded request has no url"))?,
                    method: text("method"),
                    headers,
                    body,
                    follow: request["follow"].as_bool(),
                },
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_version_2_recording_reads_as_protocol_ops() {
        let text = r#"{"format":"sandtab-recording","version":2,"options":{},"programs":[],
            "opening":{},"tree":"t","ops":[
            {"op":"exec","script":"ls","max_output_bytes":9,"guest_limits":{"fuel":7},"outcome":{}},
            {"op":"write_file","path":"/a","data":"aGk=","outcome":{}},
            {"op":"fetch","request":{"method":"POST","url":"http://x/","headers":[["a","b"]],"body":"aGk=","follow":false},"outcome":{}}]}"#;
        let recording = Recording::from_json(text).unwrap();
        assert_eq!(recording.version, 2);
        let Op::Exec(exec) = &recording.ops[0].op else {
            panic!()
        };
        assert_eq!(exec.max_output_bytes.unwrap().0, 9);
        assert_eq!(exec.guest_limits.as_ref().unwrap().fuel.unwrap().0, 7);
        assert_eq!(
            recording.ops[1].op,
            Op::WriteFile {
                path: "/a".into(),
                data: Bytes(b"hi".to_vec()),
                parents: false,
            }
        );
        let Op::Fetch { request } = &recording.ops[2].op else {
            panic!()
        };
        assert_eq!(request.body, Some(Bytes(b"hi".to_vec())));
        assert_eq!(request.follow, Some(false));
    }

    #[test]
    fn version_3_round_trips_with_bytes_as_base64() {
        let recording = Recording {
            format: RECORDING_FORMAT.into(),
            version: RECORDING_VERSION,
            options: Value::Null,
            programs: vec![],
            opening: Inputs::default(),
            ops: vec![RecordedOp {
                op: Op::WriteFile {
                    path: "/a".into(),
                    data: Bytes(vec![0, 255]),
                    parents: false,
                },
                inputs: Inputs::default(),
                outcome: Outcome::default(),
            }],
            tree: "t".into(),
        };
        let value = recording.to_json_value().unwrap();
        assert_eq!(value["ops"][0]["data"], "AP8=");
        assert_eq!(value["ops"][0]["op"], "writeFile");
        let back = Recording::from_json(&value.to_string()).unwrap();
        assert_eq!(back, recording);
        let err =
            Recording::from_json(r#"{"format":"x","version":9,"ops":[],"tree":""}"#).unwrap_err();
        assert!(err.message.contains("recording"), "{}", err.message);
    }
}
