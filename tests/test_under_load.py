"""benchmarks/under_load.py: its CPU burners never outlive it.

The script loads a shared machine on purpose; a burner left behind would go on
loading it. Waits here are for a process to be gone (checked in /proc, with a
bound), never for a time.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

from tests.helpers.children import TIMEOUT

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "under_load.py"


def _module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("under_load", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("under_load", module)  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state not in (b"Z", b"X")


def _gone_within(pid: int, bound: float) -> bool:
    end = time.monotonic() + bound
    while _running(pid):
        if time.monotonic() > end:
            return False
        os.sched_yield()
    return True


def test_the_burners_run_inside_the_block_and_are_killed_after_it() -> None:
    with _module().burners(2) as started:
        pids = [process.pid for process in started]
        assert all(process.poll() is None for process in started)
    assert not any(_running(pid) for pid in pids)


def test_a_burner_ends_by_itself_when_the_script_is_killed() -> None:
    """SIGKILL leaves no finally to run: the burner sees its parent gone."""
    code = (
        "import importlib.util, os, signal, sys\n"
        f"spec = importlib.util.spec_from_file_location('u', {str(SCRIPT)!r})\n"
        "module = sys.modules['u'] = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(module)\n"
        "with module.burners(1) as started:\n"
        "    print(started[0].pid, flush=True)\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    script = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert script.stdout is not None
    burner = int(script.stdout.readline())
    try:
        assert script.wait(TIMEOUT) == -signal.SIGKILL
        assert _gone_within(burner, TIMEOUT), "the burner outlived the script"
    finally:
        if _running(burner):  # never leave one loading the machine
            os.kill(burner, signal.SIGKILL)
