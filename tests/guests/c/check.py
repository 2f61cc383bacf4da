#!/usr/bin/env python3
"""Runs the C test guests against expected/cases.json and compares stdout, stderr and status.

  python3 tests/guests/c/check.py native     compile each program with the host's cc -O2 and
                                             run it natively (how the expected files were made)
  python3 tests/guests/c/check.py wasmtime   run target/guests/c/NAME.wasm in wasmtime's Python
                                             package (a reference WASI runtime), if installed
  ... [LABEL...]                             only these cases

The two must print the same: the programs print nothing host-specific.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
GUEST_DIR = "/sandbox"  # where {DIR} is preopened in the WASI guest


def load_cases(labels):
    with open(os.path.join(HERE, "expected", "cases.json"), encoding="utf-8") as f:
        cases = json.load(f)["cases"]
    return [c for c in cases if not labels or c["label"] in labels]


def stdin_path(case, scratch):
    if case["stdin"]:
        return os.path.join(HERE, "inputs", case["stdin"])
    empty = os.path.join(scratch, "empty-stdin")
    open(empty, "wb").close()
    return empty


def run_native(case, scratch, exes):
    program = case["program"]
    if program not in exes:
        exe = os.path.join(scratch, program)
        subprocess.run(["cc", "-O2", "-Wall", "-Wextra", "-o", exe, os.path.join(HERE, program + ".c")], check=True)
        exes[program] = exe
    work = tempfile.mkdtemp(dir=scratch)
    args = [a.replace("{DIR}", work) for a in case["args"]]
    with open(stdin_path(case, scratch), "rb") as stdin:
        p = subprocess.run(args, executable=exes[program], env=case["env"], stdin=stdin, capture_output=True,
                           cwd=work, timeout=120)
    status = p.returncode
    if status in (-signal.SIGILL, -signal.SIGTRAP):
        status = "trap"
    return p.stdout, p.stderr, status


def run_wasmtime(case, scratch, modules):
    import wasmtime

    program = case["program"]
    if "engine" not in modules:
        modules["engine"] = wasmtime.Engine()
    engine = modules["engine"]
    if program not in modules:
        modules[program] = wasmtime.Module.from_file(engine, os.path.join(ROOT, "target", "guests", "c", program + ".wasm"))
    work = tempfile.mkdtemp(dir=scratch)
    out, err = os.path.join(scratch, "stdout"), os.path.join(scratch, "stderr")
    config = wasmtime.WasiConfig()
    config.argv = [a.replace("{DIR}", GUEST_DIR) for a in case["args"]]
    config.env = list(case["env"].items())
    config.stdin_file = stdin_path(case, scratch)
    config.stdout_file = out
    config.stderr_file = err
    if any("{DIR}" in a for a in case["args"]):
        config.preopen_dir(work, GUEST_DIR)
    store = wasmtime.Store(engine)
    store.set_wasi(config)
    linker = wasmtime.Linker(engine)
    linker.define_wasi()
    instance = linker.instantiate(store, modules[program])
    try:
        instance.exports(store)["_start"](store)
        status = 0
    except wasmtime.ExitTrap as e:
        status = e.code
    except wasmtime.Trap:
        status = "trap"
    del store
    with open(out, "rb") as f:
        stdout = f.read()
    with open(err, "rb") as f:
        stderr = f.read()
    return stdout, stderr, status


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "native"
    run = {"native": run_native, "wasmtime": run_wasmtime}.get(mode)
    if run is None:
        sys.exit(__doc__)
    if mode == "wasmtime":
        try:
            import wasmtime  # noqa: F401
        except ImportError:
            print("wasmtime (Python package) is not installed: skipping")
            return
    scratch = tempfile.mkdtemp(prefix="sandtab-guests-")
    cache = {}
    passed = failed = 0
    try:
        for case in load_cases(sys.argv[2:]):
            stdout, stderr, status = run(case, scratch, cache)
            label = case["label"]
            base = os.path.join(HERE, "expected", label)
            with open(base + ".stdout", "rb") as f:
                want_out = f.read()
            want_err = b""
            if os.path.exists(base + ".stderr"):
                with open(base + ".stderr", "rb") as f:
                    want_err = f.read()
            problems = []
            if stdout != want_out:
                problems.append("stdout:\n--- expected\n%s\n--- got\n%s" % (want_out.decode(errors="replace"),
                                                                            stdout.decode(errors="replace")))
            if stderr != want_err:
                problems.append("stderr: expected %r, got %r" % (want_err, stderr))
            if status != case["status"]:
                problems.append("status: expected %r, got %r" % (case["status"], status))
            if problems:
                failed += 1
                print("FAIL %s\n  %s" % (label, "\n  ".join(problems)))
            else:
                passed += 1
                print("ok   %s" % label)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
