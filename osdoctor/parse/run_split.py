"""Where a new client invocation starts in a log that holds several.

A ``--log-file`` that collected a day of commands, a CI job that ran fifty
``openstack`` commands, a ticket with three attempts pasted one after the
other: each invocation must be diagnosed on its own. An invocation announces
itself, from the outside in:

- rank 0: the command line a user typed (a shell prompt, an xtrace line, a
  bare ``openstack ...`` line; see ``parse.commands``), or an osdoctor session
  header;
- rank 1: osc's ``START with options`` echo, the heat shell's deprecation
  warning that names its subcommand;
- rank 2: a cliff command's ``run(Namespace(...))`` line, the first words of
  the standalone ``baremetal`` shell.

A mark starts a new run when the current run already holds a mark of the
same rank or a later one, or has done something (sent a request, printed a
traceback, logged ``END return value``): so ``$ openstack server list``
followed by its own ``START with options`` stays one run. A change of the pid
in an osc-lib ``--log-file`` prefix starts a new run too (a service's log
line pasted in between, with its own pid, does not).

The detector works on the undecoded blocks the parser's fast path reads, and
looks only at lines a regular expression singles out, so that a 200 MB log of
one run costs a few scans at C speed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from osdoctor import regex
from osdoctor.parse.commands import recognise
from osdoctor.parse.lines import decode_line
from osdoctor.parse.prefixes import PrefixStripper, _is_server_logger
from osdoctor.run.programs import PROGRAMS

#: The words of the lines that may mark an invocation's start (``_mark_rank`` says
#: which do), each found with ``bytes.find``: none holds a line break, so the
#: first found on a line is the first of the line, as a pattern's would be.
_MARKS = (
    b"START with options",
    b"#osdoctor-session",
    b'" is deprecated, please use "',
    b" run(Namespace(",
    b"Using bare metal API version ",
)
#: A program name on a command line is what ``PROGRAM_PATTERN`` matches: a name
#: with a space after it, at the start of a run of path bytes (``[\w./\-]``), alone
#: or after a path (``/usr/bin/openstack``). It is not searched for as such (its
#: look-behind would be tried at every byte) but each name with its space is found
#: with ``bytes.find``, and ``_program_starts`` says where the pattern would have
#: matched. That holds because no name holds a byte outside ``[\w.\-]``: a name
#: with its space ends the run of path bytes it is in, one candidate per run.
PROGRAM_PATTERN = (
    rb"(?<![\w./\-])(?:/[\w./\-]*/)?(?:"
    + b"|".join(re.escape(p.encode()) for p in sorted(PROGRAMS, key=len, reverse=True))
    + rb")(?= )"
)
_NAMES = tuple(p.encode() + b" " for p in sorted(PROGRAMS))
#: The bytes of ``[\w./\-]``, by value.
_PATH_BYTE = tuple(chr(b).isascii() and (chr(b).isalnum() or chr(b) in "_./-") for b in range(256))
_SLASH = ord("/")
assert all(all(_PATH_BYTE[b] and b != _SLASH for b in name[:-1]) for name in _NAMES)
#: The run of path bytes that ends where a program name begins.
_PATH_TAIL = regex.compile(rb"(?<![\w./\-])[\w./\-]+\Z")
_ACTIVITY = regex.compile(
    rb"REQ: |RESP: |RESP STATUS|Traceback \(most recent|END return value|"
    rb"Making authentication request|HTTP/1\.[01]\" \d{3}"
)
_TIMESTAMP = rb"(?:> ?)*\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:[+-]\d\d:?\d\d|Z)? "
_LEVELS = rb"(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|TRACE):? +([\w.\-]+)"
_ANY_PID = regex.compile(rb"(?m)^" + _TIMESTAMP + rb"(\d+) " + _LEVELS)
_ANY_PID_AFTER = regex.compile(rb"\n" + _TIMESTAMP + rb"(\d+) " + _LEVELS)
_BREAK = ord("\n")
_ANSI = regex.compile(rb"\x1b\[[0-9;?]*[ -/]*[@-~]")
#: Text before a program name on a command line: a prompt, an xtrace mark, a
#: quote, ``sudo``/``time``/``env VAR=x``.
_BEFORE_PROGRAM = (b"$", b"#", b"+", b">", b"`", b'"', b"(", b"\xe2\x80\x9c", b"sudo", b"time")
#: A command line is short: a program name further into its line is prose or a header.
_MAX_BEFORE = 200


@dataclass(slots=True)
class _Run:
    rank: int = -1
    active: bool = False
    pid: bytes | None = None
    heat: str = ""
    """The heat shell subcommand the run's deprecation warning named."""


