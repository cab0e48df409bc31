"""The raw lines behind a trace, for the log pane: kept in memory for a live
run, read lazily from the file for an opened log.

A 50,000-exchange log has hundreds of thousands of lines: only their offsets
are kept (an ``array``), and lines are read back when they are drawn, as
toolong does. Textual-free so that loading can run in a worker thread.
"""

from __future__ import annotations

import mmap
import re
import threading
from array import array
from bisect import bisect_right
from collections import OrderedDict
from pathlib import Path
from typing import Protocol

from osdoctor.parse.lines import MAX_LINE, clean
from osdoctor.run.sessionfile import DataLine, parse_session_line
from osdoctor.secrets.keymaterial import (
    PEM_BEGIN,
    PEM_END,
    WRAP_MIN,
    continue_token,
    ends_in_token,
    is_pem_body,
)
from osdoctor.secrets.redact import MASK, SecretMemory, StreamRedactor, redact_line
from osdoctor.secrets.secretstream import TableColumns

#: Lines of a drawn window kept decoded, per store.
_CACHE = 2048
#: How far back a body line looks for its BEGIN line (a 4096-bit key is ~50 lines).
_KEY_LOOKBACK = 120
#: How many lines back a line looks for the token a terminal wrapped onto it (a
#: token of 250 characters wrapped at 72 columns takes four).
_WRAP_LOOKBACK = 8


class LineStore(Protocol):
    """Numbered lines (1-based, as in the trace) with the stream each came from."""

    def __len__(self) -> int: ...

    def text(self, number: int) -> str:
        """The line as shown: cleaned, without a session record's time and stream."""
        ...

    def fd(self, number: int) -> int:
        """1 stdout, 2 stderr, 0 unknown or metadata."""
        ...

    def find(self, pattern: str, start: int, backwards: bool = False) -> int | None:
        """The number of the next line (after/before ``start``) holding
        ``pattern``, case-insensitively, wrapping around; None when absent."""
        ...


def _shown(raw: str, session: bool) -> tuple[int, str]:
    if session:
        record = parse_session_line(raw)
        if isinstance(record, DataLine):
            return record.fd, record.text
    return 0, raw


class MemoryLines:
    """Lines of a live run, appended by the worker thread as they arrive.

    ``memory`` holds the secrets known from the command; ``bare_stdout`` says its
    standard output is bare secret values (``-f value -c secret``)."""

    def __init__(self, memory: SecretMemory | None = None, bare_stdout: bool = False) -> None:
        self._texts: list[str] = []
        self._fds: list[int] = []
        self._lock = threading.Lock()
        # The pane shows what the command printed, redacted like everything else;
        # a private key or a table printed over several lines is masked per
        # stream, and the streams learn the values masked together.
        shared = memory if memory is not None else SecretMemory()
        self._memory = shared
        self._redact = {
            fd: StreamRedactor(shared, bare=bare_stdout and fd == 1).feed for fd in (0, 1, 2)
        }

    def append(self, fd: int, text: str) -> None:
        with self._lock:
            self._texts.append(self._redact.get(fd, redact_line)(text))
            self._fds.append(fd)

    def __len__(self) -> int:
        return len(self._texts)

    def text(self, number: int) -> str:
        """The line, masked again with what was learnt after it arrived."""
        if 1 <= number <= len(self._texts):
            text = self._texts[number - 1]
            return self._memory.literals.mask(text) if self._memory.literals else text
        return ""

    def fd(self, number: int) -> int:
        if 1 <= number <= len(self._fds):
            return self._fds[number - 1]
        return 0

    def numbers_of(self, fd: int) -> list[int]:
        with self._lock:
            return [n for n, f in enumerate(self._fds, 1) if f == fd]

    def find(self, pattern: str, start: int, backwards: bool = False) -> int | None:
        needle = pattern.lower()
        total = len(self._texts)
        if not needle or not total:
            return None
        order = (
            list(range(start - 1, 0, -1)) + list(range(total, start - 1, -1))
            if backwards
            else list(range(start + 1, total + 1)) + list(range(1, start + 1))
        )
        for number in order:
            if needle in self._texts[number - 1].lower():
                return number
        return None


