"""The session file format: the one place that knows how a session is written and read.

A session is one run of a client command, recorded as it happens (the writer
is ``osdoctor.run.session``); it is plain UTF-8 text, one record per line, so the
log parser reads it like any other log::

    #osdoctor-session 1
    #command ["openstack", "--debug", "server", "show", "x"]
    #started 2026-11-30T02:00:58Z
    0.004 2 REQ: curl -g -i -X GET http://...
    0.010 1 +--------+
    #note stdin is not a terminal: the client could not prompt
    #exit 1 12.345

Data lines are ``<seconds> <fd> <text>``: the arrival time in seconds since
the start with three decimals, the stream (1 stdout, 2 stderr), one space, and
the text without its line ending. Characters that text readers take as line
ends (``\\r``, ``\\v``, ``\\f``, ``\\x1c``-``\\x1e``, ``\\x85``, ``\\u2028``,
``\\u2029``) are written as those backslash escapes, so one record stays one
line.

Metadata lines start with ``#`` (``META_KEYS`` are the ones written):

- ``#osdoctor-session <version>``: always the first line;
- ``#command <JSON array>``: the argv as run, redacted;
- ``#started <UTC time>``: wall-clock start, ISO 8601 with ``Z``;
- ``#split <fd>``: the previous line of that stream was longer than the
  runner's bound and was cut; the next line of the stream continues it;
- ``#note <text>``: something the output does not say (a failed prompt...);
- ``#cancelled <signal name> <seconds>``: osdoctor sent that signal to the
  command's process group (one line per signal of a cancel);
- ``#exit <code> <seconds>``: the exit status (128+N for signal N) and the
  duration; always the last line of a complete session. A session without it
  was cut short (osdoctor stopped first).

Nothing here imports the rest of osdoctor: the parser, the writer and the
screens all read the format from this module, so that they cannot drift apart.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from osdoctor import regex

if TYPE_CHECKING:
    # Imported where a start time is written or read: a plain log never needs it.
    from datetime import datetime

#: Version written in, and accepted from, the first line.
FORMAT_VERSION = 1
MAGIC = "#osdoctor-session"
#: File name suffix: sessions are logs, and open as such.
SUFFIX = ".session.log"
#: The metadata keys a session holds (the magic line's included).
META_KEYS = frozenset(
    {"osdoctor-session", "command", "started", "split", "note", "cancelled", "exit"}
)
_TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"

_LINE_BREAKS = str.maketrans(
    {
        "\r": "\\r",
        "\v": "\\v",
        "\f": "\\f",
        "\x1c": "\\x1c",
        "\x1d": "\\x1d",
        "\x1e": "\\x1e",
        "\x85": "\\x85",
        "\u2028": "\\u2028",
        "\u2029": "\\u2029",
    }
)

#: A data line, as written: three decimals, the stream, one space and the text.
DATA_LINE = regex.compile(r"(\d+\.\d{3}) ([12])(?: (.*))?\Z", re.DOTALL)


class SessionFormatError(Exception):
    """The text is not an osdoctor session; the message is one line."""


@dataclass(frozen=True, slots=True)
class DataLine:
    """One recorded line of output."""

    time: float
    fd: int
    text: str


@dataclass(frozen=True, slots=True)
class MetaLine:
    """One ``#key value`` record."""

    key: str
    value: str


@dataclass(frozen=True, slots=True)
class SessionHeader:
    """What the first lines of a session say about the run."""

    version: int
    command: tuple[str, ...]
    started: datetime | None


# -- writing ------------------------------------------------------------------
def one_line(text: str) -> str:
    """``text`` with every line break escaped, so that it stays one record."""
    return text.translate(_LINE_BREAKS)


def header_records(command_json: str, started: datetime) -> list[str]:
    """The first three lines (without line endings): magic, command, start time."""
    from datetime import UTC

    stamp = started.astimezone(UTC).strftime(_TIME_FORMAT)
    return [f"{MAGIC} {FORMAT_VERSION}", f"#command {command_json}", f"#started {stamp}"]


