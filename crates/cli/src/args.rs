//! The command line, declared with clap: `run` and `sh`, their options, `--help` for
//! each, `--version`, and `--opt=value` as well as `--opt value`.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// What `--help` adds below the options: how the copied-in directories go back.
const WRITE_BACK: &str = "\
`--dir HOSTDIR::GUESTDIR` copies HOSTDIR into the sandbox; `--dir HOSTDIR::GUESTDIR:ro`
copies it read-only, and nothing of it is written back.

Written back to HOSTDIR (unless :ro): the files, directories and symlinks the guest
made, changed or removed below GUESTDIR, each written relative to its opened parent
directory on the host. Modes keep the permission bits only (mode & 0o777): setuid,
setgid and sticky bits are never written. Refused, with a line on stderr, and left
out (with whatever is below it), while the rest is still written back:
  - a symlink whose target is absolute, or that leaves HOSTDIR read from the link's
    own directory (`..` is allowed only at the target's start, and no more of them
    than the link is deep below HOSTDIR);
  - a name with `\\`, NUL, a drive letter (`C:`), or that is `.` or `..`;
  - anything that would be written through a symlink on the host (made there during
    the run, say), and a symlink on the host where a directory or file is to go.
A changed file is written to a temporary file beside it and renamed over it, so a
failed write leaves the original, and a hard link to a file outside HOSTDIR is
replaced, never written through. A directory the guest removed is kept, with a line
on stderr, if it still holds anything the guest never saw.

The exit status is the program's or the script's; 137 when a guest hits a limit;
3 when the program's was 0 but the write-back refused or failed on some entry;
2 for a bad command line.";

#[derive(Debug, Parser)]
#[command(
    name = "sandtab",
    version,
    about = "Runs a WASI program, or a shell script, in an in-memory sandbox. Host directories \
             given with --dir are copied in, and the guest's changes are written back on exit.",
    after_help = WRITE_BACK,
    subcommand_required = true,
    arg_required_else_help = true
)]
struct Cli {
    #[command(subcommand)]
    command: Sub,
}

#[derive(Debug, Subcommand)]
enum Sub {
    /// Run a WASI program (preview 1) on the interpreter.
    #[command(after_help = WRITE_BACK)]
    Run {
        #[command(flatten)]
        common: Common,
        /// The program.
        #[arg(value_name = "PROGRAM.wasm")]
        program: PathBuf,
        /// The program's arguments (options included: they are the program's).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Run a shell script: `-c SCRIPT`, a FILE, or `--replay RECORDING.json`.
    #[command(after_help = WRITE_BACK)]
    Sh {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        sandbox: SandboxArgs,
        /// Replay a recording in a new sandbox and print the report (JSON); the exit
        /// status is 0 if it matched, 1 if not. It takes no script and no other sandbox
        /// option: the recording holds its own.
        #[arg(long, value_name = "FILE", conflicts_with_all = ["script", "rest", "caps", "tools", "record", "resume", "handoff", "dirs", "env"])]
        replay: Option<PathBuf>,
        /// The script itself; the arguments after it are $1, $2, ...
        #[arg(short = 'c', value_name = "SCRIPT")]
        script: Option<String>,
        /// FILE and its arguments, or the arguments of `-c SCRIPT`.
        #[arg(
            trailing_var_arg = true,
            allow_hyphen_values = true,
            value_name = "FILE | ARGS"
        )]
        rest: Vec<String>,
    },
}