class FileLines:
    """Lines of a file on disk, located by offset and read when drawn.

    ``add_offset`` is called by the loading thread for each line start; the
    drawing thread reads. Appending to an ``array`` is atomic under the GIL.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offsets = array("q")
        self.session = False
        #: What the parser's redaction learnt from the file (values masked, hidden
        #: names): lines drawn are masked with it too.
        self.memory: SecretMemory | None = None
        #: The width the parser found the file's lines wrapped at, if any.
        self.wrap_width: int | None = None
        self._generation = 0
        self._end = 0
        self._cache: OrderedDict[int, tuple[int, str]] = OrderedDict()
        self._lock = threading.Lock()

    def add_offset(self, offset: int) -> None:
        self.offsets.append(offset)

    def set_end(self, offset: int) -> None:
        """The offset just past the last complete line read so far."""
        self._end = offset

    def __len__(self) -> int:
        return len(self.offsets)

    def _line(self, number: int) -> tuple[int, str]:
        if not 1 <= number <= len(self.offsets):
            return 0, ""
        with self._lock:
            memory = self.memory
            if memory is not None and memory.generation != self._generation:
                self._cache.clear()  # learnt more since these were drawn
                self._generation = memory.generation
            cached = self._cache.get(number)
            if cached is not None:
                self._cache.move_to_end(number)
                return cached
            start = self.offsets[number - 1]
            with self.path.open("rb") as handle:
                handle.seek(start)
                raw = handle.readline(MAX_LINE)
            text = clean(raw.decode("utf-8", "replace").rstrip("\n"))
            fd, shown = _shown(text, self.session)
            if memory is not None and memory.literals:
                shown = memory.literals.mask(shown)
            shown = redact_line(shown)
            if is_pem_body(shown) and self._inside_key(number):
                shown = MASK
            elif shown[:1] == "|":
                shown = self._table_row(number, shown)
            elif number > 1 and shown[:1].isalnum() and self._continues_a_token(number):
                shown = continue_token(shown)[0]
            value = (fd, shown)
            self._cache[number] = value
            if len(self._cache) > _CACHE:
                self._cache.popitem(last=False)
            return value

    def text(self, number: int) -> str:
        return self._line(number)[1]

    def fd(self, number: int) -> int:
        return self._line(number)[0]

    def _table_row(self, number: int, shown: str) -> str:
        """A table body row with its secret columns masked: the header is read back
        from the file (top border, header, border, then rows up to this one)."""
        before = self._before(number, _KEY_LOOKBACK)
        index = len(before) - 1
        while index >= 0 and before[index][:1] == "|":
            index -= 1  # the rows above this one
        if (
            index < 2
            or before[index][:1] != "+"
            or before[index - 1][:1] != "|"
            or before[index - 2][:1] != "+"
        ):
            return shown
        table = TableColumns()
        for text in (before[index - 2], before[index - 1], before[index]):
            table.feed(text, text)
        return table.feed(shown, shown)

    def _before(self, number: int, count: int) -> list[str]:
        """The ``count`` lines before line ``number`` as shown before redaction."""
        first = max(0, number - 1 - count)
        with self.path.open("rb") as handle:
            handle.seek(self.offsets[first])
            before = [
                clean(handle.readline(MAX_LINE).decode("utf-8", "replace").rstrip("\n"))
                for _ in range(number - 1 - first)
            ]
        if self.session:
            before = [_shown(text, True)[1] for text in before]
        return before

    def _continues_a_token(self, number: int) -> bool:
        """Whether line ``number`` begins with the rest of a token that a terminal
        wrapped from the line before (whose end was masked), as a stream's
        redaction reads it (``StreamRedactor``): the lines before are read back."""
        before = self._before(number, _WRAP_LOOKBACK)
        if not before or len(before[-1]) < WRAP_MIN:
            return False
        wrapped = False
        for text in before:
            if wrapped:
                wrapped = continue_token(text)[2]
            else:
                wrapped = ends_in_token(text, redact_line(text), self.wrap_width)
        return wrapped

    def _inside_key(self, number: int) -> bool:
        """Whether line ``number`` sits between a private key's BEGIN and END lines
        (the file is read back, as the lines are drawn one window at a time)."""
        first = max(0, number - 1 - _KEY_LOOKBACK)
        with self.path.open("rb") as handle:
            handle.seek(self.offsets[first])
            before = [handle.readline(MAX_LINE) for _ in range(number - 1 - first)]
        for raw in reversed(before):
            text = raw.decode("utf-8", "replace")
            if PEM_END.search(text):
                return False
            if PEM_BEGIN.search(text):
                return True
        return False

    def find(self, pattern: str, start: int, backwards: bool = False) -> int | None:
        """Searched in the file with ``re`` over a memory map: C speed on big logs."""
        if not pattern or not self.offsets:
            return None
        regex = re.compile(re.escape(pattern.encode("utf-8")), re.IGNORECASE)
        end = self._end or None
        with self.path.open("rb") as handle:
            try:
                data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
            except ValueError:  # empty file
                return None
            with data:
                limit = min(len(data), end) if end else len(data)
                if start >= len(self.offsets):
                    pivot = limit
                else:
                    pivot = self.offsets[start] if not backwards else self.offsets[start - 1]
                if backwards:
                    spans = [(0, pivot), (pivot, limit)]
                    for low, high in spans:
                        hits = list(regex.finditer(data, low, high))
                        if hits:
                            return bisect_right(self.offsets, hits[-1].start())
                    return None
                for low, high in ((pivot, limit), (0, pivot)):
                    hit = regex.search(data, low, high)
                    if hit is not None:
                        return bisect_right(self.offsets, hit.start())
        return None
