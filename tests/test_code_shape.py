"""The tree stays in the shape the project agreed on: ruff-clean, ruff-formatted, mypy --strict.

These run in the test command so that a change which breaks the shape fails where every
other defect fails, rather than in a separate step somebody forgets.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )


def test_ruff_finds_nothing() -> None:
    done = _run("ruff", "check", "--no-cache", "--output-format", "concise", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_tree_is_ruff_formatted() -> None:
    done = _run("ruff", "format", "--no-cache", "--check", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_strict_finds_nothing() -> None:
    # incremental, from the last run's cache (.mypy_cache): only what changed is checked again
    done = _run("mypy")
    assert done.returncode == 0, done.stdout + done.stderr
