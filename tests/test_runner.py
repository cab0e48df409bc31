"""The runner against scripted child processes (tests/helpers/child.py).

Synchronisation is by process exit, threading events and FIFOs, never sleeps.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from osdoctor.run.cmdline import insert_debug
from osdoctor.run.runner import (
    LEFT_OPEN_NOTE,
    MAX_LINE,
    PROMPT_NOTE,
    CommandError,
    OutputLine,
    Run,
    RunResult,
    exit_status,
    group_alive,
    run_foreground,
)
from tests.helpers.children import TIMEOUT, child, gate


class Collector:
    """Collects lines; lets a test wait until a line matching a text arrives."""

    def __init__(self, react: Callable[[OutputLine], object] | None = None) -> None:
        self.lines: list[OutputLine] = []
        self._react = react
        self._seen = threading.Condition()

    def __call__(self, line: OutputLine) -> None:
        with self._seen:
            self.lines.append(line)
            self._seen.notify_all()
        if self._react is not None:
            self._react(line)

    def wait_for(self, predicate: Callable[[str], bool]) -> OutputLine:
        with self._seen:
            found = self._seen.wait_for(
                lambda: next((x for x in self.lines if predicate(x.text)), None), TIMEOUT
            )
        assert found is not None, "expected line never arrived"
        return found

    def texts(self, fd: int) -> list[str]:
        return [line.text for line in self.lines if line.fd == fd]


def run_child(*args: str, **kwargs: object) -> tuple[RunResult, Collector]:
    collector = Collector()
    run = Run(child(*args), on_line=collector, **kwargs)  # type: ignore[arg-type]
    run.start()
    return run.wait(TIMEOUT), collector


def process_gone(pid: int) -> bool:
    """Not running: absent, or a zombie left to a parent other than us (init)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except FileNotFoundError:
        return True
    fields = stat[stat.rfind(b")") + 2 :].split()
    return fields[0] in (b"Z", b"X") and int(fields[1]) != os.getpid()


# -- insert_debug -------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["openstack", "server", "list"], ["openstack", "--debug", "server", "list"]),
        (["openstack"], ["openstack", "--debug"]),
        (["heat", "stack-list"], ["heat", "--debug", "stack-list"]),
        (["baremetal", "node", "list"], ["baremetal", "--debug", "node", "list"]),
        (["swift", "stat"], ["swift", "--debug", "stat"]),
        (
            ["/usr/bin/openstack", "token", "issue"],
            ["/usr/bin/openstack", "--debug", "token", "issue"],
        ),
        (["./venv/bin/swift", "list"], ["./venv/bin/swift", "--debug", "list"]),
        (
            ["env", "OS_CLOUD=lab", "openstack", "server", "list"],
            ["env", "OS_CLOUD=lab", "openstack", "--debug", "server", "list"],
        ),
        (
            ["/usr/bin/env", "-i", "-u", "OS_TOKEN", "A=1", "B=2", "heat", "stack-list"],
            ["/usr/bin/env", "-i", "-u", "OS_TOKEN", "A=1", "B=2", "heat", "--debug", "stack-list"],
        ),
        (["env", "--", "openstack", "x"], ["env", "--", "openstack", "--debug", "x"]),
        # already asked for: not doubled
        (["openstack", "--debug", "server", "list"], ["openstack", "--debug", "server", "list"]),
        (["openstack", "server", "list", "--debug"], ["openstack", "server", "list", "--debug"]),
        (["heat", "-d", "stack-list"], ["heat", "-d", "stack-list"]),
        (["env", "A=1", "swift", "--debug", "stat"], ["env", "A=1", "swift", "--debug", "stat"]),
        # -d means debug only to heat
        (["openstack", "server", "list", "-d"], ["openstack", "--debug", "server", "list", "-d"]),
        # a --debug after "--" is an argument, not the option
        (
            ["swift", "upload", "c", "--", "--debug"],
            ["swift", "--debug", "upload", "c", "--", "--debug"],
        ),
        # other commands are left alone
        (["nova", "list"], ["nova", "list"]),
        (["openstack-foo", "x"], ["openstack-foo", "x"]),
        (["python", "-m", "openstackclient.shell"], ["python", "-m", "openstackclient.shell"]),
        (["env", "A=1"], ["env", "A=1"]),
        (["env"], ["env"]),
        ([], []),
    ],
)
def test_insert_debug(argv: list[str], expected: list[str]) -> None:
    original = list(argv)
    assert insert_debug(argv) == expected
    assert argv == original


@pytest.mark.parametrize(("code", "status"), [(0, 0), (3, 3), (-2, 130), (-15, 143), (-9, 137)])
def test_exit_status_maps_signals_like_a_shell(code: int, status: int) -> None:
    assert exit_status(code) == status


# -- output capture -------------------------------------------------------------


