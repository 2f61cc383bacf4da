//! Guest programs as shell commands: by path, from PATH, installed by name, in
//! pipelines, under limits. Uses the guests built by `./dev setup` (target/guests).
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

use sandtab_shell::{Shell, ShellLimits, WallClock};
use sandtab_vfs::{Quota, SandboxFs, VfsPath};
use std::sync::Arc;

fn guest(relative: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../target/guests")
        .join(relative);
    std::fs::read(&path).unwrap_or_else(|err| {
        panic!(
            "{}: {err}. Test guests are built by `./dev setup`.",
            path.display()
        )
    })
}

fn shell_with(files: &[(&str, Vec<u8>, u32)], limits: ShellLimits) -> Shell {
    let fs =
        Arc::new(SandboxFs::in_memory(Arc::new(WallClock), Quota::UNLIMITED, Vec::new()).unwrap());
    for (path, bytes, mode) in files {
        let path = VfsPath::parse(path).unwrap();
        fs.mem().create_dir_all(&path.parent().unwrap()).unwrap();
        fs.mem().write(&path, bytes).unwrap();
        fs.mem().set_mode(&path, *mode).unwrap();
    }
    Shell::new(fs, limits).unwrap()
}

#[tokio::test]
async fn a_wasm_file_runs_by_path_with_its_arguments_and_exit_status() {
    let mut shell = shell_with(
        &[("/home/agent/hello.wasm", guest("c/hello.wasm"), 0o644)],
        ShellLimits::default(),
    );
    let out = shell
        .exec("GREETING=hi ./hello.wasm 7 'two words'; echo status=$?")
        .await;
    assert_eq!(
        out.stdout_text(),
        "argv[0]=./hello.wasm\nargv[1]=7\nargv[2]=two words\nGREETING=hi\nstatus=7\n",
        "{}",
        out.stderr_text()
    );
    // From another directory, by a relative path with `..` and by an absolute one.
    let out = shell
        .exec("mkdir -p sub && cd sub && ../hello.wasm 3; echo $?; /home/agent/hello.wasm; echo $?")
        .await;
    assert_eq!(
        out.stdout_text(),
        "argv[0]=../hello.wasm\nargv[1]=3\nGREETING unset\n3\nargv[0]=/home/agent/hello.wasm\nGREETING unset\n0\n",
        "{}",
        out.stderr_text()
    );
}

#[tokio::test]
async fn an_executable_module_without_suffix_runs_by_path_and_from_path() {
    let mut shell = shell_with(
        &[("/usr/local/bin/upper", guest("c/stdin_upper.wasm"), 0o755)],
        ShellLimits::default(),
    );
    let out = shell
        .exec("echo abc | /usr/local/bin/upper; echo def | upper")
        .await;
    assert_eq!(out.stdout_text(), "ABC\nDEF\n", "{}", out.stderr_text());
    assert_eq!(out.exit_code, 0);
}

#[tokio::test]
async fn the_next_exec_finds_modules_from_the_cwd_and_path_the_last_one_left() {
    let mut shell = shell_with(
        &[
            ("/home/agent/upper", guest("c/stdin_upper.wasm"), 0o755),
            ("/opt/tools/shout", guest("c/stdin_upper.wasm"), 0o755),
        ],
        ShellLimits::default(),
    );
    let out = shell
        .exec("mkdir -p sub && cd sub && export PATH=/opt/tools:$PATH")
        .await;
    assert_eq!(out.exit_code, 0, "{}", out.stderr_text());
    let out = shell.exec("echo abc | ../upper; echo def | shout").await;
    assert_eq!(out.stdout_text(), "ABC\nDEF\n", "{}", out.stderr_text());
    // A directory put on PATH only now, and a module put into it by the same exec:
    // found from the next exec on.
    let out = shell
        .exec(
            "cd / && mkdir -p /opt/new && cp /opt/tools/shout /opt/new/yell && PATH=/opt/new:$PATH",
        )
        .await;
    assert_eq!(out.exit_code, 0, "{}", out.stderr_text());
    let out = shell
        .exec("echo ghi | yell; echo jkl | home/agent/upper")
        .await;
    assert_eq!(out.stdout_text(), "GHI\nJKL\n", "{}", out.stderr_text());
}

#[tokio::test]
async fn guests_stream_through_pipelines() {
    let mut shell = shell_with(
        &[("/home/agent/upper.wasm", guest("c/stdin_upper.wasm"), 0o755)],
        ShellLimits::default(),
    );
    let out = shell
        .exec("seq 1 20000 > data; cat data | ./upper.wasm 2>/dev/null | wc -l; seq 3 | ./upper.wasm | ./upper.wasm 2>/dev/null | tail -1")
        .await;
    assert_eq!(out.stdout_text(), "20000\n3\n", "{}", out.stderr_text());
}