/// The options `run` and `sh` share.
#[derive(Debug, Args)]
struct Common {
    /// Copy HOSTDIR to GUESTDIR in the sandbox (repeatable); HOSTDIR alone maps it to
    /// the same absolute path. `:ro` copies it in read-only: the guest gets EROFS on any
    /// change below GUESTDIR, and nothing is written back (`:rw`, the default, may be
    /// written too).
    #[arg(long = "dir", id = "dirs", value_name = "HOSTDIR::GUESTDIR[:ro]", value_parser = dir_map)]
    dirs: Vec<DirMap>,
    /// Set an environment variable (repeatable).
    #[arg(long, value_name = "KEY=VALUE", value_parser = env_pair)]
    env: Vec<(String, String)>,
    /// wasmi fuel of each guest [default: 10^15].
    #[arg(long, value_name = "N", value_parser = positive)]
    fuel: Option<u64>,
    /// Linear memory each guest may grow to, in MiB [default: 1024].
    #[arg(long, value_name = "N", value_parser = positive)]
    memory_mb: Option<u64>,
    /// Wall-clock limit of each guest, in milliseconds [default: 600000].
    #[arg(long, value_name = "N", value_parser = positive)]
    deadline_ms: Option<u64>,
    /// Bytes all files in the sandbox may hold together (the copied-in --dir trees
    /// included), with an optional K, M or G suffix (powers of 1024), or `unlimited`
    /// [default: 1G]. Files live in this process's memory: a guest growing files past it
    /// (write, ftruncate, fd_allocate) gets EDQUOT.
    #[arg(long, value_name = "SIZE", value_parser = parse_quota)]
    quota: Option<u64>,
}

/// The options that run a script on sandtab's typed runtime (the sandbox the browser tab
/// and Node run); with any of them the script's stdin is empty.
#[derive(Debug, Args)]
struct SandboxArgs {
    /// The capability document (JSON, as a tab's `capabilities`): granted tools,
    /// limits, filesystem; no network here.
    #[arg(long, value_name = "FILE")]
    caps: Option<PathBuf>,
    /// Answer the granted tool NAME with a host command (repeatable): COMMAND is split on
    /// spaces into a program and its arguments (no shell), run with the call's JSON
    /// arguments on stdin; its stdout is the JSON answer; a non-zero exit fails the call
    /// (CAP_TOOL_FAILED, with its stderr). The capability document still decides which
    /// calls are allowed.
    #[arg(long = "tool", id = "tools", value_name = "NAME=COMMAND", value_parser = tool_command)]
    tools: Vec<ToolCommand>,
    /// Record every operation; write the recording (JSON) to FILE when the script ends.
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
    /// Start from a hand-off (JSON: a tab's, Node's or --handoff's): its files, sessions
    /// (cwd, variables, functions) and options (limits, quota, capabilities; those given
    /// here win).
    #[arg(long, value_name = "FILE")]
    resume: Option<PathBuf>,
    /// After the script, write the sandbox as a hand-off to FILE, for a tab, Node or
    /// --resume to carry on from.
    #[arg(long, value_name = "FILE")]
    handoff: Option<PathBuf>,
}

/// A host directory copied into the sandbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirMap {
    pub host: PathBuf,
    pub guest: String,
    /// `:ro`: mounted read-only in the sandbox, nothing written back.
    pub read_only: bool,
}

#[derive(Debug, PartialEq, Eq)]
pub enum Command {
    Run {
        program: PathBuf,
        args: Vec<String>,
    },
    Sh {
        script: Script,
        args: Vec<String>,
    },
    /// `sh --replay FILE`: replays a recording, no script.
    Replay {
        recording: PathBuf,
    },
}

/// A granted tool answered by a host command (`--tool NAME=COMMAND`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCommand {
    pub name: String,
    /// The program and its arguments.
    pub argv: Vec<String>,
}

/// The options that run a script on the typed runtime.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct SandboxFlags {
    /// `--caps`: the capability document.
    pub caps: Option<PathBuf>,
    /// `--tool`: host commands answering granted tools.
    pub tools: Vec<ToolCommand>,
    /// `--record`: where the recording goes.
    pub record: Option<PathBuf>,
    /// `--resume`: the hand-off to start from.
    pub resume: Option<PathBuf>,
    /// `--handoff`: where the hand-off goes.
    pub handoff: Option<PathBuf>,
}

impl SandboxFlags {
    /// Whether any was given (the script then runs on the typed runtime).
    pub fn any(&self) -> bool {
        *self != Self::default()
    }
}

#[derive(Debug, PartialEq, Eq)]
pub enum Script {
    Inline(String),
    File(PathBuf),
}

