#!/usr/bin/env python3
"""Runs the WASI conformance guest in wasmtime, the oracle, and records or checks its output.

  python3 tests/guests/wasi-conform/check.py record   run every case in wasmtime and write
                                                      what it printed into expected.json
  python3 tests/guests/wasi-conform/check.py check    run them again and compare
  ... [LABEL...]                                      only these cases

Each case runs in a child process whose stdin, stdout and stderr are pipes (as a command's
are in sandtab), with a fresh empty directory preopened at /sandbox (fd 3). `status` is the
exit code or `trap`; `tree` lists what the directory holds afterwards (one line per entry:
`d PATH`, `f PATH SIZE`, `l PATH -> TARGET`, sorted). sandtab's tests (crates/wasi/tests/
wasi_conformance.rs natively, crates/web/tests/conformance.rs in browsers) compare with that
recording.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
WASM = os.path.join(ROOT, "target", "guests", "rust", "wasi_conform.wasm")
EXPECTED = os.path.join(HERE, "expected.json")
GUEST_DIR = "/sandbox"
WASMTIME_VERSION = "50.0.1"


def load_cases(labels):
    with open(os.path.join(HERE, "cases.json"), encoding="utf-8") as f:
        cases = json.load(f)["cases"]
    unknown = set(labels) - {c["label"] for c in cases}
    if unknown:
        sys.exit(f"unknown case(s): {', '.join(sorted(unknown))}")
    return [c for c in cases if not labels or c["label"] in labels]


def tree(root):
    lines = []
    for base, dirs, files in os.walk(root):
        for name in sorted(dirs + files):
            full = os.path.join(base, name)
            rel = os.path.relpath(full, root)
            if os.path.islink(full):
                lines.append(f"l {rel} -> {os.readlink(full)}")
                dirs[:] = [d for d in dirs if d != name]
            elif os.path.isdir(full):
                lines.append(f"d {rel}")
            else:
                lines.append(f"f {rel} {os.path.getsize(full)}")
    return "".join(line + "\n" for line in sorted(lines))


def child(label, work):
    """Runs one case in this process, on inherited standard streams."""
    import wasmtime

    case = next(c for c in load_cases([label]))
    engine = wasmtime.Engine()
    module = wasmtime.Module.from_file(engine, WASM)
    config = wasmtime.WasiConfig()
    config.argv = case["args"]
    config.env = list(case["env"].items())
    config.inherit_stdin()
    config.inherit_stdout()
    config.inherit_stderr()
    config.preopen_dir(work, GUEST_DIR)
    store = wasmtime.Store(engine)
    store.set_wasi(config)
    linker = wasmtime.Linker(engine)
    linker.define_wasi()
    instance = linker.instantiate(store, module)
    status = 0
    try:
        instance.exports(store)["_start"](store)
    except wasmtime.ExitTrap as e:
        status = e.code
    except (wasmtime.Trap, wasmtime.WasmtimeError) as e:
        # A host call given an invalid enum value or an address outside memory traps.
        status = "trap"
        with open(os.path.join(work, "..", "trap"), "w") as f:
            f.write(str(e))
    sys.stdout.flush()
    with open(os.path.join(work, "..", "status"), "w") as f:
        f.write(f"{status}\n")


def run(case, scratch):
    work = tempfile.mkdtemp(dir=scratch)
    os.makedirs(os.path.join(work, "sandbox"))
    sandbox = os.path.join(work, "sandbox")
    p = subprocess.run([sys.executable, __file__, "--child", case["label"], sandbox], stdin=subprocess.PIPE,
                       capture_output=True, timeout=120)
    status_file = os.path.join(work, "status")
    if not os.path.exists(status_file):
        sys.exit(f"{case['label']}: the wasmtime child failed:\n{p.stderr.decode(errors='replace')}")
    with open(status_file) as f:
        status = f.read()
    trap = os.path.join(work, "trap")
    if os.path.exists(trap):
        cause = [line.strip() for line in open(trap) if line.strip().startswith("0:")]
        print(f"  {case['label']} trapped: {cause[-1] if cause else open(trap).read()[:200]}")
    return {"stdout": p.stdout, "stderr": p.stderr, "status": status.encode(), "tree": tree(sandbox).encode()}


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3])
        return
    if len(sys.argv) < 2 or sys.argv[1] not in ("record", "check"):
        sys.exit(__doc__)
    import wasmtime  # noqa: F401  (fail early, with Python's message, if it is missing)

    mode, labels = sys.argv[1], sys.argv[2:]
    if not os.path.exists(WASM):
        sys.exit(f"{WASM} is missing: run ./dev setup")
    try:
        with open(EXPECTED, encoding="utf-8") as f:
            recorded = json.load(f)
    except FileNotFoundError:
        recorded = {"cases": {}}
    failed = []
    with tempfile.TemporaryDirectory() as scratch:
        for case in load_cases(labels):
            got = {stream: data.decode("utf-8") for stream, data in run(case, scratch).items()}
            if mode == "record":
                recorded["cases"][case["label"]] = got
            elif recorded["cases"].get(case["label"]) != got:
                failed.append(case["label"])
                print(f"FAIL {case['label']}: wasmtime now prints something else")
            print(f"{mode} {case['label']}: status {got['status'].strip()}")
    if mode == "record":
        labels_known = [c["label"] for c in load_cases([])]
        recorded = {
            "comment": "Recorded from wasmtime by check.py record; never edited by hand. Per case: "
                       "stdout, stderr, status (exit code or trap) and tree (what /sandbox held after).",
            "wasmtime": WASMTIME_VERSION,
            "cases": {label: recorded["cases"][label] for label in labels_known if label in recorded["cases"]},
        }
        with open(EXPECTED, "w", encoding="utf-8") as f:
            json.dump(recorded, f, indent=1, ensure_ascii=False)
            f.write("\n")
    if failed:
        sys.exit(f"{len(failed)} case(s) differ from the recording: {', '.join(failed)}")


if __name__ == "__main__":
    main()
