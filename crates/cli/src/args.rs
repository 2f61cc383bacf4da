//! The command line, parsed by hand: two subcommands and a few options.

use std::path::PathBuf;

pub const USAGE: &str = "\
usage: sandtab run [OPTIONS] PROGRAM.wasm [ARGS...]
       sandtab sh [OPTIONS] (-c SCRIPT | FILE) [ARGS...]
       sandtab sh --replay RECORDING.json

Runs a WASI program, or a shell script, in an in-memory sandbox. Host directories
given with --dir are copied in, and the guest's changes are written back on exit.

options:
  --dir HOSTDIR::GUESTDIR   copy HOSTDIR to GUESTDIR in the sandbox (repeatable);
                            HOSTDIR alone maps it to the same absolute path
  --dir HOSTDIR::GUESTDIR:ro
                            copy HOSTDIR in read-only: the guest gets EROFS on any
                            change below GUESTDIR, and nothing is written back
                            (`:rw`, the default, may be written too)
  --env KEY=VALUE           set an environment variable (repeatable)
  --fuel N                  wasmi fuel of each guest (default 10^15)
  --memory-mb N             linear memory each guest may grow to (default 1024)
  --deadline-ms N           wall-clock limit of each guest (default 600000)
  --quota BYTES             bytes all files in the sandbox may hold together (the
                            copied-in --dir trees included), with an optional K, M
                            or G suffix (powers of 1024), or `unlimited`; default 1G.
                            Files live in this process's memory: a guest growing
                            files past it (write, ftruncate, fd_allocate) gets EDQUOT
  -h, --help                this text

