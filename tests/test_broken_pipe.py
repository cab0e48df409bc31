"""A reader that goes away (``osdoctor ... | head``) ends osdoctor as it ends
``cat`` or ``grep``: quietly, with the status a shell gives a process SIGPIPE
ended (141), whatever was being written and whoever wrote it.

Each command's stdout is a pipe whose reading end is closed before it starts, so
its first write meets the broken pipe, whenever that write comes: no timing.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from osdoctor.console import CLOSED_OUTPUT_EXIT
from tests.helpers.children import TIMEOUT

ROOT = Path(__file__).resolve().parent.parent
LOGS = ROOT / "tests" / "fixtures" / "logs"
ONE_LOG = LOGS / "generic.auth-no-role.log"


#: Output buffered (a write meets the closed pipe when the buffer fills, or at
#: the end) and unbuffered (at once: PYTHONUNBUFFERED, as the runner gives clients).
BUFFERING = ["buffered", "unbuffered"]


def run_into_closed_pipe(
    *argv: str, module: str = "osdoctor", buffering: str = "buffered", home: str = os.devnull
) -> tuple[int, str]:
    """Run ``python -m MODULE ARGV`` with its stdout a pipe nobody reads; returns its
    exit status and what it said on stderr."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OSDOCTOR_HOME": home}
    env.pop("PYTHONUNBUFFERED", None)
    if buffering == "unbuffered":
        env["PYTHONUNBUFFERED"] = "1"
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            [sys.executable, "-m", module, *argv],
            stdin=subprocess.DEVNULL,
            stdout=write_end,
            stderr=subprocess.PIPE,
            env=env,
            cwd=ROOT,
            timeout=TIMEOUT * 4,
            check=False,
        )
    finally:
        os.close(write_end)
    return done.returncode, done.stderr.decode("utf-8", "replace")


def test_the_status_is_a_shell_s_for_sigpipe() -> None:
    assert CLOSED_OUTPUT_EXIT == 128 + signal.SIGPIPE == 141


@pytest.mark.parametrize(
    "argv",
    [
        # many lines, written one print at a time
        ("lab", "list"),
        # a log's runs streamed as they are read: the log is not to blame
        ("explain", str(LOGS), "--format", "jsonl"),
        ("explain", str(ONE_LOG), str(ONE_LOG), "--format", "jsonl"),
        # one report, small enough to wait in the buffer until the exit's flush
        ("explain", str(ONE_LOG)),
        ("explain", str(ONE_LOG), "--format", "json"),
        ("kb", "list"),
        ("lookup", "list index out of range"),
    ],
    ids=lambda argv: " ".join(a if "/" not in a else Path(a).name for a in argv),
)
@pytest.mark.parametrize("buffering", BUFFERING)
def test_a_closed_pipe_ends_a_command_quietly(argv: tuple[str, ...], buffering: str) -> None:
    status, said = run_into_closed_pipe(*argv, buffering=buffering)
    assert said == ""
    assert status == CLOSED_OUTPUT_EXIT


@pytest.mark.parametrize("buffering", BUFFERING)
def test_the_lab_s_own_entry_point_too(buffering: str) -> None:
    status, said = run_into_closed_pipe("list", module="osdoctor.lab", buffering=buffering)
    assert (status, said) == (CLOSED_OUTPUT_EXIT, "")


def test_help_into_a_closed_pipe_is_quiet() -> None:
    """Buffered, the help meets the closed pipe in osdoctor's flush (141);
    unbuffered, argparse itself drops its write error and exits 0."""
    assert run_into_closed_pipe("explain", "--help") == (CLOSED_OUTPUT_EXIT, "")
    assert run_into_closed_pipe("explain", "--help", buffering="unbuffered") == (0, "")


def test_a_run_s_report_into_a_closed_pipe(tmp_path: Path) -> None:
    """The command ran and its session is saved; only the report had no reader."""
    command = [sys.executable, "-c", "raise SystemExit(3)"]
    status, said = run_into_closed_pipe(
        "run", "--no-tui", "--", *command, home=str(tmp_path / "home")
    )
    assert status == CLOSED_OUTPUT_EXIT
    assert said.startswith("osdoctor: session saved in ") and "Traceback" not in said
    (session,) = (tmp_path / "home" / "data" / "sessions").glob("*.session.log")
    assert "#exit 3" in session.read_text(encoding="utf-8")
