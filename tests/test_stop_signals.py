"""The client never outlives osdoctor.

osdoctor runs the client in its own session, where the signals that stop
osdoctor itself never reach it: ``timeout`` or a service manager's SIGTERM,
the SIGHUP of a terminal (or tmux window) that closes. On each, osdoctor
stops the client's process group (SIGINT, then SIGTERM, then SIGKILL after a
grace period), closes the session file and exits; with and without the TUI.

The client here ignores SIGINT and SIGTERM and writes each one down to a FIFO:
the test reads what it received, and the FIFO's end of file is its death.
Nothing waits on the clock: every wait is for a line, an end of file or an exit.
"""

from __future__ import annotations

import fcntl
import os
import queue
import select
import signal
import struct
import subprocess
import sys
import termios
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers.children import TIMEOUT, child

ROOT = Path(__file__).resolve().parents[1]
STOP = [signal.SIGTERM, signal.SIGHUP]


class Report:
    """The lines the child writes to its FIFO; None once it has died."""

    def __init__(self, path: Path) -> None:
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, args=(path,), daemon=True).start()

    def _read(self, path: Path) -> None:
        with path.open(encoding="utf-8") as fifo:  # returns once the child opens it
            for line in fifo:
                self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def next(self) -> str | None:
        return self.lines.get(timeout=TIMEOUT)


class Terminal:
    """A pseudo-terminal whose output is read away, and that can be closed."""

    def __init__(self) -> None:
        self.master, self.slave = os.openpty()
        fcntl.ioctl(self.slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        self._close_r, self._close_w = os.pipe()
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    def _drain(self) -> None:
        try:
            while True:
                ready, _, _ = select.select([self.master, self._close_r], [], [])
                if self._close_r in ready:
                    return
                try:
                    if not os.read(self.master, 1 << 16):
                        return
                except OSError:  # EIO: nothing holds the other end any more
                    return
        finally:
            os.close(self.master)  # the hang-up: SIGHUP to the session on it

    def close(self) -> None:
        os.write(self._close_w, b"x")
        self._reader.join(TIMEOUT)
        os.close(self._close_r)
        os.close(self._close_w)


@dataclass
class Started:
    osdoctor: subprocess.Popen[bytes]
    client_pid: int
    report: Report


@contextmanager
def started(
    tmp_path: Path, tui: bool, on_terminal: bool = False, mode: str = "signals"
) -> Iterator[tuple[Started, Terminal | None]]:
    """osdoctor running the signal-taking child, as under ``timeout`` or, on a
    terminal of its own (``on_terminal``; always with the TUI), as the leader
    of the terminal's session, like a shell in a terminal window. With ``mode``
    "grandchild", the signal-taking process is the client's own child, and
    ``client_pid`` is the grandchild's."""
    fifo = tmp_path / "received"
    os.mkfifo(fifo)
    report = Report(fifo)
    env = {
        **os.environ,
        "OSDOCTOR_HOME": str(tmp_path / "home"),
        "PYTHONPATH": str(ROOT),
        "TERM": "xterm-256color",
    }
    command = [
        sys.executable,
        "-m",
        "osdoctor",
        "run",
        "--yes",
        *([] if tui else ["--no-tui"]),
        "--",
        *child(mode, str(fifo)),
    ]
    terminal = Terminal() if tui or on_terminal else None
    if terminal is not None:
        proc = subprocess.Popen(
            ["setsid", "--ctty", *command],
            stdin=terminal.slave,
            stdout=terminal.slave,
            stderr=terminal.slave,
            env=env,
            cwd=tmp_path,
        )
        os.close(terminal.slave)
    else:
        proc = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=tmp_path,
        )
    client_pid = 0
    try:
        ready = report.next()
        assert ready is not None and ready.startswith("ready "), ready
        client_pid = int(ready.split()[1])
        yield Started(proc, client_pid, report), terminal
    finally:  # whatever a failure left behind
        if proc.poll() is None:
            proc.kill()
            proc.wait(TIMEOUT)
        try:
            alive = str(fifo).encode() in Path(f"/proc/{client_pid}/cmdline").read_bytes()
        except OSError:
            alive = False
        if client_pid and alive:
            os.kill(client_pid, signal.SIGKILL)


def _client_was_stopped(run: Started, tmp_path: Path) -> None:
    # SIGINT first, then SIGTERM; both ignored, so SIGKILL: the FIFO's end of file.
    assert [run.report.next(), run.report.next(), run.report.next()] == ["SIGINT", "SIGTERM", None]
    run.osdoctor.wait(TIMEOUT)
    with pytest.raises(ProcessLookupError):
        os.kill(run.client_pid, 0)
    (session,) = (tmp_path / "home" / "data" / "sessions").glob("*.session.log")
    records = [
        line.split()[:2]
        for line in session.read_text().splitlines()
        if line.startswith("#cancelled") or line.startswith("#exit")
    ]
    assert records == [
        ["#cancelled", "SIGINT"],
        ["#cancelled", "SIGTERM"],
        ["#cancelled", "SIGKILL"],
        ["#exit", "137"],
    ]


@pytest.mark.parametrize("sig", STOP, ids=[s.name for s in STOP])
def test_a_stop_signal_stops_the_client_first(sig: signal.Signals, tmp_path: Path) -> None:
    with started(tmp_path, tui=False) as (run, _terminal):
        run.osdoctor.send_signal(sig)
        _client_was_stopped(run, tmp_path)
        assert run.osdoctor.returncode == 128 + sig
        assert run.osdoctor.stderr is not None
        said = run.osdoctor.stderr.read().decode()
        assert f"stopped by {sig.name}" in said and "session saved in" in said


@pytest.mark.parametrize("sig", STOP, ids=[s.name for s in STOP])
def test_a_stop_signal_stops_the_tui_s_client_first(sig: signal.Signals, tmp_path: Path) -> None:
    with started(tmp_path, tui=True) as (run, terminal):
        run.osdoctor.send_signal(sig)
        _client_was_stopped(run, tmp_path)
        assert run.osdoctor.returncode == 128 + sig
        assert terminal is not None
        terminal.close()


@pytest.mark.parametrize("tui", [False, True], ids=["no-tui", "tui"])
def test_closing_the_terminal_stops_the_client(tui: bool, tmp_path: Path) -> None:
    with started(tmp_path, tui, on_terminal=True) as (run, terminal):
        assert terminal is not None
        terminal.close()
        _client_was_stopped(run, tmp_path)
        assert run.osdoctor.returncode == 128 + signal.SIGHUP


@pytest.mark.parametrize("tui", [False, True], ids=["no-tui", "tui"])
def test_what_the_client_started_dies_with_osdoctor_killed_outright(
    tui: bool, tmp_path: Path
) -> None:
    """SIGKILL leaves osdoctor no chance to stop anything: the kernel tells the
    client's watcher, which ends the client's whole group, down to the
    grandchild (that ignores SIGINT and SIGTERM, and holds the FIFO open)."""
    with started(tmp_path, tui, mode="grandchild") as (run, terminal):
        grandchild = os.pidfd_open(run.client_pid)
        try:
            run.osdoctor.kill()
            run.osdoctor.wait(TIMEOUT)
            # No signal reached the grandchild before the SIGKILL: the FIFO's end
            # of file is its death, and its pidfd turns readable once it has exited.
            assert run.report.next() is None
            readable, _, _ = select.select([grandchild], [], [], TIMEOUT)
            assert readable == [grandchild], "the grandchild outlived osdoctor"
        finally:
            os.close(grandchild)
        if terminal is not None:
            terminal.close()
