"""A scripted child process for the runner tests: ``child.py MODE [ARG...]``.

Modes that must wait for the test block on a FIFO (``gate``): the test
writes one byte per step, so nothing depends on the clock.
"""

from __future__ import annotations

import getpass
import os
import signal
import subprocess
import sys
import threading


def many(count: int) -> None:
    """``count`` numbered lines on each stream, in blocks, as fast as possible."""
    out, err = sys.stdout.buffer, sys.stderr.buffer
    block = 1000
    for first in range(0, count, block):
        numbers = range(first, min(first + block, count))
        out.write(b"".join(b"out %d\n" % n for n in numbers))
        err.write(b"".join(b"err %d\n" % n for n in numbers))
    out.flush()
    err.flush()


def interleave(gate: str, rounds: int) -> None:
    """out 0, err 0, out 1, ...: each line waits until the test has seen the last."""
    with open(gate, "rb", buffering=0) as step:
        for n in range(rounds):
            print(f"out {n}", flush=True)
            step.read(1)
            print(f"err {n}", file=sys.stderr, flush=True)
            step.read(1)


def bytes_out() -> None:
    """Invalid UTF-8, a character split across writes, and a CRLF line."""
    out = sys.stdout.buffer
    out.write(b"bad \xff\xfe end\n")
    out.flush()
    out.write(b"caf\xc3")
    out.flush()
    out.write(b"\xa9\n")
    out.write(b"dos line\r\n")
    out.write(b"last without newline")
    out.flush()


def huge(size: int) -> None:
    sys.stdout.write("x" * size + "\nafter\n")
    sys.stdout.flush()


def hold(gate: str, *lines: str) -> None:
    """Print ``lines`` (up to a "--") on stderr, then wait for the gate; exit 0."""
    if "--" in lines:
        lines = lines[: lines.index("--")]
    for line in lines:
        print(line, file=sys.stderr, flush=True)
    with open(gate, "rb", buffering=0) as step:
        step.read(1)


def replay(log: str, upto: int, gate: str, code: int) -> None:
    """Print a log's first ``upto`` lines on stderr, as a client prints its debug
    output, wait for the gate, print the rest and exit with ``code``."""
    with open(log, encoding="utf-8", errors="replace") as handle:
        lines = handle.readlines()
    sys.stderr.writelines(lines[:upto])
    sys.stderr.flush()
    with open(gate, "rb", buffering=0) as step:
        step.read(1)
    sys.stderr.writelines(lines[upto:])
    sys.stderr.flush()
    raise SystemExit(code)


def stubborn(ignore: str) -> None:
    """Ignore the named signals (comma-separated), say "ready", wait forever."""
    for name in filter(None, ignore.split(",")):
        signal.signal(getattr(signal, name), signal.SIG_IGN)
    print("ready", flush=True)
    threading.Event().wait()


def signals(report: str) -> None:
    """Ignore SIGINT and SIGTERM but write each one down, one per line, to the
    FIFO ``report`` after a "ready PID" line; only SIGKILL ends it (the FIFO's
    end of file then tells the reader so). Unbuffered writes: a handler may run
    in the middle of the "ready" line's."""
    fd = os.open(report, os.O_WRONLY)

    def note(signum: int, _frame: object) -> None:
        os.write(fd, f"{signal.Signals(signum).name}\n".encode())

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, note)
    os.write(fd, f"ready {os.getpid()}\n".encode())
    while True:
        signal.pause()


def family() -> None:
    """Start a grandchild that ignores SIGINT and SIGTERM, print both pids, wait."""
    grandchild = subprocess.Popen(
        [sys.executable, __file__, "stubborn", "SIGINT,SIGTERM"], stdout=subprocess.PIPE
    )
    assert grandchild.stdout is not None
    grandchild.stdout.readline()
    print(f"pids {os.getpid()} {grandchild.pid}", flush=True)
    threading.Event().wait()


def grandchild(report: str) -> None:
    """Start a grandchild in ``signals`` mode (it says "ready PID" on the FIFO
    ``report``, its own pid, and only SIGKILL ends it), then wait forever."""
    subprocess.Popen([sys.executable, __file__, "signals", report])
    threading.Event().wait()


def orphan() -> None:
    """Leave behind a grandchild that holds stdout open, print its pid, exit 0."""
    grandchild = subprocess.Popen([sys.executable, __file__, "stubborn", ""])
    print(f"pids {os.getpid()} {grandchild.pid}", flush=True)


def main() -> None:
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == "many":
        many(int(args[0]))
    elif mode == "interleave":
        interleave(args[0], int(args[1]))
    elif mode == "bytes":
        bytes_out()
    elif mode == "huge":
        huge(int(args[0]))
    elif mode == "hold":
        hold(args[0], *args[1:])
    elif mode == "exit":
        print("bye", flush=True)
        raise SystemExit(int(args[0]))
    elif mode == "stdin":
        print(f"read {sys.stdin.read()!r} isatty={sys.stdin.isatty()}", flush=True)
    elif mode == "input":
        input("Name: ")
    elif mode == "getpass":
        getpass.getpass()
    elif mode == "replay":
        replay(args[0], int(args[1]), args[2], int(args[3]))
    elif mode == "stubborn":
        stubborn(args[0] if args else "")
    elif mode == "signals":
        signals(args[0])
    elif mode == "family":
        family()
    elif mode == "orphan":
        orphan()
    elif mode == "grandchild":
        grandchild(args[0])
    elif mode == "env":
        print(os.environ.get(args[0], "<unset>"), flush=True)
    else:
        raise SystemExit(f"unknown mode {mode}")


if __name__ == "__main__":
    main()