#[derive(Debug, PartialEq, Eq)]
pub struct Options {
    pub command: Command,
    pub dirs: Vec<DirMap>,
    pub env: Vec<(String, String)>,
    pub fuel: Option<u64>,
    pub memory_mb: Option<u64>,
    pub deadline_ms: Option<u64>,
    /// `--quota`: bytes all files may hold (`u64::MAX` for `unlimited`); `None` when
    /// not given.
    pub quota_bytes: Option<u64>,
    /// `--caps`, `--tool`, `--record`, `--resume`, `--handoff`.
    pub sandbox: SandboxFlags,
}

impl Options {
    /// The byte quota: `--quota`, or the default.
    pub fn quota(&self) -> u64 {
        self.quota_bytes.unwrap_or(DEFAULT_QUOTA_BYTES)
    }
}

/// The byte quota without `--quota`: files are kept in the CLI's own memory, so a guest
/// growing files without bound (ftruncate, fd_allocate, write) must meet a limit.
pub const DEFAULT_QUOTA_BYTES: u64 = 1 << 30;

/// Parses the command line (the program name first). `--help`, `--version` and bad
/// input come back as clap's error, which prints itself and knows its exit status.
pub fn parse<I, T>(args: I) -> Result<Options, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = Cli::try_parse_from(args)?;
    Ok(match cli.command {
        Sub::Run {
            common,
            program,
            args,
        } => options(
            common,
            SandboxFlags::default(),
            Command::Run { program, args },
        ),
        Sub::Sh {
            common,
            sandbox,
            replay,
            script,
            rest,
        } => {
            let command = match (replay, script) {
                (Some(recording), _) => Command::Replay { recording },
                (None, Some(script)) => Command::Sh {
                    script: Script::Inline(script),
                    args: rest,
                },
                (None, None) => {
                    let mut rest = rest.into_iter();
                    let Some(file) = rest.next() else {
                        return Err(Cli::command_for_errors().error(
                            clap::error::ErrorKind::MissingRequiredArgument,
                            "sh needs -c SCRIPT, a FILE, or --replay FILE",
                        ));
                    };
                    Command::Sh {
                        script: Script::File(file.into()),
                        args: rest.collect(),
                    }
                }
            };
            let sandbox = SandboxFlags {
                caps: sandbox.caps,
                tools: sandbox.tools,
                record: sandbox.record,
                resume: sandbox.resume,
                handoff: sandbox.handoff,
            };
            options(common, sandbox, command)
        }
    })
}

impl Cli {
    /// The `sh` subcommand's clap description, for an error clap cannot see itself.
    fn command_for_errors() -> clap::Command {
        use clap::CommandFactory;
        let mut cli = Self::command();
        cli.build();
        cli.find_subcommand("sh").cloned().unwrap_or(cli)
    }
}

fn options(common: Common, sandbox: SandboxFlags, command: Command) -> Options {
    Options {
        command,
        dirs: common.dirs,
        env: common.env,
        fuel: common.fuel,
        memory_mb: common.memory_mb,
        deadline_ms: common.deadline_ms,
        quota_bytes: common.quota,
        sandbox,
    }
}

fn positive(value: &str) -> Result<u64, String> {
    value
        .parse::<u64>()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| "needs a positive whole number".to_owned())
}

fn env_pair(pair: &str) -> Result<(String, String), String> {
    pair.split_once('=')
        .filter(|(key, _)| !key.is_empty())
        .map(|(key, value)| (key.to_owned(), value.to_owned()))
        .ok_or_else(|| "needs KEY=VALUE".to_owned())
}

fn tool_command(value: &str) -> Result<ToolCommand, String> {
    let (name, command) = value
        .split_once('=')
        .filter(|(name, command)| !name.is_empty() && !command.trim().is_empty())
        .ok_or("needs NAME=COMMAND")?;
    Ok(ToolCommand {
        name: name.to_owned(),
        argv: command.split_whitespace().map(str::to_owned).collect(),
    })
}

