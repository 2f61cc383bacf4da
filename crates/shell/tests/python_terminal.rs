//! CPython in a terminal: Ctrl-C typed while it waits for a line raises
//! `KeyboardInterrupt` (the REPL, `input()`, `sys.stdin`), through
//! `/dev/sandtab/interrupts` and sandtab's `_sandtab_terminal`. Uses the CPython built
//! by `./dev setup` (target/guests).
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

use sandtab_shell::{
    BoxFuture, ExecOutcome, Shell, ShellLimits, StdinRead, StdinSource, WallClock,
};
use sandtab_vfs::{Quota, SandboxFs};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

fn python() -> Vec<u8> {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/guests/python.wasm");
    std::fs::read(&path)
        .unwrap_or_else(|err| panic!("{}: {err}. Built by `./dev setup`.", path.display()))
}

/// A shell with CPython installed and sandtab's Python support mounted.
fn python_shell() -> Shell {
    let fs = Arc::new(
        SandboxFs::in_memory(
            Arc::new(WallClock),
            Quota::UNLIMITED,
            vec![sandtab_shell::python_support::mount()],
        )
        .unwrap(),
    );
    let mut shell = Shell::new(fs, ShellLimits::default()).unwrap();
    shell.install_program(&["python3"], Arc::new(python()), None);
    shell
}

/// What a person does at the terminal, in order.
enum Key {
    Line(&'static str),
    CtrlC,
}
use Key::*;

/// A terminal typed into: each read takes the next key; Ctrl-C interrupts a reader
/// that takes interrupts, and ends the input of one that does not (as a cancel would).
struct Terminal {
    keys: Mutex<VecDeque<Key>>,
    /// Reads that asked for interrupts.
    interruptible_reads: Mutex<usize>,
}

impl Terminal {
    fn typing(keys: Vec<Key>) -> Arc<Self> {
        Arc::new(Self {
            keys: Mutex::new(keys.into()),
            interruptible_reads: Mutex::new(0),
        })
    }
}

impl StdinSource for Terminal {
    fn read_chunk(&self) -> BoxFuture<'_, Result<Option<Vec<u8>>, String>> {
        let next = self.keys.lock().unwrap().pop_front();
        Box::pin(async move {
            Ok(match next {
                Some(Line(line)) => Some(line.as_bytes().to_vec()),
                Some(CtrlC) | None => None,
            })
        })
    }

    fn read_interruptible(&self) -> BoxFuture<'_, Result<StdinRead, String>> {
        *self.interruptible_reads.lock().unwrap() += 1;
        let next = self.keys.lock().unwrap().pop_front();
        Box::pin(async move {
            Ok(match next {
                Some(Line(line)) => StdinRead::Chunk(line.as_bytes().to_vec()),
                Some(CtrlC) => StdinRead::Interrupt,
                None => StdinRead::End,
            })
        })
    }
}

async fn in_terminal(shell: &mut Shell, script: &str, keys: Vec<Key>) -> ExecOutcome {
    shell
        .exec_in_terminal(script, Terminal::typing(keys), 1 << 20, &mut |_, _| {})
        .await
}

#[tokio::test]
async fn ctrl_c_at_the_repl_prompt_raises_keyboard_interrupt_and_the_repl_goes_on() {
    let mut shell = python_shell();
    let out = in_terminal(
        &mut shell,
        "python3",
        vec![
            Line("x = 6\n"),
            Line("for i in range(3):\n"),
            CtrlC,
            Line("print(x * 7)\n"),
            Line("import sys; print(sys.stdin.isatty(), _ if False else 'ok')\n"),
        ],
    )
    .await;
    let stderr = out.stderr_text();
    assert_eq!(out.stdout_text(), "42\nTrue ok\n", "{stderr}");
    assert!(stderr.starts_with("Python 3.12"), "{stderr}");
    assert!(
        stderr.contains(">>> >>> ... \nKeyboardInterrupt\n>>> "),
        "{stderr}"
    );
    assert_eq!(out.exit_code, 0, "{stderr}");

    // `exit(3)` leaves with its status, after the program's atexit functions.
    let out = in_terminal(
        &mut shell,
        "python3",
        vec![
            Line("import atexit; _ = atexit.register(print, 'bye')\n"),
            Line("exit(3)\n"),
            Line("print('not run')\n"),
        ],
    )
    .await;
    assert_eq!(out.stdout_text(), "bye\n", "{}", out.stderr_text());
    assert_eq!(out.exit_code, 3);
}

#[tokio::test]
async fn ctrl_c_during_input_raises_keyboard_interrupt_where_it_waits() {
    let mut shell = python_shell();
    let script = "python3 -c \"
try:
    input('name? ')
except KeyboardInterrupt:
    print('caught')
print(input('again? ').upper())
\"";
    let out = in_terminal(&mut shell, script, vec![CtrlC, Line("yes\n")]).await;
    assert_eq!(
        out.stdout_text(),
        "name? caught\nagain? YES\n",
        "{}",
        out.stderr_text()
    );
    assert_eq!(out.exit_code, 0);

    // Not caught: the traceback, and status 130 as for a program SIGINT ended.
    let out = in_terminal(
        &mut shell,
        "python3 -c 'import sys; sys.stdin.readline()'",
        vec![CtrlC],
    )
    .await;
    let stderr = out.stderr_text();
    assert!(stderr.ends_with("KeyboardInterrupt\n"), "{stderr}");
    assert_eq!(out.exit_code, 130, "{stderr}");

    // A handler the program set runs instead, and the read goes on.
    let script = "python3 -c \"
import signal
signal.signal(signal.SIGINT, lambda *_: print('handled'))
print(input())
\"";
    let out = in_terminal(&mut shell, script, vec![CtrlC, Line("after\n")]).await;
    assert_eq!(
        out.stdout_text(),
        "handled\nafter\n",
        "{}",
        out.stderr_text()
    );
}

#[tokio::test]
async fn only_a_program_reading_the_terminal_takes_interrupts() {
    let mut shell = python_shell();
    let terminal = Terminal::typing(vec![]);
    let out = shell
        .exec_in_terminal(
            "echo piped | python3 -c 'import sys; print(sys.stdin.read().strip(), type(sys.stdin.buffer.raw).__name__)'",
            terminal.clone(),
            1 << 20,
            &mut |_, _| {},
        )
        .await;
    assert_eq!(out.stdout_text(), "piped FileIO\n", "{}", out.stderr_text());
    assert_eq!(*terminal.interruptible_reads.lock().unwrap(), 0);

    // Outside a terminal, the device answers `off`.
    let out = shell
        .exec("python3 -c 'import os; fd = os.open(\"/dev/sandtab/interrupts\", os.O_RDWR); os.write(fd, b\"on\"); print(os.read(fd, 9))'")
        .await;
    assert_eq!(out.stdout_text(), "b'off\\n'\n", "{}", out.stderr_text());
}