sandbox options (sh only; with any of them the script runs on sandtab's typed runtime,
the sandbox the browser tab and Node run, and its stdin is empty):
  --caps FILE               the capability document (JSON, as a tab's `capabilities`):
                            granted tools, limits, filesystem; no network here
  --tool NAME=COMMAND       answer the granted tool NAME with a host command (repeatable):
                            COMMAND is split on spaces into a program and its arguments
                            (no shell), run with the call's JSON arguments on stdin; its
                            stdout is the JSON answer; a non-zero exit fails the call
                            (CAP_TOOL_FAILED, with its stderr). The capability document
                            still decides which calls are allowed
  --record FILE             record every operation; write the recording (JSON) to FILE
                            when the script ends
  --replay FILE             replay a recording in a new sandbox, print the report (JSON);
                            the exit status is 0 if it matched, 1 if not
  --resume FILE             start from a hand-off (JSON: a tab's, Node's or --handoff's):
                            its files, sessions (cwd, variables, functions) and options
                            (limits, quota, capabilities; those given here win)
  --handoff FILE            after the script, write the sandbox as a hand-off to FILE, for
                            a tab, Node or --resume to carry on from

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
3 when the program's was 0 but the write-back refused or failed on some entry.";

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
    Help,
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

/// Parses `args` (without the program name). Errors are one line for the user.
pub fn parse(args: &[String]) -> Result<Options, String> {
    let mut args = args.iter();
    let mut dirs = Vec::new();
    let mut env = Vec::new();
    let (mut fuel, mut memory_mb, mut deadline_ms) = (None, None, None);
    let mut quota_bytes = None;
    let mut sandbox = SandboxFlags::default();
    let mut replay = None;
    let subcommand = match args.next().map(String::as_str) {
        None | Some("-h" | "--help" | "help") => {
            return Ok(Options {
                command: Command::Help,
                dirs,
                env,
                fuel,
                memory_mb,
                deadline_ms,
                quota_bytes,
                sandbox,
            });
        }
        Some(name @ ("run" | "sh")) => name.to_owned(),
        Some(other) => {
            return Err(format!(
                "unknown command `{other}` (expected `run` or `sh`)"
            ));
        }
    };
    let number = |option: &str, value: Option<&String>| -> Result<u64, String> {
        let value = value.ok_or_else(|| format!("{option} needs a value"))?;
        value
            .parse::<u64>()
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| format!("{option} needs a positive whole number, got `{value}`"))
    };
    let mut inline = None;
    let mut rest = Vec::new();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--dir" => dirs.push(dir_map(
                args.next().ok_or("--dir needs HOSTDIR::GUESTDIR")?,
            )?),
            "--env" => {
                let pair = args.next().ok_or("--env needs KEY=VALUE")?;
                let (key, value) = pair
                    .split_once('=')
                    .filter(|(key, _)| !key.is_empty())
                    .ok_or_else(|| format!("--env needs KEY=VALUE, got `{pair}`"))?;
                env.push((key.to_owned(), value.to_owned()));
            }
            "--fuel" => fuel = Some(number("--fuel", args.next())?),
            "--memory-mb" => memory_mb = Some(number("--memory-mb", args.next())?),
            "--deadline-ms" => deadline_ms = Some(number("--deadline-ms", args.next())?),
            "--quota" => quota_bytes = Some(parse_quota(args.next())?),
            flag @ ("--caps" | "--record" | "--replay" | "--resume" | "--handoff") => {
                if subcommand != "sh" {
                    return Err(format!("{flag} is an option of `sandtab sh`"));
                }
                let file =
                    PathBuf::from(args.next().ok_or_else(|| format!("{flag} needs a FILE"))?);
                let slot = match flag {
                    "--caps" => &mut sandbox.caps,
                    "--record" => &mut sandbox.record,
                    "--replay" => &mut replay,
                    "--resume" => &mut sandbox.resume,
                    _ => &mut sandbox.handoff,
                };
                if slot.replace(file).is_some() {
                    return Err(format!("{flag} is given twice"));
                }
            }
            "--tool" => {
                if subcommand != "sh" {
                    return Err("--tool is an option of `sandtab sh`".into());
                }
                sandbox.tools.push(tool_command(
                    args.next().ok_or("--tool needs NAME=COMMAND")?,
                )?);
            }
            "-c" if subcommand == "sh" => {
                inline = Some(args.next().ok_or("-c needs a script")?.clone());
                rest.extend(args.by_ref().cloned());
            }
            "-h" | "--help" => {
                return Ok(Options {
                    command: Command::Help,
                    dirs,
                    env,
                    fuel,
                    memory_mb,
                    deadline_ms,
                    quota_bytes,
                    sandbox,
                });
            }
            "--" => rest.extend(args.by_ref().cloned()),
            option if option.starts_with("--") => return Err(format!("unknown option `{option}`")),
            _ => {
                rest.push(arg.clone());
                rest.extend(args.by_ref().cloned());
            }
        }
    }
    let command = if let Some(recording) = replay {
        if inline.is_some() || !rest.is_empty() {
            return Err("--replay runs the recording's own operations: give no script".into());
        }
        if sandbox.any() || !dirs.is_empty() || !env.is_empty() {
            return Err(
                "--replay takes no other sandbox options (the recording holds its own)".into(),
            );
        }
        Command::Replay { recording }
    } else if subcommand == "run" {
        let mut rest = rest.into_iter();
        let program = rest.next().ok_or("run needs a PROGRAM.wasm")?;
        Command::Run {
            program: program.into(),
            args: rest.collect(),
        }
    } else if let Some(script) = inline {
        Command::Sh {
            script: Script::Inline(script),
            args: rest,
        }
    } else {
        let mut rest = rest.into_iter();
        let file = rest.next().ok_or("sh needs -c SCRIPT or a FILE")?;
        Command::Sh {
            script: Script::File(file.into()),
            args: rest.collect(),
        }
    };
    Ok(Options {
        command,
        dirs,
        env,
        fuel,
        memory_mb,
        deadline_ms,
        quota_bytes,
        sandbox,
    })
}

fn tool_command(value: &str) -> Result<ToolCommand, String> {
    let (name, command) = value
        .split_once('=')
        .filter(|(name, command)| !name.is_empty() && !command.trim().is_empty())
        .ok_or_else(|| format!("--tool needs NAME=COMMAND, got `{value}`"))?;
    Ok(ToolCommand {
        name: name.to_owned(),
        argv: command.split_whitespace().map(str::to_owned).collect(),
    })
}