class RunSplitter:
    """Feed it the blocks of a log in order (:meth:`cuts`); it answers where in
    each block a new run begins."""

    def __init__(self) -> None:
        self._run = _Run()
        self._strip = PrefixStripper()
        self._heat: dict[int, str] = {}

    def cuts(self, data: bytes) -> list[int]:
        """Offsets in ``data`` (a block of whole lines) of the lines that start a new
        run, in order. Offset 0 is a cut only when a run was already under way."""
        events: dict[int, tuple[int, bytes | None]] = dict(self._marks(data))
        if b" DEBUG" in data or b" INFO" in data or b" ERROR" in data or b" WARN" in data:
            for start, new_pid in self._pids(data):
                rank, _none = events.get(start, (-1, None))
                events[start] = (rank, new_pid)
        run = self._run
        if not events:
            if not run.active and _ACTIVITY.search(data):
                run.active = True
            return []
        cuts: list[int] = []
        scanned = 0
        for start in sorted(events):
            rank, pid = events[start]
            heat = self._heat.get(start, "")
            if heat == "stack-list" and run.heat not in ("", "stack-list"):
                # stack-create, -update, -adopt... list the stacks when done, and
                # warn again for it: the same run.
                rank = -1
            if not run.active and scanned < start and _ACTIVITY.search(data, scanned, start):
                run.active = True
            scanned = start
            other_pid = pid is not None and run.pid is not None and pid != run.pid
            again = rank >= 0 and (run.rank >= rank or run.active)
            if not (other_pid or again) or (run.rank < 0 and not run.active and run.pid is None):
                run.rank = max(run.rank, rank)
                run.pid = run.pid or pid
                run.heat = run.heat or heat
                continue
            cuts.append(start)
            # A mark in the same --log-file (the same pid) keeps the pid.
            run = self._run = _Run(rank=rank, pid=pid or run.pid, heat=heat)
        if not run.active and _ACTIVITY.search(data, scanned):
            run.active = True
        return cuts

    def _marks(self, data: bytes) -> dict[int, tuple[int, bytes | None]]:
        """The lines that mark an invocation's start, with their rank. Each line is
        looked at once and only in its first ``_MAX_BEFORE`` bytes, so that a long
        line full of program names costs its length, not its length squared."""
        found: dict[int, int] = {}
        self._heat.clear()
        end = -1
        for at in sorted(_occurrences(data, _MARKS)):
            if at <= end:
                continue  # the line is decided
            start = data.rfind(b"\n", 0, at) + 1
            end = _end(data, at)
            rank = self._mark_rank(start, _line(data, start))
            if rank is not None:
                found[start] = rank
        start, end = 0, -1
        for at in _program_starts(data):
            if at > end:
                start, end = data.rfind(b"\n", 0, at) + 1, _end(data, at)
            if start in found or at - start > _MAX_BEFORE:
                continue
            before = data[start:at]
            if b"\x1b" in before:
                before = _ANSI.sub(b"", before)  # a coloured prompt
            before = before.rstrip()
            if before and not (before.endswith(_BEFORE_PROGRAM) or b"=" in before[-40:]):
                continue
            text = self._strip.strip(_line(data, start)).text
            recognised = recognise(text)
            if recognised is not None and recognised[1] != "unknown":
                found[start] = 0
        return {start: (rank, None) for start, rank in found.items()}

    def _mark_rank(self, start: int, line: str) -> int | None:
        if line.startswith("#osdoctor-session"):
            return 0
        text = self._strip.strip(line).text
        if text.startswith("START with options"):
            return 1
        if text.startswith('WARNING (shell) "heat ') or text.startswith('"heat '):
            if '" is deprecated, please use "' not in text:
                return None
            self._heat[start] = text.partition('"heat ')[2].partition('"')[0]
            return 1
        if text.startswith("Using bare metal API version "):
            return 2
        if " run(Namespace(" in text and text.split(" ", 1)[0].startswith("ironicclient."):
            return 2
        return None

    def _pids(self, data: bytes) -> list[tuple[int, bytes]]:
        """The log-file lines whose pid differs from the one before (the first
        one, then the first of each new pid); a service's lines do not count."""
        events: list[tuple[int, bytes]] = []
        pos = 0
        pid = self._run.pid
        at_line: re.Pattern[bytes] | regex.Pattern[bytes]
        after_break: re.Pattern[bytes] | regex.Pattern[bytes]
        while True:
            if pid is None:
                at_line, after_break = _ANY_PID, _ANY_PID_AFTER
            else:
                # re caches the patterns: a pid changes once per run.
                other = _TIMESTAMP + rb"(?!" + pid + rb" )(\d+) " + _LEVELS
                at_line, after_break = re.compile(rb"(?m)^" + other), re.compile(rb"\n" + other)
            # The first line from ``pos`` on that matches: the one at ``pos``, or one
            # after a line break, found at C speed (``^`` is tried at every byte).
            m = at_line.match(data, pos) if pos == 0 or data[pos - 1] == _BREAK else None
            if m is not None:
                start = m.start()
            else:
                m = after_break.search(data, pos)
                if m is None:
                    return events
                start = m.start() + 1
            pos = m.end()
            if _is_server_logger(m.group(2).decode("ascii", "replace")):
                continue
            pid = m.group(1)
            events.append((start, pid))
            if len(events) > 10000:
                return events


