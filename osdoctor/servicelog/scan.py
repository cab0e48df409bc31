"""Finding a run's records in service logs of any size, in one pass and bounded memory.

A folder of logs may hold gigabytes; the run needs a few records: those that
name its request ids, and those a failed exchange may be tied to by time (the
warnings and errors of its service) or that say a service stopped (its last
``CRITICAL``). Each block of a file is searched at C speed for those lines
only (an id, or a level word); only they, and the lines that go on their
records (a traceback, a message's next lines), are decoded and read. What is
kept is bounded: records per id, records without one, the last words of each
service.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from osdoctor.secretstream import SecretMemory
from osdoctor.servicelog.reader import RecordReader
from osdoctor.servicelog.record import ServiceRecord
from osdoctor.servicelog.sources import blocks, open_log

#: Records kept per request id, and with an id in all.
PER_ID, WITH_ID = 200, 5000
#: Records without a wanted id (warnings and errors near a failed answer) kept at most.
LOOSE = 2000
#: CRITICAL records kept per service (the last ones).
LAST_WORDS = 5
#: Lines read after a line found, at most, for the rest of its record.
FOLLOW = 400
#: Request ids searched for by one alternation; more are found by their shape.
_ALTERNATION = 64
#: How far from a failed answer a record without an id may be kept: the hosts'
#: clocks may be in any zone.
REACH = 15 * 3600.0
#: Words of the lines a record without a wanted id may start with.
_LEVELS = (
    rb"\b(?:ERROR|CRITICAL|TRACE|WARNING|FATAL)\b|\[wsgi:error\]|\[(?:error|crit|alert|emerg)\]|"
    rb"\"(?:levelname|log_level)\": \"(?:ERROR|CRITICAL|WARNING)\"|"
    rb"Traceback \(most recent call last\)|unable to load app|no app loaded|"
    rb"no python application found|is DOWN|has no server available| (?:429|5\d\d) |"
    rb"\(HTTP/[\d.]+ (?:429|5\d\d)\)"
)
_ANY_ID = rb"req-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"


@dataclass(slots=True)
class Wanted:
    """What a run asks of the service logs."""

    ids: frozenset[str] = frozenset()
    """Its request ids (the answers', the client's printed ones)."""
    times: tuple[float, ...] = ()
    """When its failed exchanges were answered (their ``Date``), seconds since the epoch."""

    @property
    def empty(self) -> bool:
        return not self.ids and not self.times


@dataclass(slots=True)
class Found:
    """The records a scan kept, and what it could not keep or read."""

    records: list[ServiceRecord] = field(default_factory=list)
    files: int = 0
    bytes: int = 0
    dropped: int = 0
    """Records past the bounds, counted."""
    problems: list[str] = field(default_factory=list)


class _Keeper:
    """The bounds: records by id, the loose ones nearest a failed answer, the last
    CRITICALs of each service."""

    def __init__(self, wanted: Wanted) -> None:
        self.wanted = wanted
        self.by_id: list[ServiceRecord] = []
        self.per_id: dict[str, int] = {}
        self.loose: list[tuple[float, int, ServiceRecord]] = []
        self.last: dict[str, list[ServiceRecord]] = {}
        self.untimed: dict[str, list[ServiceRecord]] = {}
        self.dropped = 0
        self._count = 0

    def add(self, record: ServiceRecord) -> None:
        ids = self.wanted.ids
        for rid in (record.request_id, record.global_request_id):
            if rid and rid in ids:
                seen = self.per_id.get(rid, 0)
                if seen >= PER_ID or len(self.by_id) >= WITH_ID:
                    self.dropped += 1
                    return
                self.per_id[rid] = seen + 1
                self.by_id.append(record)
                return
        if record.level == "CRITICAL":
            kept = self.last.setdefault(record.service, [])
            kept.append(record)
            if len(kept) > LAST_WORDS:
                del kept[0]
        if record.time is None and record.level in ("ERROR", "CRITICAL"):
            # A bare traceback, a WSGI server's own words: no time to tie them by,
            # but the record after them in the file may have one.
            kept = self.untimed.setdefault(record.source, [])
            kept.append(record)
            if len(kept) > LAST_WORDS * 4:
                del kept[0]
            return
        distance = self._distance(record)
        if distance is None:
            return
        self._count += 1
        item = (-distance, self._count, record)  # a max-heap of the distances
        if len(self.loose) < LOOSE:
            heapq.heappush(self.loose, item)
        else:
            self.dropped += 1
            heapq.heappushpop(self.loose, item)

    def _distance(self, record: ServiceRecord) -> float | None:
        if record.level not in ("WARNING", "ERROR", "CRITICAL") or record.time is None:
            return None
        if record.yearless:
            return 0.0  # the join decides, in the answer's year
        best = min((abs(record.time - t) for t in self.wanted.times), default=None)
        return best if best is not None and best <= REACH else None

    def records(self) -> list[ServiceRecord]:
        kept = {id(r): r for r in self.by_id}
        for _d, _n, record in self.loose:
            kept.setdefault(id(record), record)
        for group in (self.last, self.untimed):
            for records in group.values():
                for record in records:
                    kept.setdefault(id(record), record)
        return sorted(kept.values(), key=lambda r: (r.source, r.line))


def _hit_pattern(ids: Iterable[str], times: bool) -> re.Pattern[bytes] | None:
    """The lines worth reading: a wanted id's (by alternation when they are few,
    else by the shape of any id), and, when failed answers have times, a level
    word's. Built from the log's ids, so ``re`` and not the source cache."""
    ids = sorted(ids)
    parts = []
    if ids:
        if len(ids) <= _ALTERNATION:
            parts.append(b"|".join(re.escape(i.encode()) for i in ids))
        else:
            parts.append(_ANY_ID)
    if times:
        parts.append(_LEVELS)
    if not parts:
        return None
    return re.compile(b"|".join(b"(?:" + p + b")" for p in parts))


def scan(
    files: Iterable[Path],
    wanted: Wanted,
    memory: SecretMemory | None = None,
    progress: Callable[[int], None] | None = None,
) -> Found:
    """The records of ``files`` the run wants (see ``Wanted``), redacted."""
    found = Found()
    keeper = _Keeper(wanted)
    pattern = _hit_pattern(wanted.ids, bool(wanted.times))
    if pattern is None:
        return found
    for path in files:
        found.files += 1
        try:
            with open_log(path) as stream:
                found.bytes += _scan_file(path, stream, pattern, keeper, memory, progress)
        except (OSError, EOFError, ValueError) as error:
            found.problems.append(f"{path}: cannot read ({error})")
    found.records = keeper.records()
    found.dropped = keeper.dropped
    return found


def _scan_file(
    path: Path,
    stream: object,
    pattern: re.Pattern[bytes],
    keeper: _Keeper,
    memory: SecretMemory | None,
    progress: Callable[[int], None] | None,
) -> int:
    reader = RecordReader(keeper.add, str(path), memory=memory)
    number = 0  # lines before the block
    size = 0
    for block in blocks(stream):  # type: ignore[arg-type]
        size += len(block)
        counted, counted_at = number, 0  # lines before ``counted_at``
        pos, end = 0, len(block)
        if number and reader.open_until == number:
            pos = _follow(reader, block, -1, number, pattern) + 1  # a record the block cut
        while pos < end:
            m = pattern.search(block, pos)
            if m is None:
                break
            start = block.rfind(b"\n", 0, m.start()) + 1
            counted += block.count(b"\n", counted_at, start)
            counted_at = start
            stop = block.find(b"\n", start)
            stop = end if stop < 0 else stop
            reader.feed(counted + 1, block[start:stop].decode("utf-8", "replace"))
            pos = _follow(reader, block, stop, counted + 1, pattern) + 1
        number += block.count(b"\n")
        if progress is not None:
            progress(size)
    reader.finish()
    return size


def _follow(
    reader: RecordReader, block: bytes, stop: int, line_no: int, pattern: re.Pattern[bytes]
) -> int:
    """Feed the lines after a line found while they go on its record (no line of
    their own starts a record) and are no hit themselves; returns where the last
    line fed ends."""
    end = len(block)
    for _ in range(FOLLOW):
        start = stop + 1
        if start >= end:
            break
        nxt = block.find(b"\n", start)
        nxt = end if nxt < 0 else nxt
        raw = block[start:nxt]
        if pattern.search(raw):
            break  # found on its own: read when the search reaches it
        text = raw.decode("utf-8", "replace")
        if not reader.goes_on(text):
            break
        line_no += 1
        reader.feed(line_no, text)
        stop = nxt
    return stop