def test_many_lines_arrive_complete_and_in_order_per_stream() -> None:
    count = 100_000
    began = time.perf_counter()
    result, lines = run_child("many", str(count))
    elapsed = time.perf_counter() - began
    print(f"\n2 x {count} lines captured in {elapsed:.2f} s")
    assert lines.texts(1) == [f"out {n}" for n in range(count)]
    assert lines.texts(2) == [f"err {n}" for n in range(count)]
    assert (result.exit_code, result.stdout_lines, result.stderr_lines) == (0, count, count)
    times = [line.time for line in lines.lines]
    assert times == sorted(times)
    assert not any(line.cut for line in lines.lines)


def test_arrival_order_across_streams_is_kept(tmp_path: Path) -> None:
    with gate(tmp_path) as (path, step):
        collector = Collector(react=lambda _line: os.write(step, b"."))
        run = Run(child("interleave", path, "5"), on_line=collector)
        run.start()
        result = run.wait(TIMEOUT)
        expected = [(fd, f"{name} {n}") for n in range(5) for fd, name in ((1, "out"), (2, "err"))]
        assert [(line.fd, line.text) for line in collector.lines] == expected
        times = [line.time for line in collector.lines]
        assert times == sorted(times) and times[-1] <= result.duration
        assert result.exit_code == 0


def test_undecodable_bytes_split_characters_and_last_partial_line() -> None:
    result, lines = run_child("bytes")
    assert lines.texts(1) == [
        "bad \ufffd\ufffd end",
        "café",
        "dos line",
        "last without newline",
    ]
    assert result.stdout_lines == 4


def test_a_huge_line_is_delivered_in_marked_pieces() -> None:
    result, lines = run_child("huge", str(2 * MAX_LINE + 5))
    pieces = [(len(line.text), line.cut) for line in lines.lines]
    assert pieces == [(MAX_LINE, True), (MAX_LINE, True), (5, False), (5, False)]
    assert lines.lines[-1].text == "after"
    assert result.stdout_lines == 2


def test_exit_code_is_kept() -> None:
    result, lines = run_child("exit", "3")
    assert (result.exit_code, result.signal, result.cancelled) == (3, None, False)
    assert lines.texts(1) == ["bye"]
    assert result.notes == ()
    assert result.duration > 0


def test_stdin_is_empty_and_not_a_terminal() -> None:
    result, lines = run_child("stdin")
    assert lines.texts(1) == ["read '' isatty=False"]
    assert result.notes == ()


@pytest.mark.parametrize("mode", ["input", "getpass"])
def test_a_client_that_prompts_fails_fast_with_a_note(mode: str) -> None:
    result, lines = run_child(mode)
    assert result.exit_code == 1
    assert any("EOFError" in text for text in lines.texts(2))
    assert result.notes == (PROMPT_NOTE,)


def test_child_gets_unbuffered_python_and_the_given_environment() -> None:
    _, inherited = run_child("env", "PYTHONUNBUFFERED")
    assert inherited.texts(1) == ["1"]
    env = {"PATH": os.environ.get("PATH", ""), "OSDOCTOR_PROBE": "seen"}
    _, given = run_child("env", "OSDOCTOR_PROBE", env=env)
    assert given.texts(1) == ["seen"]


def test_a_failing_callback_does_not_stall_the_run() -> None:
    def explode(_line: OutputLine) -> None:
        raise RuntimeError("display gone")

    run = Run(child("many", "5000"), on_line=explode)
    run.start()
    result = run.wait(TIMEOUT)
    assert result.exit_code == 0 and result.stdout_lines == 5000
    assert isinstance(run.callback_error, RuntimeError)


def test_wait_times_out_while_the_command_runs(tmp_path: Path) -> None:
    with gate(tmp_path) as (path, step):
        run = Run(child("hold", path))
        run.start()
        with pytest.raises(TimeoutError):
            run.wait(0.05)
        assert not run.done
        os.write(step, b".")
        assert run.wait(TIMEOUT).exit_code == 0


def test_output_held_open_after_the_exit_does_not_hold_the_run() -> None:
    result, lines = run_child("orphan")
    pids = next(text for text in lines.texts(1) if text.startswith("pids "))
    grandchild = int(pids.split()[2])
    try:
        assert result.exit_code == 0 and not result.cancelled
        assert result.notes == (LEFT_OPEN_NOTE,)
    finally:
        os.kill(grandchild, signal.SIGKILL)


def test_run_foreground_returns_the_result() -> None:
    collector = Collector()
    result = run_foreground(child("exit", "4"), on_line=collector)
    assert result.exit_code == 4 and collector.texts(1) == ["bye"]


# -- start failures -------------------------------------------------------------


def test_missing_command(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match=r"^osdoctor-no-such-command: command not found$"):
        Run(["osdoctor-no-such-command", "x"]).start()
    missing = str(tmp_path / "bin" / "openstack")
    with pytest.raises(CommandError, match=r": no such file$"):
        Run([missing]).start()