def data_record(time: float, fd: int, text: str) -> str:
    return f"{time:.3f} {fd} {one_line(text)}"


def split_record(fd: int) -> str:
    return f"#split {fd}"


def note_record(text: str) -> str:
    return f"#note {one_line(text.replace(chr(10), ' '))}"


def cancelled_record(signal_name: str, seconds: float) -> str:
    return f"#cancelled {signal_name} {seconds:.3f}"


def exit_record(code: int, duration: float) -> str:
    return f"#exit {code} {duration:.3f}"


# -- reading ------------------------------------------------------------------
def parse_session_line(line: str) -> DataLine | MetaLine | None:
    """Parse one line of a session; None when it is neither record kind.

    A trailing line ending is ignored. Unknown ``#`` keys parse as MetaLine,
    so newer writers stay readable.
    """
    line = line.rstrip("\n")
    if line.endswith("\r"):
        line = line[:-1]
    if line.startswith("#"):
        key, _, value = line[1:].partition(" ")
        if not key:
            return None
        return MetaLine(key, value)
    match = DATA_LINE.match(line)
    if match is None:
        return None
    return DataLine(float(match[1]), int(match[2]), match[3] or "")


def data_fd(line: str) -> int | None:
    """The stream of a data line (1 or 2), None for any other line; cheap enough
    to ask of every line of a big session."""
    if not line[:1].isdigit():
        return None
    match = DATA_LINE.match(line)
    return int(match[2]) if match is not None else None


def meta_record(line: str) -> tuple[str, str] | None:
    """``(key, value)`` of a metadata line with one of ``META_KEYS``, else None."""
    if not line.startswith("#"):
        return None
    key, _, value = line[1:].partition(" ")
    return (key, value) if key in META_KEYS else None


def is_session(first_line: str) -> bool:
    """True when ``first_line`` opens an osdoctor session."""
    return first_line.startswith(MAGIC + " ") or first_line.rstrip("\r\n") == MAGIC


def read_session_header(lines: Iterable[str]) -> SessionHeader:
    """Read the header from the first lines of a session.

    Stops at the first data line. Raises SessionFormatError when the first
    line is not ``#osdoctor-session`` or names a newer format.
    """
    iterator = iter(lines)
    first = next(iterator, "")
    if not is_session(first):
        raise SessionFormatError("not an osdoctor session (no #osdoctor-session line)")
    version_text = first.rstrip("\r\n")[len(MAGIC) :].strip()
    try:
        version = int(version_text)
    except ValueError:
        raise SessionFormatError(f"bad session version {version_text!r}") from None
    if version > FORMAT_VERSION:
        raise SessionFormatError(
            f"session format {version} is newer than this osdoctor reads ({FORMAT_VERSION})"
        )
    command: tuple[str, ...] = ()
    started: datetime | None = None
    for line in iterator:
        record = parse_session_line(line)
        if not isinstance(record, MetaLine):
            break
        if record.key == "command":
            command = _parse_command(record.value)
        elif record.key == "started":
            started = _parse_time(record.value)
    return SessionHeader(version, command, started)


def _parse_command(value: str) -> tuple[str, ...]:
    try:
        words = json.loads(value)
    except ValueError:
        raise SessionFormatError("bad #command line: not a JSON array") from None
    if not isinstance(words, list) or not all(isinstance(word, str) for word in words):
        raise SessionFormatError("bad #command line: not a JSON array of strings")
    return tuple(words)


def _parse_time(value: str) -> datetime:
    from datetime import UTC, datetime

    try:
        return datetime.strptime(value.strip(), _TIME_FORMAT).replace(tzinfo=UTC)
    except ValueError:
        raise SessionFormatError(f"bad #started time {value.strip()!r}") from None