/// `--quota`'s value: bytes with an optional K/M/G suffix (powers of 1024), or
/// `unlimited`.
fn parse_quota(value: &str) -> Result<u64, String> {
    if value == "unlimited" {
        return Ok(u64::MAX);
    }
    let (digits, shift) = match value.char_indices().last() {
        Some((at, 'k' | 'K')) => (&value[..at], 10),
        Some((at, 'm' | 'M')) => (&value[..at], 20),
        Some((at, 'g' | 'G')) => (&value[..at], 30),
        _ => (value, 0),
    };
    digits
        .parse::<u64>()
        .ok()
        .filter(|n| *n > 0)
        .and_then(|n| n.checked_mul(1 << shift))
        .ok_or_else(|| "needs a positive size like 4096, 512M or 2G, or `unlimited`".to_owned())
}

fn dir_map(value: &str) -> Result<DirMap, String> {
    let (mapping, read_only) = if let Some(mapping) = value.strip_suffix(":ro") {
        (mapping, true)
    } else {
        (value.strip_suffix(":rw").unwrap_or(value), false)
    };
    let (host, guest) = match mapping.split_once("::") {
        Some((host, guest)) => (host, guest.to_owned()),
        None => (mapping, mapping.to_owned()),
    };
    if host.is_empty() || !guest.starts_with('/') {
        return Err("needs HOSTDIR::GUESTDIR with an absolute GUESTDIR".to_owned());
    }
    Ok(DirMap {
        host: host.into(),
        guest,
        read_only,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &[&str]) -> Vec<String> {
        text.iter().map(|s| s.to_string()).collect()
    }

    /// Parses `text` as the words after `sandtab`.
    fn parse(text: &[&str]) -> Result<Options, String> {
        super::parse(std::iter::once("sandtab").chain(text.iter().copied()))
            .map_err(|err| err.to_string())
    }

    #[test]
    fn run_with_options_and_program_arguments() {
        let options = parse(&[
            "run", "--dir", "/h::/g", "--env", "A=b=c", "--fuel", "10", "p.wasm", "--x", "y",
        ])
        .unwrap_or_else(|err| panic!("{err}"));
        assert_eq!(
            options.dirs,
            vec![DirMap {
                host: "/h".into(),
                guest: "/g".into(),
                read_only: false,
            }]
        );
        assert_eq!(options.env, vec![("A".into(), "b=c".into())]);
        assert_eq!(options.fuel, Some(10));
        assert_eq!(
            options.command,
            Command::Run {
                program: "p.wasm".into(),
                args: args(&["--x", "y"])
            }
        );
    }

    #[test]
    fn quota_sizes_and_default() {
        for (value, bytes) in [
            ("4096", 4096),
            ("64k", 64 << 10),
            ("512M", 512 << 20),
            ("2G", 2 << 30),
            ("unlimited", u64::MAX),
        ] {
            let options =
                parse(&["run", "--quota", value, "p.wasm"]).unwrap_or_else(|err| panic!("{err}"));
            assert_eq!(options.quota(), bytes, "{value}");
        }
        let options = parse(&["run", "p.wasm"]).unwrap_or_else(|err| panic!("{err}"));
        assert_eq!(options.quota_bytes, None);
        assert_eq!(options.quota(), DEFAULT_QUOTA_BYTES);
    }

    #[test]
    fn dir_mappings_read_only_and_read_write() {
        for (value, host, guest, read_only) in [
            ("/h::/g:ro", "/h", "/g", true),
            ("/h::/g:rw", "/h", "/g", false),
            ("/h::/g", "/h", "/g", false),
            ("/h:ro", "/h", "/h", true),
            ("/h", "/h", "/h", false),
        ] {
            let options =
                parse(&["sh", "--dir", value, "-c", "true"]).unwrap_or_else(|err| panic!("{err}"));
            assert_eq!(
                options.dirs,
                vec![DirMap {
                    host: host.into(),
                    guest: guest.into(),
                    read_only,
                }],
                "{value}"
            );
        }
    }

    #[test]
    fn sh_inline_and_file() {
        let inline = parse(&["sh", "-c", "echo $1", "a"]).unwrap_or_else(|err| panic!("{err}"));
        assert_eq!(
            inline.command,
            Command::Sh {
                script: Script::Inline("echo $1".into()),
                args: args(&["a"])
            }
        );
        let file = parse(&["sh", "s.sh", "x"]).unwrap_or_else(|err| panic!("{err}"));
        assert_eq!(
            file.command,
            Command::Sh {
                script: Script::File("s.sh".into()),
                args: args(&["x"])
            }
        );
    }

    #[test]
    fn sandbox_flags_and_replay() {
        let options = parse(&[
            "sh",
            "--caps",
            "c.json",
            "--tool",
            "weather=./w.sh --city x",
            "--resume",
            "in.json",
            "--handoff",
            "out.json",
            "-c",
            "true",
        ])
        .unwrap_or_else(|err| panic!("{err}"));
        assert!(options.sandbox.any());
        assert_eq!(options.sandbox.caps, Some("c.json".into()));
        assert_eq!(
            options.sandbox.tools,
            vec![ToolCommand {
                name: "weather".into(),
                argv: args(&["./w.sh", "--city", "x"]),
            }]
        );
        let replay = parse(&["sh", "--replay", "r.json"]).unwrap_or_else(|err| panic!("{err}"));
        assert_eq!(
            replay.command,
            Command::Replay {
                recording: "r.json".into()
            }
        );
        let plain = parse(&["sh", "-c", "true"]).unwrap_or_else(|err| panic!("{err}"));
        assert!(!plain.sandbox.any());
    }

    #[test]
    fn bad_input_gets_a_message_naming_what_is_wrong() {
        for (input, want) in [
            (vec!["fly"], "unrecognized subcommand 'fly'"),
            (vec!["run"], "<PROGRAM.wasm>"),
            (
                vec!["run", "--fuel", "0", "p"],
                "invalid value '0' for '--fuel <N>': needs a positive whole number",
            ),
            (vec!["run", "--dir", "x::rel", "p"], "absolute GUESTDIR"),
            (vec!["run", "--env", "=x", "p"], "needs KEY=VALUE"),
            (vec!["run", "--bogus", "p"], "unexpected argument '--bogus'"),
            (vec!["sh"], "sh needs -c SCRIPT, a FILE, or --replay FILE"),
            (vec!["run", "--quota", "12X", "p"], "positive size"),
            (vec!["run", "--quota", "0", "p"], "positive size"),
            (vec!["run", "--quota", "99999999999G", "p"], "positive size"),
            (
                vec!["run", "--quota"],
                "a value is required for '--quota <SIZE>'",
            ),
            (
                vec!["run", "--caps", "c.json", "p"],
                "unexpected argument '--caps'",
            ),
            (
                vec!["sh", "--record", "a", "--record", "b", "-c", "x"],
                "cannot be used multiple times",
            ),
            (
                vec!["sh", "--tool", "weather", "-c", "x"],
                "needs NAME=COMMAND",
            ),
            (
                vec!["sh", "--replay", "r.json", "-c", "x"],
                "'--replay <FILE>' cannot be used with",
            ),
            (
                vec!["sh", "--replay", "r.json", "--caps", "c"],
                "'--replay <FILE>' cannot be used with",
            ),
        ] {
            let err = parse(&input).expect_err(want);
            assert!(err.contains(want), "{input:?}: {err}");
        }
    }

    #[test]
    fn equals_values_version_and_help() {
        let options = parse(&["run", "--fuel=7", "--quota=2M", "--env=A=b", "p.wasm"])
            .unwrap_or_else(|err| panic!("{err}"));
        assert_eq!(options.fuel, Some(7));
        assert_eq!(options.quota(), 2 << 20);
        assert_eq!(options.env, vec![("A".into(), "b".into())]);
        let version = super::parse(["sandtab", "--version"]).expect_err("--version");
        assert_eq!(version.kind(), clap::error::ErrorKind::DisplayVersion);
        assert_eq!(version.exit_code(), 0);
        assert!(version.to_string().contains(env!("CARGO_PKG_VERSION")));
        for words in [vec!["--help"], vec!["sh", "--help"], vec!["run", "-h"]] {
            let help = parse(&words).expect_err("help");
            assert!(help.contains("Usage: sandtab"), "{words:?}: {help}");
            assert!(help.contains("HOSTDIR::GUESTDIR"), "{words:?}: {help}");
        }
    }
}
