#!/usr/bin/env python3
"""Runs the Rust test guest's cases and compares stdout, stderr and exit status.

  python3 tests/guests/rust/check.py native     build with the host's cargo (target dir
                                                /tmp/rg-native) and run natively
  python3 tests/guests/rust/check.py wasmtime   run target/guests/rust/rust_guest.wasm in
                                                wasmtime's Python package, if installed
  ... [LABEL...]                                only these cases

Both must print what expected/ holds: the program prints nothing host-specific.
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
WASM = os.path.join(ROOT, "target", "guests", "rust", "rust_guest.wasm")
GUEST_DIR = "/sandbox"  # where {DIR} is preopened in the WASI guest

# label, args ({DIR}: a fresh empty writable directory), whole environment, stdin file in
# expected/inputs (or None: empty), status ("trap": a trap or abort). Expected output:
# expected/LABEL.stdout and expected/LABEL.stderr; a missing file means empty, except for
# the cases in LOOSE_STDERR, whose stderr must only contain the given text.
CASES = [
    ("fs", ["rust_guest", "fs", "{DIR}"], {}, None, 0),
    ("env", ["rust_guest", "env", "a", "b c"], {"GREETING": "hi"}, None, 3),
    ("stdin", ["rust_guest", "stdin"], {}, "stdin.txt", 0),
    ("time", ["rust_guest", "time"], {}, None, 0),
    ("panic", ["rust_guest", "panic"], {}, None, "trap"),
    ("usage", ["rust_guest"], {}, None, 2),
]
LOOSE_STDERR = {"panic": "boom", "usage": "usage: rust_guest"}


def stdin_path(name, scratch):
    if name:
        return os.path.join(HERE, "expected", "inputs", name)
    empty = os.path.join(scratch, "empty-stdin")
    open(empty, "wb").close()
    return empty


def build_native(scratch):
    target = "/tmp/rg-native"
    subprocess.run(["cargo", "build", "--quiet", "--manifest-path", os.path.join(HERE, "Cargo.toml"),
                    "--target-dir", target], check=True)
    return os.path.join(target, "debug", "rust_guest")


def run_native(case, scratch, exe):
    _, args, env, stdin, _ = case
    work = tempfile.mkdtemp(dir=scratch)
    args = [a.replace("{DIR}", work) for a in args]
    with open(stdin_path(stdin, scratch), "rb") as f:
        p = subprocess.run(args, executable=exe, env=env, stdin=f, capture_output=True, cwd=work, timeout=60)
    status = p.returncode
    # A native panic unwinds (101) or, with panic=abort, aborts: the wasm build traps.
    if status in (101, -signal.SIGABRT, -signal.SIGILL, -signal.SIGTRAP):
        status = "trap"
    return p.stdout, p.stderr, status, os.listdir(work)


def run_wasmtime(case, scratch, state):
    import wasmtime

    _, args, env, stdin, _ = case
    if "module" not in state:
        state["engine"] = wasmtime.Engine()
        state["module"] = wasmtime.Module.from_file(state["engine"], WASM)
    engine = state["engine"]
    work = tempfile.mkdtemp(dir=scratch)
    out, err = os.path.join(scratch, "stdout"), os.path.join(scratch, "stderr")
    config = wasmtime.WasiConfig()
    config.argv = [a.replace("{DIR}", GUEST_DIR) for a in args]
    config.env = list(env.items())
    config.stdin_file = stdin_path(stdin, scratch)
    config.stdout_file = out
    config.stderr_file = err
    if any("{DIR}" in a for a in args):
        config.preopen_dir(work, GUEST_DIR)
    store = wasmtime.Store(engine)
    store.set_wasi(config)
    linker = wasmtime.Linker(engine)
    linker.define_wasi()
    instance = linker.instantiate(store, state["module"])
    try:
        instance.exports(store)["_start"](store)
        status = 0
    except wasmtime.ExitTrap as e:
        status = e.code
    except wasmtime.Trap:
        status = "trap"
    with open(out, "rb") as f:
        stdout = f.read()
    with open(err, "rb") as f:
        stderr = f.read()
    return stdout, stderr, status, os.listdir(work)


def expected(label, stream):
    path = os.path.join(HERE, "expected", "%s.%s" % (label, stream))
    if not os.path.exists(path):
        return b""
    with open(path, "rb") as f:
        return f.read()


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("native", "wasmtime"):
        sys.exit(__doc__)
    mode, labels = sys.argv[1], sys.argv[2:]
    cases = [c for c in CASES if not labels or c[0] in labels]
    scratch = tempfile.mkdtemp(prefix="rust-guest-")
    failed = 0
    try:
        if mode == "native":
            exe = build_native(scratch)
            run = lambda case: run_native(case, scratch, exe)
        else:
            if not os.path.exists(WASM):
                sys.exit("%s is missing: run build_rust_guest (scripts/setup.sh) first" % WASM)
            state = {}
            run = lambda case: run_wasmtime(case, scratch, state)
        for case in cases:
            label, status_want = case[0], case[4]
            stdout, stderr, status, left = run(case)
            problems = []
            if stdout != expected(label, "stdout"):
                problems.append("stdout differs:\n%s" % stdout.decode("utf-8", "replace"))
            if label in LOOSE_STDERR:
                if LOOSE_STDERR[label].encode() not in stderr:
                    problems.append("stderr lacks %r:\n%s" % (LOOSE_STDERR[label], stderr.decode("utf-8", "replace")))
            elif stderr != expected(label, "stderr"):
                problems.append("stderr differs:\n%s" % stderr.decode("utf-8", "replace"))
            if status != status_want:
                problems.append("status %r, expected %r" % (status, status_want))
            if left:
                problems.append("left in the directory: %s" % sorted(left))
            if problems:
                failed += 1
                print("FAIL %s (%s)" % (label, mode))
                for p in problems:
                    print("  " + p.replace("\n", "\n    "))
            else:
                print("ok   %s (%s)" % (label, mode))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print("%d of %d cases passed (%s)" % (len(cases) - failed, len(cases), mode))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
