"""Run a pytest selection beside CPU burners, to prove the tests do not depend on time.

A test that synchronises on a clock (a sleep, a deadline, a poll interval)
passes on an idle machine and fails on a loaded one. This script loads the
machine on purpose: it starts N busy-loop child processes, runs the given
pytest selection (as the README's test command runs it) a number of times, and
prints each run's outcome and duration, then a summary. The burners are killed
when the script ends, however it ends (a normal end, an error, Ctrl-C or
SIGTERM), and each one also exits by itself when the script's process is gone,
so that none can outlive it.

    python benchmarks/under_load.py --burners 2 --repeat 3 tests/lab/test_recapture.py -k stalled
    python benchmarks/under_load.py --burners 4 -- tests/tui -x

Everything after the options (or after ``--``) is handed to pytest. Exit
status: 0 when every run passed, 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

ROOT = Path(__file__).resolve().parent.parent

#: The burner: spin, and stop as soon as the parent (this script) is gone.
BURNER = """
import os, sys
parent = int(sys.argv[1])
while True:
    for _ in range(200_000):
        pass
    if os.getppid() != parent:
        break
"""

#: pytest's last line, with or without ``-q``: "3 passed, 1 failed in 9.81s".
SUMMARY = re.compile(
    r"^=* ?(?P<summary>\d+ (passed|failed|errors?|skipped|deselected)\b.* in [\d.]+s\b.*?) ?=*$"
)


@dataclass(frozen=True, slots=True)
class Run:
    number: int
    exit_code: int
    seconds: float
    summary: str
    failures: tuple[str, ...]


@contextmanager
def burners(count: int) -> Iterator[list[subprocess.Popen[bytes]]]:
    """``count`` busy-loop processes, killed on the way out."""
    started: list[subprocess.Popen[bytes]] = []
    try:
        for _ in range(count):
            started.append(
                subprocess.Popen(
                    [sys.executable, "-c", BURNER, str(os.getpid())],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        yield started
    finally:
        for process in started:
            process.kill()
        for process in started:
            process.wait()


def run_pytest(number: int, args: list[str]) -> Run:
    """One run of the selection; its output goes through, and is kept for the summary."""
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args]
    started = time.monotonic()
    process = subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    assert process.stdout is not None
    summary = ""
    failures = []
    try:
        for line in process.stdout:
            sys.stdout.write(line)
            stripped = line.rstrip("\n")
            if match := SUMMARY.match(stripped):
                summary = match["summary"]
            if stripped.startswith(("FAILED ", "ERROR ")):
                failures.append(stripped)
        code = process.wait()
    finally:
        if process.poll() is None:
            process.terminate()
            process.wait()
    return Run(number, code, time.monotonic() - started, summary, tuple(failures))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--burners", type=int, default=2, help="busy-loop processes (default 2)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of the selection (default 1)")
    parser.add_argument("pytest_args", nargs=argparse.REMAINDER, help="the pytest selection")
    options = parser.parse_args(argv)
    args = [arg for arg in options.pytest_args if arg != "--"] or ["-q"]

    def stop(signum: int, frame: FrameType | None) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGHUP, stop)
    runs = []
    with burners(options.burners) as started:
        print(f"under load: {len(started)} burner(s) on {os.cpu_count()} CPU(s): pytest {args}")
        for number in range(1, options.repeat + 1):
            runs.append(run_pytest(number, args))
    print()
    print(f"=== {options.burners} burner(s), {len(runs)} run(s) of: pytest {' '.join(args)}")
    for run in runs:
        verdict = "pass" if run.exit_code == 0 else f"FAIL (exit {run.exit_code})"
        print(f"run {run.number}: {verdict} in {run.seconds:.1f}s: {run.summary}")
        for failure in run.failures:
            print(f"    {failure}")
    passed = sum(run.exit_code == 0 for run in runs)
    print(f"=== {passed}/{len(runs)} passed")
    return 0 if passed == len(runs) else 1


if __name__ == "__main__":
    sys.exit(main())
