"""Ctrl-C in sandtab's terminal, as `KeyboardInterrupt`.

WASI has no signals, so a program cannot be interrupted where it stands. What sandtab
can do is end a read of the terminal: a guest that asks for it (by opening
`/dev/sandtab/interrupts`) sees Ctrl-C, typed while it waits for a line, as a read of
stdin that fails with ECANCELED. This module asks, and turns that failure into SIGINT,
which CPython's handler raises as `KeyboardInterrupt` (or a handler the program set
with `signal.signal` runs instead). Ctrl-C while the program computes still stops it.

CPython's own line readers (`input()` on a terminal, the REPL) read stdin in C, where
ECANCELED would look like the end of input. So `sys.stdin`, `input()` and the REPL
(through `sys.__interactivehook__`, which CPython calls before its own) read stdin
here instead.
"""

import builtins
import errno
import io
import os
import signal
import sys

DEVICE = "/dev/sandtab/interrupts"


class TerminalIn(io.RawIOBase):
    """File descriptor 0, where Ctrl-C while waiting raises SIGINT."""

    def readable(self):
        return True

    def fileno(self):
        return 0

    def isatty(self):
        return True

    def readinto(self, buffer):
        while True:
            try:
                data = os.read(0, len(buffer))
            except OSError as err:
                if err.errno != errno.ECANCELED:
                    raise
                # Raises KeyboardInterrupt, or runs the program's own handler (then
                # the read goes on, as after EINTR).
                signal.raise_signal(signal.SIGINT)
                continue
            buffer[: len(data)] = data
            return len(data)


def _input(prompt=""):
    """`input()` reading `sys.stdin`, as CPython's does when stdin is not a terminal."""
    stdin, stdout = sys.stdin, sys.stdout
    sys.audit("builtins.input", prompt)
    try:
        sys.stderr.flush()
    except (AttributeError, OSError, ValueError):
        pass
    if prompt != "":
        stdout.write(str(prompt))
    stdout.flush()
    line = stdin.readline()
    if not line:
        raise EOFError("EOF when reading a line")
    if line[-1] == "\n":
        line = line[:-1]
    sys.audit("builtins.input/result", line)
    return line


def _exit_status(code):
    """The process status for `SystemExit(code)`, as CPython computes it."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _repl():
    """CPython's interactive loop, on `code.InteractiveConsole` (CPython has printed
    its banner already). Leaves the process when it ends, so that CPython's own loop
    does not start after it."""
    import code

    import __main__

    class Console(code.InteractiveConsole):
        def raw_input(self, prompt=""):
            # CPython's REPL writes its prompts to stderr.
            sys.stdout.flush()
            sys.stderr.write(prompt)
            sys.stderr.flush()
            line = sys.stdin.readline()
            if not line:
                raise EOFError
            return line[:-1] if line[-1] == "\n" else line

    console = Console(vars(__main__), filename="<stdin>")
    try:
        console.interact(banner="", exitmsg="")
        status = 0
    except SystemExit as exit:
        status = _exit_status(exit.code)
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, OSError, ValueError):
            pass
    os._exit(status)


def install():
    """Asks for interrupts; if stdin is the terminal, reads it here from now on."""
    try:
        fd = os.open(DEVICE, os.O_RDWR)
    except OSError:
        return
    try:
        os.write(fd, b"on\n")
        answer = os.read(fd, 16)
    finally:
        os.close(fd)
    if answer.strip() != b"on":
        return
    stdin = sys.stdin
    sys.stdin = io.TextIOWrapper(
        io.BufferedReader(TerminalIn()),
        encoding=stdin.encoding,
        errors=stdin.errors,
        line_buffering=True,
    )
    original_input = builtins.input

    def input(prompt=""):
        if sys.stdin is not terminal_stdin:
            return original_input(prompt)
        return _input(prompt)

    terminal_stdin = sys.stdin
    input.__doc__ = original_input.__doc__
    builtins.input = input
    sys.__interactivehook__ = _repl
