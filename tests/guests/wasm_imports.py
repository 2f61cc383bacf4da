#!/usr/bin/env python3
"""Lists what a WebAssembly module imports, reading its import section directly.

  python3 tests/guests/wasm_imports.py FILE.wasm...          one `module.name kind` per import
  python3 tests/guests/wasm_imports.py --summary FILE.wasm... per file: import modules and names
  python3 tests/guests/wasm_imports.py --sections FILE.wasm... section ids/names and sizes

Exits 1 if a module imports from anything but wasi_snapshot_preview1 (with --check).
"""
import sys

KINDS = {0: "func", 1: "table", 2: "memory", 3: "global", 4: "tag"}


def leb(data, pos):
    result = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return result, pos


def name(data, pos):
    length, pos = leb(data, pos)
    return data[pos:pos + length].decode("utf-8"), pos + length


def limits(data, pos):
    flags = data[pos]
    _, pos = leb(data, pos + 1)
    if flags & 1:
        _, pos = leb(data, pos)
    return pos


def sections(data):
    if data[:4] != b"\0asm":
        raise ValueError("not a WebAssembly module")
    pos = 8
    while pos < len(data):
        sid = data[pos]
        size, pos = leb(data, pos + 1)
        yield sid, data[pos:pos + size]
        pos += size


def imports(data):
    for sid, body in sections(data):
        if sid != 2:
            continue
        count, pos = leb(body, 0)
        for _ in range(count):
            module, pos = name(body, pos)
            field, pos = name(body, pos)
            kind = body[pos]
            pos += 1
            if kind == 0:
                _, pos = leb(body, pos)
            elif kind == 1:
                pos = limits(body, pos + 1)
            elif kind == 2:
                pos = limits(body, pos)
            elif kind == 3:
                pos += 2
            elif kind == 4:
                _, pos = leb(body, pos + 1)
            yield module, field, KINDS.get(kind, str(kind))


def main():
    args = sys.argv[1:]
    summary = "--summary" in args
    show_sections = "--sections" in args
    check = "--check" in args
    files = [a for a in args if not a.startswith("--")]
    bad = False
    for path in files:
        with open(path, "rb") as f:
            data = f.read()
        if show_sections:
            print(path)
            for sid, body in sections(data):
                label = str(sid)
                if sid == 0:
                    label = "custom " + name(body, 0)[0]
                print("  %-28s %9d bytes" % (label, len(body)))
            continue
        found = list(imports(data))
        others = [m for m, _, _ in found if m != "wasi_snapshot_preview1"]
        if others:
            bad = True
        if summary:
            modules = sorted({m for m, _, _ in found})
            print("%s: %d imports from %s" % (path, len(found), ", ".join(modules)))
            print("  " + " ".join(sorted(f for _, f, _ in found)))
        else:
            for module, field, kind in found:
                print("%s %s.%s %s" % (path, module, field, kind))
    sys.exit(1 if check and bad else 0)


if __name__ == "__main__":
    main()