#[tokio::test]
async fn a_missing_or_bad_module_gives_bash_statuses() {
    let mut shell = shell_with(
        &[(
            "/home/agent/bad.wasm",
            b"\0asm\x01\0\0\0\x05junk".to_vec(),
            0o755,
        )],
        ShellLimits::default(),
    );
    let out = shell
        .exec("./missing.wasm; echo $?; ./bad.wasm; echo $?")
        .await;
    assert_eq!(out.stdout_text(), "127\n126\n");
    assert!(
        out.stderr_text()
            .contains("missing.wasm: No such file or directory"),
        "{}",
        out.stderr_text()
    );
    assert!(
        out.stderr_text().contains("not a valid WebAssembly module"),
        "{}",
        out.stderr_text()
    );
}

#[tokio::test]
async fn a_guest_limit_gives_137_and_the_session_stays_usable() {
    let mut limits = ShellLimits::default();
    limits.guest.fuel = 50_000_000;
    let mut shell = shell_with(
        &[("/home/agent/t.wasm", guest("c/exit_trap.wasm"), 0o755)],
        limits,
    );
    let out = shell.exec("./t.wasm loop; echo status=$?").await;
    assert_eq!(out.stdout_text(), "status=137\n");
    assert!(
        out.stderr_text()
            .contains("fuel limit of 50000000 instructions reached [fuel]"),
        "{}",
        out.stderr_text()
    );
    let out = shell.exec("./t.wasm exit 4; echo status=$?").await;
    assert_eq!(out.stdout_text(), "exit 4\nstatus=4\n");
    // A per-command override from the host.
    let mut more = shell.limits().guest;
    more.fuel = 10_000;
    shell.set_guest_limits(more).unwrap();
    let out = shell.exec("./t.wasm exit 4; echo status=$?").await;
    assert_eq!(out.stdout_text(), "status=137\n");
}

#[tokio::test]
async fn python_and_quickjs_run_as_installed_commands() {
    let mut shell = shell_with(&[], ShellLimits::default());
    shell.install_program(&["python3", "python"], Arc::new(guest("python.wasm")), None);
    shell.install_program(&["qjs"], Arc::new(guest("quickjs.wasm")), None);
    let out = shell
        .exec(r#"python3 -c 'import json; print(json.dumps({"a": [1, 2]}))'; qjs -e 'console.log(6*7)'"#)
        .await;
    assert_eq!(
        out.stdout_text(),
        "{\"a\": [1, 2]}\n42\n",
        "{}",
        out.stderr_text()
    );

    let script = "mkdir -p /work/pkg && cd /work && printf 'def f():\\n    return 41\\n' > pkg/mod.py \
        && printf 'import sys\\nsys.path.insert(0, \"pkg\")\\nimport mod\\nopen(\"out.txt\", \"w\").write(str(mod.f() + 1))\\nprint(open(\"in.txt\").read().strip())\\n' > main.py \
        && echo from-file > in.txt && python main.py && cat out.txt";
    let out = shell.exec(script).await;
    assert_eq!(out.stdout_text(), "from-file\n42", "{}", out.stderr_text());
    // Absolute and relative paths both mean what they say, whatever the directory.
    let out = shell
        .exec("echo home > /home/agent/h.txt && cd /work/pkg && python3 -c \"print(open('/home/agent/h.txt').read().strip(), open('mod.py').readline().strip(), open('../in.txt').read().strip())\"")
        .await;
    assert_eq!(
        out.stdout_text(),
        "home def f(): from-file\n",
        "{}",
        out.stderr_text()
    );
    let out = shell.exec("echo piped | python3 -c 'import sys; print(sys.stdin.read().upper(), end=\"\")' | wc -c").await;
    assert_eq!(out.stdout_text().trim(), "6", "{}", out.stderr_text());
    let out = shell
        .exec("python3 -c 'import sys; sys.exit(3)'; echo $?")
        .await;
    assert_eq!(out.stdout_text(), "3\n");
}

/// `which`, `type`, `command -v` and `hash` agree on installed programs (shown as
/// `/usr/bin/NAME`), `.wasm` files on `PATH` and builtins, as in bash; and the path
/// they print runs the program. Nothing is written to the sandbox's files for it.
#[tokio::test]
async fn installed_programs_are_found_like_files_on_path() {
    let mut shell = shell_with(&[], ShellLimits::default());
    shell.install_program(&["upper"], Arc::new(guest("c/stdin_upper.wasm")), None);
    let out = shell
        .exec(
            "which upper; type upper; type -t upper; command -v upper; hash upper && hash -t upper",
        )
        .await;
    assert_eq!(
        out.stdout_text(),
        "/usr/bin/upper\nupper is /usr/bin/upper\nfile\n/usr/bin/upper\n/usr/bin/upper\n",
        "{}",
        out.stderr_text()
    );
    let out = shell
        .exec(
            "echo hi | /usr/bin/upper && echo hi | /bin/upper && echo hi | \"$(command -v upper)\"",
        )
        .await;
    assert_eq!(out.stdout_text(), "HI\nHI\nHI\n", "{}", out.stderr_text());
    assert!(
        !shell
            .fs()
            .mem()
            .exists(&VfsPath::parse("/usr/bin/upper").unwrap())
    );

    // A module file on PATH, and a builtin.
    shell.exec("mkdir -p /usr/local/bin").await;
    shell
        .fs()
        .mem()
        .write(
            &VfsPath::parse("/usr/local/bin/hello").unwrap(),
            &guest("c/hello.wasm"),
        )
        .unwrap();
    let out = shell
        .exec("chmod +x /usr/local/bin/hello; which hello; type hello; command -v hello; type -t cd; command -v cd; which cd || echo no-which-cd")
        .await;
    assert_eq!(
        out.stdout_text(),
        "/usr/local/bin/hello\nhello is /usr/local/bin/hello\n/usr/local/bin/hello\nbuiltin\ncd\nno-which-cd\n",
        "{}",
        out.stderr_text()
    );

    // A real file of that name wins over the shown program.
    shell
        .exec("mkdir -p /usr/bin && printf '#!/bin/sh\\necho mine\\n' > /usr/bin/upper && chmod +x /usr/bin/upper")
        .await;
    let out = shell.exec("/usr/bin/upper && head -1 /usr/bin/upper").await;
    assert_eq!(
        out.stdout_text(),
        "mine\n#!/bin/sh\n",
        "{}",
        out.stderr_text()
    );
}

/// Typed input, as a terminal gives it: chunks, then the end (Ctrl-D).
struct Typed(std::sync::Mutex<std::collections::VecDeque<Vec<u8>>>);

impl sandtab_shell::StdinSource for Typed {
    fn read_chunk(&self) -> sandtab_shell::BoxFuture<'_, Result<Option<Vec<u8>>, String>> {
        let next = self.0.lock().unwrap().pop_front();
        Box::pin(async move { Ok(next) })
    }
}

