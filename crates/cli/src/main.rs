//! `sandtab`: runs WASI programs and shell scripts in an in-memory sandbox, natively,
//! on the same platform-free crates as the browser runtime.

mod args;
mod host_dirs;
mod platform;
mod sandbox_sh;
mod stdin_stream;

use args::{Command, Options, Script};
use sandtab_shell::{Shell, ShellLimits, Stream, WallClock};
use sandtab_vfs::{Quota, SandboxFs, VfsPath};
use sandtab_wasi::{BoxFuture, GuestEngine, GuestIo, GuestLimits, GuestRun, NativeHost, OutStream};
use std::io::{IsTerminal, Read, Write};
use std::process::ExitCode;
use std::sync::Arc;
use stdin_stream::ScriptStdin;

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let options = match args::parse(std::env::args_os()) {
        Ok(options) => options,
        // `--help` and `--version` (to stdout, 0) or a bad command line (stderr, 2).
        Err(err) => {
            let _ = err.print();
            return ExitCode::from(u8::try_from(err.exit_code()).unwrap_or(2));
        }
    };
    match run(options).await {
        Ok(code) => ExitCode::from(u8::try_from(code & 0xff).unwrap_or(1)),
        Err(err) => {
            eprintln!("sandtab: {err}");
            ExitCode::from(1)
        }
    }
}

/// The exit status when the program's was 0 but the write-back left entries out.
const WRITE_BACK_INCOMPLETE: i32 = 3;

fn guest_limits(options: &Options) -> GuestLimits {
    let mut limits = GuestLimits::default();
    if let Some(fuel) = options.fuel {
        limits.fuel = fuel;
    }
    if let Some(mb) = options.memory_mb {
        limits.memory_bytes = mb.saturating_mul(1 << 20);
    }
    if let Some(ms) = options.deadline_ms {
        limits.deadline_ms = ms;
    }
    limits
}

async fn run(options: Options) -> Result<i32, String> {
    if let Command::Replay { recording } = &options.command {
        return sandbox_sh::replay(&options, recording).await;
    }
    // With a sandbox flag the script runs on the typed runtime, else on the shell
    // directly (which streams this process's stdin to it).
    let sandbox = match options.command {
        Command::Sh { .. } if options.sandbox.any() => Some(sandbox_sh::open(&options).await?),
        _ => None,
    };
    let fs = match &sandbox {
        Some(sandbox) => sandbox.fs().clone(),
        // Files live in this process's memory: the quota bounds what guests can make it
        // hold.
        None => {
            let quota = Quota {
                max_bytes: options.quota(),
                ..Quota::UNLIMITED
            };
            Arc::new(
                SandboxFs::in_memory(
                    Arc::new(WallClock),
                    quota,
                    // A script may run CPython; a program run alone needs no support.
                    match options.command {
                        Command::Sh { .. } => vec![sandtab_shell::python_support::mount()],
                        _ => Vec::new(),
                    },
                )
                .map_err(|err| err.to_string())?,
            )
        }
    };
    let mut copied = Vec::new();
    for map in &options.dirs {
        let copy = host_dirs::copy_in(fs.mem(), map).map_err(|err| quota_hint(err, &options))?;
        copied.push((map, copy));
    }
    let limits = guest_limits(&options);
    limits.validate().map_err(|err| err.to_string())?;
    let code = match (&options.command, &sandbox) {
        (Command::Run { program, args }, _) => {
            run_program(&fs, &options, limits, program, args).await?
        }
        (Command::Sh { script, args }, Some(sandbox)) => {
            sandbox_sh::run_script(sandbox, &options, script, args).await?
        }
        (Command::Sh { script, args }, None) => {
            run_script(&fs, &options, limits, script, args).await?
        }
        (Command::Replay { .. }, _) => 0,
    };
    // Every mapping is written back, whatever was refused in another.
    let mut left_out = 0;
    for (map, before) in &copied {
        let problems = host_dirs::write_back(fs.mem(), map, before).unwrap_or_else(|err| vec![err]);
        for problem in problems {
            eprintln!("sandtab: write-back: {problem}");
            left_out += 1;
        }
    }
    if left_out > 0 && code == 0 {
        return Ok(WRITE_BACK_INCOMPLETE);
    }
    Ok(code)
}

async fn run_program(
    fs: &Arc<SandboxFs>,
    options: &Options,
    limits: GuestLimits,
    program: &std::path::Path,
    args: &[String],
) -> Result<i32, String> {
    let bytes = std::fs::read(program).map_err(|err| format!("{}: {err}", program.display()))?;
    let engine = GuestEngine::new(limits.call_depth);
    let module = match engine.compile(&bytes, None) {
        Ok(module) => module,
        Err(err) => {
            eprintln!("sandtab: {}: {err}", program.display());
            return Ok(err.exit_status());
        }
    };
    let cwd = options
        .dirs
        .first()
        .and_then(|map| VfsPath::parse(&map.guest).ok())
        .unwrap_or_else(VfsPath::root);
    let mut argv = vec![program.display().to_string()];
    argv.extend(args.iter().cloned());
    let run = GuestRun {
        args: argv,
        env: options.env.clone(),
        preopens: GuestRun::default_preopens(fs, &cwd),
        fs: fs.clone(),
        limits,
        clock: sandtab_wasi::ClockMode::Real,
        random: sandtab_wasi::RandomMode::Real,
        platform: Arc::new(NativeHost::default()),
        observed: None,
        stdin_terminal: false,
    };
    let outcome = sandtab_wasi::run(&engine, &module, run, &mut ProcessIo).await;
    Ok(outcome.exit_code)
}

