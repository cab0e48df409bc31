"""Starting tests/helpers/child.py from a test, and stepping it through a FIFO."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

CHILD = str(Path(__file__).with_name("child.py"))
#: The longest any runner test waits for an event, in seconds: a bound, never a delay.
TIMEOUT = 30.0


def child(*args: str) -> list[str]:
    """The argv that runs child.py in ``args[0]`` mode."""
    return [sys.executable, CHILD, *args]


@contextmanager
def gate(folder: Path) -> Iterator[tuple[str, int]]:
    """A FIFO the child reads its steps from, and the test's end to write them.

    Opened read-write, so neither side blocks waiting for the other to open.
    """
    path = folder / "gate"
    os.mkfifo(path)
    fd = os.open(path, os.O_RDWR)
    try:
        yield str(path), fd
    finally:
        os.close(fd)