def test_not_executable(tmp_path: Path) -> None:
    script = tmp_path / "openstack"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o644)
    with pytest.raises(CommandError, match=r"permission denied \(not executable\)$"):
        Run([str(script)]).start()
    with pytest.raises(CommandError, match=r"is a folder, not a command$"):
        Run([str(tmp_path)]).start()


def test_empty_command_missing_folder_and_bad_argument(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="no command given"):
        Run([]).start()
    with pytest.raises(CommandError, match="cannot run: embedded null byte"):
        Run(["openstack", "server\0show"]).start()
    with pytest.raises(CommandError, match="no such folder"):
        Run(child("exit", "0"), cwd=tmp_path / "absent").start()


# -- cancel ---------------------------------------------------------------------


def start_ready(*args: str, grace: float) -> tuple[Run, Collector]:
    collector = Collector()
    run = Run(child(*args), on_line=collector, cancel_grace=grace)
    run.start()
    collector.wait_for(lambda text: text == "ready" or text.startswith("pids "))
    return run, collector


@pytest.mark.parametrize(
    ("ignored", "status", "grace"),
    [
        # A child that obeys SIGINT ends by it, however long its exit takes on a
        # loaded machine: the grace period, never reached, plays no part.
        ("", 130, 600),
        # One that ignores a signal outlives its grace period: the next signal
        # (SIGTERM, then SIGKILL, which nothing ignores) ends it at once.
        ("SIGINT", 143, 0.3),
        ("SIGINT,SIGTERM", 137, 0.3),
    ],
)
def test_cancel_escalates_until_the_command_ends(ignored: str, status: int, grace: float) -> None:
    run, _ = start_ready("stubborn", ignored, grace=grace)
    run.cancel()
    result = run.wait(TIMEOUT)
    assert (result.exit_code, result.signal, result.cancelled) == (status, status - 128, True)
    assert run.pid is not None and process_gone(run.pid)


def test_cancel_again_skips_the_grace_period() -> None:
    run, _ = start_ready("stubborn", "SIGINT,SIGTERM", grace=600)
    began = time.monotonic()
    run.cancel()
    run.cancel()
    while not run.done:
        run.cancel()
        try:
            run.wait(0.05)
        except TimeoutError:
            continue
    assert run.wait(0).exit_code == 137
    assert time.monotonic() - began < 60


def test_cancel_reaps_the_child_and_its_own_children() -> None:
    run, lines = start_ready("family", grace=0.3)
    pids_line = lines.wait_for(lambda text: text.startswith("pids "))
    child_pid, grandchild_pid = (int(word) for word in pids_line.text.split()[1:])
    assert child_pid == run.pid
    assert not process_gone(grandchild_pid)
    run.cancel()
    result = run.wait(TIMEOUT)
    assert result.cancelled
    assert not Path(f"/proc/{child_pid}").exists()  # reaped by the runner
    assert process_gone(grandchild_pid)
    assert not group_alive(child_pid)


def test_cancel_after_the_end_changes_nothing() -> None:
    run = Run(child("exit", "0"))
    run.start()
    result = run.wait(TIMEOUT)
    run.cancel()
    assert run.wait(0) is result and not result.cancelled


# -- osdoctor killed outright ------------------------------------------------------

_STAND_IN = """
import sys
from osdoctor.run.runner import Run
run = Run([sys.executable, "-c", "import time; time.sleep(600)"])
run.start()
print(run.pid, flush=True)
sys.stdin.read()
"""


def test_cancel_interrupts_the_client_even_when_osdoctor_ignores_sigint() -> None:
    """Started with SIGINT ignored (a background job of a script, a CI runner),
    osdoctor still gives its client a terminal's Ctrl-C: the client is not left
    ignoring the cancel's SIGINT until the SIGTERM after the grace period."""
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        run, _ = start_ready("stubborn", "", grace=600)
    finally:
        signal.signal(signal.SIGINT, before)
    run.cancel()
    result = run.wait(TIMEOUT)
    assert result.exit_code == 130


def test_the_client_dies_with_osdoctor_even_when_osdoctor_is_killed_outright() -> None:
    """SIGKILL leaves osdoctor no chance to stop the client: the kernel does."""
    import select
    import subprocess
    import sys

    stand_in = subprocess.Popen(
        [sys.executable, "-c", _STAND_IN],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert stand_in.stdout is not None
        pid = int(stand_in.stdout.readline())
        pidfd = os.pidfd_open(pid)
        try:
            stand_in.kill()
            stand_in.wait(TIMEOUT)
            # The pidfd turns readable when the client has exited.
            readable, _, _ = select.select([pidfd], [], [], TIMEOUT)
            assert readable == [pidfd], "the client outlived osdoctor"
        finally:
            os.close(pidfd)
    finally:
        stand_in.kill()
        stand_in.wait(TIMEOUT)
