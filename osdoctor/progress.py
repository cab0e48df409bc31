"""A one-line progress report on the terminal while a big log is read.

``osdoctor explain`` on a log of hundreds of megabytes takes seconds; silence
that long looks like a hang in the middle of an incident. The line appears
only after half a second (a small log shows nothing), is redrawn at most four
times a second, and is erased before the report is printed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import BinaryIO, TextIO

#: Seconds of reading before the line appears, and between two redraws.
SHOW_AFTER = 0.5
REDRAW_EVERY = 0.25


class Progress:
    """Call it with the bytes read so far; ``close`` erases the line."""

    def __init__(
        self,
        stream: TextIO,
        label: str,
        total: int | None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream
        self.label = label
        self.total = total
        self.clock = clock
        self.started = clock()
        self.drawn_at: float | None = None

    def __call__(self, done: int) -> None:
        now = self.clock()
        if now - self.started < SHOW_AFTER:
            return
        if self.drawn_at is not None and now - self.drawn_at < REDRAW_EVERY:
            return
        self.drawn_at = now
        mb = done / 1e6
        if self.total:
            text = f"{self.label}: {mb:,.0f} of {self.total / 1e6:,.0f} MB read"
        else:
            text = f"{self.label}: {mb:,.0f} MB read"
        self.stream.write(f"\r\x1b[K{text}")
        self.stream.flush()

    def close(self) -> None:
        if self.drawn_at is not None:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


class CountingReader:
    """A binary stream that reports how many bytes were read from it."""

    def __init__(self, stream: BinaryIO, report: Callable[[int], None]) -> None:
        self._stream = stream
        self._report = report
        self.done = 0

    def read(self, size: int = -1) -> bytes:
        data = self._stream.read(size)
        self.done += len(data)
        self._report(self.done)
        return data
