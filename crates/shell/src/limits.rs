//! The shell's limits: explicit, documented, and all overridable per sandbox.
//!
//! bashkit's own defaults (10,000 commands per exec) suit one-line tool calls, not an agent
//! running a build script, so every limit is set here on purpose.

use crate::error::ShellError;
use std::time::Duration;

/// Bytes bashkit may hold in command buffers at once.
const LIVE_BUFFER_BYTES: u64 = 512 << 20;

/// Limits for one `exec` of a shell session. Hitting one ends the exec with exit status
/// 126 and a message naming the limit; the session stays usable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellLimits {
    /// Commands run by one exec, builtins included. Default 10,000,000.
    pub max_commands: usize,
    /// Iterations of any single loop. Default 1,000,000.
    pub max_loop_iterations: usize,
    /// Iterations of all loops of one exec together. Default 10,000,000.
    pub max_total_loop_iterations: usize,
    /// Depth of nested function calls, `source` and subshells. Default 16 (the most
    /// bashkit allows, for host stack safety).
    pub max_function_depth: usize,
    /// Wall-clock time of one exec. Default 120 s.
    pub timeout: Duration,
    /// Bytes of stdout, and separately of stderr, kept in one exec's outcome; past it
    /// the outcome is cut (and says so), while the output still streams. Default 1 MiB.
    pub max_output_bytes: usize,
    /// Bytes of stdout, and separately of stderr, one exec may write in all (streamed
    /// and counted); past it, further output is dropped. Default 256 MiB.
    pub max_written_bytes: usize,
    /// Bytes one exec may write to files, by any command, redirection or guest program
    /// (a runaway `>>` loop); past it the write fails (EFBIG) and the exec ends with
    /// 126. Default 1 GiB.
    pub max_file_write_bytes: u64,
    /// Limits of each guest program (WebAssembly) a command runs.
    pub guest: sandtab_wasi::GuestLimits,
}

impl Default for ShellLimits {
    fn default() -> Self {
        Self {
            max_commands: 10_000_000,
            max_loop_iterations: 1_000_000,
            max_total_loop_iterations: 10_000_000,
            max_function_depth: 16,
            timeout: Duration::from_secs(120),
            max_output_bytes: 1 << 20,
            max_written_bytes: 256 << 20,
            max_file_write_bytes: 1 << 30,
            guest: sandtab_wasi::GuestLimits::default(),
        }
    }
}

impl ShellLimits {
    /// The most nested calls bashkit supports.
    pub const MAX_FUNCTION_DEPTH: usize = 16;

    /// Checks that every limit is usable: nothing zero, depth within bashkit's cap.
    pub fn validate(&self) -> Result<(), ShellError> {
        let positive = [
            ("max_commands", self.max_commands),
            ("max_loop_iterations", self.max_loop_iterations),
            ("max_total_loop_iterations", self.max_total_loop_iterations),
            ("max_function_depth", self.max_function_depth),
            ("max_output_bytes", self.max_output_bytes),
            ("max_written_bytes", self.max_written_bytes),
            (
                "max_file_write_bytes",
                usize::try_from(self.max_file_write_bytes).unwrap_or(usize::MAX),
            ),
        ];
        for (name, value) in positive {
            if value == 0 {
                return Err(ShellError::InvalidLimit {
                    name,
                    reason: "must be at least 1".into(),
                });
            }
        }
        if self.max_function_depth > Self::MAX_FUNCTION_DEPTH {
            return Err(ShellError::InvalidLimit {
                name: "max_function_depth",
                reason: format!("must be at most {}", Self::MAX_FUNCTION_DEPTH),
            });
        }
        if self.timeout.is_zero() {
            return Err(ShellError::InvalidLimit {
                name: "timeout",
                reason: "must be longer than zero".into(),
            });
        }
        self.guest
            .validate()
            .map_err(|err| ShellError::InvalidLimit {
                name: "guest",
                reason: err.to_string(),
            })?;
        Ok(())
    }

    pub(crate) fn to_bashkit(&self) -> bashkit::ExecutionLimits {
        bashkit::ExecutionLimits::new()
            .max_commands(self.max_commands)
            .max_loop_iterations(self.max_loop_iterations)
            .max_total_loop_iterations(self.max_total_loop_iterations)
            .max_function_depth(self.max_function_depth)
            .timeout(self.timeout)
            // bashkit stops streaming at its cap: it is the written bound, so that what
            // is written past the kept part is still counted.
            .max_stdout_bytes(self.max_written_bytes.max(self.max_output_bytes))
            .max_stderr_bytes(self.max_written_bytes.max(self.max_output_bytes))
            // Work units are bashkit's aggregate fuel; the limits above are the ones we
            // document, so keep this one out of their way.
            .max_work_units(u64::MAX / 2)
            // bashkit's own guards against huge buffers (32 MB at once, 100 MB per exec by
            // default) refuse `wc -c < file` on a 16 MiB file; files are bounded by the
            // sandbox's quota (128 MiB each by default), so allow a few of them at once.
            .max_live_intermediate_bytes(LIVE_BUFFER_BYTES)
            .max_aggregate_input_bytes(u64::MAX / 2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_zero_is_refused() {
        ShellLimits::default().validate().unwrap();
        let zero = ShellLimits {
            max_loop_iterations: 0,
            ..ShellLimits::default()
        };
        let err = zero.validate().unwrap_err();
        assert!(err.to_string().contains("max_loop_iterations"), "{err}");
        let deep = ShellLimits {
            max_function_depth: 17,
            ..ShellLimits::default()
        };
        assert!(deep.validate().is_err());
    }
}