async fn run_script(
    fs: &Arc<SandboxFs>,
    options: &Options,
    limits: GuestLimits,
    script: &Script,
    args: &[String],
) -> Result<i32, String> {
    let text = match script {
        Script::Inline(text) => text.clone(),
        Script::File(path) => {
            std::fs::read_to_string(path).map_err(|err| format!("{}: {err}", path.display()))?
        }
    };
    let mut shell_limits = ShellLimits {
        // A script run from the command line may take as long as it takes.
        timeout: std::time::Duration::from_secs(24 * 3600),
        ..ShellLimits::default()
    };
    shell_limits.guest = limits;
    // Output goes to the process's own streams: nothing is kept, nothing is dropped.
    shell_limits.max_output_bytes = 1 << 20;
    shell_limits.max_written_bytes = usize::MAX / 2;
    let mut shell = Shell::new(fs.clone(), shell_limits).map_err(|err| err.to_string())?;
    // Positional parameters and the environment, as `bash -c SCRIPT ARGS...` sets them.
    let mut prelude = String::new();
    for (key, value) in &options.env {
        prelude.push_str(&format!("export {key}={}\n", quote(value)));
    }
    if !args.is_empty() {
        let quoted: Vec<String> = args.iter().map(|arg| quote(arg)).collect();
        prelude.push_str(&format!("set -- {}\n", quoted.join(" ")));
    }
    if !prelude.is_empty() {
        let setup = shell.exec(&prelude).await;
        if setup.exit_code != 0 {
            return Err(format!(
                "setting up the script's environment: {}",
                setup.stderr_text()
            ));
        }
    }
    let mut forward = |stream: Stream, bytes: &[u8]| {
        // A closed pipe (`| head`) ends the output, not the script.
        let _ = match stream {
            Stream::Stdout => std::io::stdout()
                .write_all(bytes)
                .and_then(|()| std::io::stdout().flush()),
            Stream::Stderr => std::io::stderr().write_all(bytes),
        };
    };
    let stdin = if std::io::stdin().is_terminal() {
        None
    } else {
        Some(stdin_stream::open().await?)
    };
    let outcome = match stdin {
        None => shell.exec_with_stdin(&text, None, &mut forward).await,
        Some(ScriptStdin::Whole(bytes)) => {
            shell
                .exec_with_stdin(&text, Some(bytes), &mut forward)
                .await
        }
        // `yes | sandtab sh -c 'head -n1'` ends, with bounded memory.
        Some(ScriptStdin::Streamed(source)) => {
            shell
                .exec_with_stdin_stream(&text, Arc::new(source), &mut forward)
                .await
        }
    };
    Ok(outcome.exit_code)
}

/// A copy-in refused for the quota says how to raise it.
fn quota_hint(err: String, options: &Options) -> String {
    if err.contains("EDQUOT") || err.contains("Disk quota exceeded") {
        format!(
            "{err} (the sandbox's files may hold {} bytes: raise it with --quota)",
            options.quota()
        )
    } else {
        err
    }
}

/// `value` as one shell word.
fn quote(value: &str) -> String {
    format!("'{}'", value.replace('\'', "'\\''"))
}

/// A guest's standard streams are the process's own.
struct ProcessIo;

impl GuestIo for ProcessIo {
    fn read_stdin(&mut self) -> BoxFuture<'_, Result<Option<Vec<u8>>, String>> {
        Box::pin(async {
            let mut buf = vec![0u8; 64 * 1024];
            let n = std::io::stdin()
                .read(&mut buf)
                .map_err(|err| err.to_string())?;
            buf.truncate(n);
            Ok((n > 0).then_some(buf))
        })
    }

    fn write(&mut self, stream: OutStream, bytes: Vec<u8>) -> BoxFuture<'_, Result<(), String>> {
        Box::pin(async move {
            let result = match stream {
                OutStream::Stdout => {
                    let mut out = std::io::stdout().lock();
                    out.write_all(&bytes).and_then(|()| out.flush())
                }
                OutStream::Stderr => std::io::stderr().write_all(&bytes),
            };
            result.map_err(|err| err.to_string())
        })
    }

    fn yield_now(&mut self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }

    fn sleep(&mut self, nanos: u64) -> BoxFuture<'_, ()> {
        std::thread::sleep(std::time::Duration::from_nanos(nanos));
        Box::pin(async {})
    }

    fn cancelled(&self) -> bool {
        false
    }
}