def _occurrences(data: bytes, words: tuple[bytes, ...]) -> list[int]:
    """Where each of ``words`` is in ``data`` (those that overlap one of the same
    word found before left out)."""
    found: list[int] = []
    find = data.find
    for word in words:
        at = find(word)
        while at >= 0:
            found.append(at)
            at = find(word, at + len(word))
    return found


def _program_starts(data: bytes) -> list[int]:
    """Where ``PROGRAM_PATTERN`` matches in ``data``, in order (``m.start()`` of each
    match of its ``finditer``); some further than ``_MAX_BEFORE`` into their line,
    which ``_marks`` passes over, may be left out."""
    starts: set[int] = set()
    find = data.find
    for name in _NAMES:
        at = find(name)
        while at >= 0:
            # A match starts where its run of path bytes does: at the name, or at
            # the first slash of a path whose last slash is just before the name.
            if at == 0 or not _PATH_BYTE[data[at - 1]]:
                starts.add(at)
            elif data[at - 1] == _SLASH:
                line = data.rfind(b"\n", 0, at) + 1
                tail = _PATH_TAIL.search(data, line, at)
                if (
                    tail is not None
                    and tail.start() < at - 1
                    and data[tail.start()] == _SLASH
                    and tail.start() - line <= _MAX_BEFORE
                ):
                    starts.add(tail.start())
            at = find(name, at + len(name))
    return sorted(starts)


def _end(data: bytes, at: int) -> int:
    """Where the line holding ``at`` ends (its newline, or the block's end)."""
    end = data.find(b"\n", at)
    return end if end >= 0 else len(data)


def _line(data: bytes, start: int) -> str:
    return decode_line(data[start : min(_end(data, start), start + 4096)])
