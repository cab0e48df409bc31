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

from osdoctor.secrets.secretstream import SecretMemory
from osdoctor.servicelog.join import BEFORE, LATER
from osdoctor.servicelog.reader import RecordReader
from osdoctor.servicelog.record import ServiceRecord
from osdoctor.servicelog.shapes import epoch
from osdoctor.servicelog.sources import blocks, open_log

#: Records kept per request id, and with an id in all.
PER_ID, WITH_ID = 200, 5000
#: Records without a wanted id (warnings and errors near a failed answer) kept at most.
LOOSE = 2000
#: CRITICAL records kept per service (the last ones).
LAST_WORDS = 5
#: Lines read after a line found, at most, for the rest of its record.
FOLLOW = 400
#: Request ids searched for one by one; more are found by their shape ("req-"),
#: each looked up in the set.
_LITERAL_IDS = 64
#: How far from a failed answer a record without an id may be kept: the hosts'
#: clocks may be in any zone.
REACH = 15 * 3600.0
#: What a record without a wanted id may start with: a level word (whole), a
#: web server's error mark, uWSGI's and HAProxy's words for a failure, a status.
_WORDS = (b"ERROR", b"CRITICAL", b"TRACE", b"WARNING", b"FATAL")
_MARKS = (
    b"error]",
    b"crit]",
    b"alert]",
    b"emerg]",
    b"Traceback (most recent call last)",
    b"unable to load app",
    b"no app loaded",
    b"no python application found",
    b"is DOWN",
    b"has no server available",
)
_STATUSES = (b" 500", b" 502", b" 503", b" 504", b" 429")
_ID = re.compile(rb"req-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_STAMP = re.compile(rb"(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)")
_ALNUM = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


class Finder:
    """The next line worth reading in a block: one holding a wanted request id,
    or (when failed answers have times) a level word or a failure's mark. Each
    needle is looked for with ``bytes.find`` from where it was last found, so a
    block is passed over once per needle, at C speed."""

    def __init__(self, ids: frozenset[str], times: bool) -> None:
        self.ids = ids
        self.literal = [i.encode() for i in sorted(ids)] if len(ids) <= _LITERAL_IDS else []
        self.any_id = len(ids) > _LITERAL_IDS
        self.words = _WORDS if times else ()
        self.marks = (*_MARKS, *_STATUSES) if times else ()
        # (needle, kind): 0 a literal id, 1 the shape of an id, 2 a word, 3 a mark.
        needles = [(n, 0) for n in self.literal]
        if self.any_id:
            needles.append((b"req-", 1))
        needles += [(n, 2) for n in self.words]
        needles += [(n, 3) for n in self.marks]
        self.needles = needles

    @property
    def empty(self) -> bool:
        return not self.needles

    def accepts(self, block: bytes, at: int, needle: bytes, kind: int) -> bool:
        """Whether the needle found at ``at`` is a hit, not a piece of another word."""
        if kind == 0:
            return True
        if kind == 1:
            m = _ID.match(block, at)
            return m is not None and m.group().decode() in self.ids
        end = at + len(needle)
        if kind == 2:
            before = block[at - 1] if at else 32
            after = block[end] if end < len(block) else 32
            return before not in _ALNUM and after not in _ALNUM
        if needle in _STATUSES:
            return end < len(block) and block[end] in b" )"
        return True

    def next(self, block: bytes, pos: int, found: dict[bytes, int]) -> int:
        """The start of the next hit at or after ``pos``, -1 for none. ``found``
        remembers, per needle, where it was last seen in this block."""
        best = -1
        for needle, kind in self.needles:
            at = found.get(needle, -2)
            while at != -1 and (at < pos or not self.accepts(block, at, needle, kind)):
                at = block.find(needle, max(pos, at + 1) if at >= pos else pos)
                if at != -1 and self.accepts(block, at, needle, kind):
                    break
            found[needle] = at
            if at != -1 and (best == -1 or at < best):
                best = at
        return best

    def names_an_id(self, line: bytes) -> bool:
        """Whether a line holds one of the wanted request ids."""
        if self.any_id:
            return any(m.group().decode() in self.ids for m in _ID.finditer(line))
        return any(i in line for i in self.literal)

    def hit(self, line: bytes) -> bool:
        """Whether a whole line holds a hit (lines followed after one found)."""
        for needle, kind in self.needles:
            at = line.find(needle)
            while at != -1:
                if self.accepts(line, at, needle, kind):
                    return True
                at = line.find(needle, at + 1)
        return False


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


def scan(
    files: Iterable[Path],
    wanted: Wanted,
    memory: SecretMemory | None = None,
    progress: Callable[[int], None] | None = None,
) -> Found:
    """The records of ``files`` the run wants (see ``Wanted``), redacted."""
    found = Found()
    keeper = _Keeper(wanted)
    finder = Finder(wanted.ids, bool(wanted.times))
    if finder.empty:
        return found
    for path in files:
        found.files += 1
        try:
            with open_log(path) as stream:
                found.bytes += _scan_file(path, stream, finder, keeper, memory, progress)
        except (OSError, EOFError, ValueError) as error:
            found.problems.append(f"{path}: cannot read ({error})")
    found.records = keeper.records()
    found.dropped = keeper.dropped
    return found


def _scan_file(
    path: Path,
    stream: object,
    finder: Finder,
    keeper: _Keeper,
    memory: SecretMemory | None,
    progress: Callable[[int], None] | None,
) -> int:
    reader = RecordReader(keeper.add, str(path), memory=memory)
    times = keeper.wanted.times
    number = 0  # lines before the block
    size = 0
    for block in blocks(stream):  # type: ignore[arg-type]
        size += len(block)
        counted, counted_at = number, 0  # lines before ``counted_at``
        pos, end = 0, len(block)
        if number and reader.open_until == number:
            pos = _follow(reader, block, -1, number, finder) + 1  # a record the block cut
        seen: dict[bytes, int] = {}
        while pos < end:
            at = finder.next(block, pos, seen)
            if at == -1:
                break
            start = block.rfind(b"\n", 0, at) + 1
            counted += block.count(b"\n", counted_at, start)
            counted_at = start
            stop = block.find(b"\n", start)
            stop = end if stop < 0 else stop
            line = block[start:stop]
            if not finder.names_an_id(line) and far(line, times):
                pos = stop + 1  # a warning of another day
                continue
            reader.feed(counted + 1, line.decode("utf-8", "replace"))
            pos = _follow(reader, block, stop, counted + 1, finder) + 1
        number += block.count(b"\n")
        if progress is not None:
            progress(size)
    reader.finish()
    return size


def far(line: bytes, times: tuple[float, ...]) -> bool:
    """Whether a line that starts with its time (oslo.log's) is at no time the join
    could tie to a failed answer: not within the join's window of it, at any
    whole or half hour away (the host's zone is not known). Such a line is read
    no further: a log of days holds few lines of the minutes that matter. A
    CRITICAL may be a service's last words, whenever they were."""
    m = _STAMP.match(line)
    if m is None or not times or b"CRITICAL" in line:
        return False
    y, mo, d, h, mi, s = (int(x) for x in m.groups())
    t = epoch(y, mo, d, h, mi, s)
    for w in times:
        gap = t - w
        k = round(gap / 1800)
        if abs(k) <= 28 and -BEFORE - 5 <= gap - k * 1800 <= LATER + 5:
            return False
    return True


def _follow(reader: RecordReader, block: bytes, stop: int, line_no: int, finder: Finder) -> int:
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
        if finder.hit(raw):
            break  # found on its own: read when the search reaches it
        text = raw.decode("utf-8", "replace")
        if not reader.goes_on(text):
            break
        line_no += 1
        reader.feed(line_no, text)
        stop = nxt
    return stop
