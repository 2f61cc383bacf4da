#!/usr/bin/env python3
"""Writes the byte-level hostile modules (ones WAT cannot express). Run from anywhere;
the .wasm files are committed (regenerate them with `python3 make_bytes.py`)."""
import os, sys

HEADER = b"\0asm\x01\0\0\0"
FFFFFFFF = bytes([0xFF, 0xFF, 0xFF, 0xFF, 0x0F])


def leb(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def section(id, payload):
    return bytes([id]) + leb(len(payload)) + payload


def vec(items):
    return leb(len(items)) + b"".join(items)


def name(s):
    return leb(len(s)) + s.encode()


# () -> (), one function, exported as _start
TYPE = section(1, vec([b"\x60\x00\x00"]))
FUNC = section(3, vec([b"\x00"]))
EXPORT = section(7, vec([name("_start") + b"\x00\x00"]))


def with_locals(n):
    body = vec([leb(n) + b"\x7f"]) + b"\x0b"
    return HEADER + TYPE + FUNC + EXPORT + section(10, vec([leb(len(body)) + body]))


def grow_block(n):
    """One memory (1 page) and a `_start` of one block of `n` times
    `drop(memory.grow(i32.const 1))`: the block's fuel is paid when it is entered."""
    memory = section(5, b"\x01\x00\x01")
    body = vec([]) + b"\x41\x01\x40\x00\x1a" * n + b"\x0b"
    return HEADER + TYPE + FUNC + memory + EXPORT + section(10, vec([leb(len(body)) + body]))


CASES = {
    # The 15-byte module: a type section of 0xFFFFFFFF bytes.
    "section-length-ffffffff.wasm": HEADER + b"\x01" + FFFFFFFF + b"\x00",
    "custom-section-length-ffffffff.wasm": HEADER + b"\x00" + FFFFFFFF + b"\x00",
    "data-section-length-ffffffff.wasm": HEADER + b"\x0b" + FFFFFFFF + b"\x00",
    # A well-formed code section whose one body claims 0xFFFFFFF0 bytes.
    "code-body-length-huge.wasm": HEADER + TYPE + FUNC + EXPORT
    + section(10, b"\x01" + leb(0xFFFFFFF0) + b"\x00\x0b"),
    # Two bodies declared, one present, and a huge length right after the section.
    "code-body-count-lies.wasm": HEADER + TYPE + FUNC + EXPORT
    + section(10, b"\x02\x02\x00\x0b") + b"\x00" + FFFFFFFF,
    # A passive data segment of 0xFFFFFFFF bytes.
    "data-segment-length-ffffffff.wasm": HEADER + section(11, b"\x01\x01" + FFFFFFFF),
    # An active one (i32.const 0) of 0xFFFFFFF0 bytes.
    "data-segment-active-huge.wasm": HEADER + section(5, b"\x01\x00\x01")
    + section(11, b"\x01\x00\x41\x00\x0b" + leb(0xFFFFFFF0)),
    # 0xFFFFFFFF types in an empty section.
    "type-count-ffffffff.wasm": HEADER + section(1, FFFFFFFF),
    "data-count-ffffffff.wasm": HEADER + section(11, FFFFFFFF),
    "many-locals-50000.wasm": with_locals(50000),
    "many-locals-30001.wasm": with_locals(30001),
    "locals-30000.wasm": with_locals(30000),
    # 4,200 growths in one block: 4,200 x 255 fuel at once, more than one wasmi call
    # is usually given (crates/wasi/src/run.rs, CALL_FUEL_MAX); it gets it, and runs.
    "grow-block-4200.wasm": grow_block(4200),
}

if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    for file, data in CASES.items():
        with open(os.path.join(here, file), "wb") as f:
            f.write(data)
    print(f"wrote {len(CASES)} modules", file=sys.stderr)