/// `--quota`'s value: bytes with an optional K/M/G suffix (powers of 1024), or
/// `unlimited`.
fn parse_quota(value: Option<&String>) -> Result<u64, String> {
    let value = value.ok_or("--quota needs a size (like 512M) or `unlimited`")?;
    if value == "unlimited" {
        return Ok(u64::MAX);
    }
    let (digits, shift) = match value.char_indices().last() {
        Some((at, 'k' | 'K')) => (&value[..at], 10),
        Some((at, 'm' | 'M')) => (&value[..at], 20),
        Some((at, 'g' | 'G')) => (&value[..at], 30),
        _ => (value.as_str(), 0),
    };
    digits
        .parse::<u64>()
        .ok()
        .filter(|n| *n > 0)
        .and_then(|n| n.checked_mul(1 << shift))
        .ok_or_else(|| {
            format!(
                "--quota needs a positive size like 4096, 512M or 2G, or `unlimited`; got `{value}`"
            )
        })
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
        return Err(format!(
            "--dir needs HOSTDIR::GUESTDIR with an absolute GUESTDIR, got `{value}`"
        ));
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

    #[test]
    fn run_with_options_and_program_arguments() {
        let options = parse(&args(&[
            "run", "--dir", "/h::/g", "--env", "A=b=c", "--fuel", "10", "p.wasm", "--x", "y",
        ]))
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
            let options = parse(&args(&["run", "--quota", value, "p.wasm"]))
                .unwrap_or_else(|err| panic!("{err}"));
            assert_eq!(options.quota(), bytes, "{value}");
        }
        let options = parse(&args(&["run", "p.wasm"])).unwrap_or_else(|err| panic!("{err}"));
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
            let options = parse(&args(&["sh", "--dir", value, "-c", "true"]))
                .unwrap_or_else(|err| panic!("{err}"));
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
        let inline =
            parse(&args(&["sh", "-c", "echo $1", "a"])).unwrap_or_else(|err| panic!("{err}"));
        assert_eq!(
            inline.command,
            Command::Sh {
                script: Script::Inline("echo $1".into()),
                args: args(&["a"])
            }
        );
        let file = parse(&args(&["sh", "s.sh", "x"])).unwrap_or_else(|err| panic!("{err}"));
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
        let options = parse(&args(&[
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
        ]))
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
        let replay =
            parse(&args(&["sh", "--replay", "r.json"])).unwrap_or_else(|err| panic!("{err}"));
        assert_eq!(
            replay.command,
            Command::Replay {
                recording: "r.json".into()
            }
        );
        let plain = parse(&args(&["sh", "-c", "true"])).unwrap_or_else(|err| panic!("{err}"));
        assert!(!plain.sandbox.any());
    }

    #[test]
    fn bad_input_is_one_clear_line() {
        for (input, want) in [
            (vec!["fly"], "unknown command"),
            (vec!["run"], "needs a PROGRAM"),
            (vec!["run", "--fuel", "0", "p"], "positive whole number"),
            (vec!["run", "--dir", "x::rel", "p"], "absolute GUESTDIR"),
            (vec!["run", "--env", "=x", "p"], "KEY=VALUE"),
            (vec!["run", "--bogus", "p"], "unknown option"),
            (vec!["sh"], "-c SCRIPT or a FILE"),
            (vec!["run", "--quota", "12X", "p"], "positive size"),
            (vec!["run", "--quota", "0", "p"], "positive size"),
            (vec!["run", "--quota", "99999999999G", "p"], "positive size"),
            (vec!["run", "--quota"], "needs a size"),
            (
                vec!["run", "--caps", "c.json", "p"],
                "option of `sandtab sh`",
            ),
            (
                vec!["sh", "--record", "a", "--record", "b", "-c", "x"],
                "given twice",
            ),
            (vec!["sh", "--tool", "weather", "-c", "x"], "NAME=COMMAND"),
            (
                vec!["sh", "--replay", "r.json", "-c", "x"],
                "give no script",
            ),
            (
                vec!["sh", "--replay", "r.json", "--caps", "c"],
                "no other sandbox",
            ),
        ] {
            let err = parse(&args(&input)).expect_err(want);
            assert!(err.contains(want), "{input:?}: {err}");
        }
    }
}