fn typed(lines: &[&str]) -> Arc<Typed> {
    Arc::new(Typed(std::sync::Mutex::new(
        lines.iter().map(|line| line.as_bytes().to_vec()).collect(),
    )))
}

/// In a terminal, a program whose stdin is the exec's own reads what is typed and sees
/// a terminal (CPython's prompt and `input()`); one fed by a pipe does not; the shell's
/// own commands (a function, `read`) do not wait for the terminal.
#[tokio::test]
async fn programs_in_a_terminal_read_what_is_typed_and_see_a_terminal() {
    let mut shell = shell_with(&[], ShellLimits::default());
    shell.install_program(&["python3"], Arc::new(guest("python.wasm")), None);
    let mut out = Vec::new();
    let mut err = Vec::new();
    let mut sink = |stream: sandtab_shell::Stream, bytes: &[u8]| match stream {
        sandtab_shell::Stream::Stdout => out.extend_from_slice(bytes),
        sandtab_shell::Stream::Stderr => err.extend_from_slice(bytes),
    };
    let script = "python3 -c \"import sys; print(sys.stdin.isatty()); print(input('word? ')[::-1])\"; \
        echo piped | python3 -c \"import sys; print(sys.stdin.isatty(), sys.stdin.read().strip())\"; \
        f() { echo in-f; }; f; read x; echo \"read=[$x]\"";
    let outcome = shell
        .exec_in_terminal(script, typed(&["stressed\n"]), 1 << 20, &mut sink)
        .await;
    assert_eq!(
        String::from_utf8_lossy(&out),
        "True\nword? desserts\nFalse piped\nin-f\nread=[]\n",
        "{}",
        String::from_utf8_lossy(&err)
    );
    assert_eq!(outcome.exit_code, 0);

    // A bare `python3` is the interactive interpreter: prompts, a block, Ctrl-D to leave.
    let outcome = shell
        .exec_in_terminal(
            "python3",
            typed(&[
                "x = 6\n",
                "for i in range(2):\n",
                "    print(x * 7 + i)\n",
                "\n",
            ]),
            1 << 20,
            &mut |_, _| {},
        )
        .await;
    assert_eq!(
        outcome.stdout_text(),
        "42\n43\n",
        "{}",
        outcome.stderr_text()
    );
    let stderr = outcome.stderr_text();
    assert!(stderr.starts_with("Python 3.12"), "{stderr}");
    assert!(stderr.contains(">>> >>> ... ... >>> "), "{stderr}");
    assert_eq!(outcome.exit_code, 0);
}
