"""The session file: one run of a client command, recorded as it happens.

A session is written line by line while the command runs, so a crash of
osdoctor loses nothing, and every line is redacted before it reaches the disk
(``osdoctor.redact.redact_line``). The file is private: 0600 in a 0700 folder
(``osdoctor.paths``). It is plain UTF-8 text, one record per line, so the log
parser reads it like any other log::

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

Metadata lines start with ``#``:

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
"""

from __future__ import annotations

import json
import os
import re
import secrets
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from osdoctor.cmdline import known_secrets, prints_bare_secret, redact_argv
from osdoctor.paths import create_private, sessions_dir, write_private
from osdoctor.redact import SecretMemory, StreamRedactor, redact_line

if TYPE_CHECKING:
    from osdoctor.runner import OutputLine, RunResult

#: Version written in, and accepted from, the first line.
FORMAT_VERSION = 1
MAGIC = "#osdoctor-session"
#: File name suffix: sessions are logs, and open as such.
SUFFIX = ".session.log"

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


_DATA_LINE = re.compile(r"(\d+(?:\.\d+)?) ([12])(?: (.*))?\Z", re.DOTALL)


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


def new_session_path(argv: Sequence[str], folder: Path | None = None) -> Path:
    """A fresh file name in ``folder`` (default: the sessions folder).

    The name holds the time and the executable's base name only: the rest of
    the command may hold secrets.
    """
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    exe = os.path.basename(argv[0]) if argv else "command"
    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in exe)[:32] or "command"
    base = folder if folder is not None else sessions_dir()
    return base / f"{stamp}-{safe}-{secrets.token_hex(3)}{SUFFIX}"


class SessionWriter:
    """Appends one run's records to a new private file, redacting every line.

    The runner calls ``begin``, ``write_lines`` (one batch per read, flushed),
    ``note``, ``cancelled`` and ``close``; all may be called from different
    threads.
    """

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        fd = create_private(self.path)
        self._file = os.fdopen(fd, "w", encoding="utf-8", errors="replace", newline="\n")
        self._lock = threading.Lock()
        # Per stream, redact_line plus what only earlier lines say (a private
        # key's body lines, a table's secret columns, values masked before);
        # the two streams learn together.
        self._memory = SecretMemory()
        self._learnt_at_start = 0
        self._pem = {1: StreamRedactor(self._memory), 2: StreamRedactor(self._memory)}

    @classmethod
    def for_command(cls, argv: Sequence[str], folder: Path | None = None) -> SessionWriter:
        """A writer on a new file named after ``argv`` (see ``new_session_path``)."""
        return cls(new_session_path(argv, folder))

    @property
    def closed(self) -> bool:
        return self._file.closed

    def begin(self, argv: Sequence[str], started: datetime) -> None:
        """Write the header: format version, redacted command, start time.

        The secret values of the command (and of the ``OS_*`` secret variables)
        are masked in every line that follows, whatever their shape there; the
        standard output of ``-f value -c secret`` is masked whole."""
        self._memory.update(known_secrets(argv))
        self._pem[1].bare = prints_bare_secret(argv)
        self._learnt_at_start = self._memory.generation
        stamp = started.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        self._write(
            [
                f"{MAGIC} {FORMAT_VERSION}\n",
                f"#command {redact_command(argv)}\n",
                f"#started {stamp}\n",
            ]
        )

    def write_lines(self, lines: Iterable[OutputLine]) -> None:
        """Append output lines, redacted, and flush."""
        records: list[str] = []
        for line in lines:
            stream = self._pem.get(line.fd)
            text = stream.feed(line.text) if stream is not None else redact_line(line.text)
            text = text.translate(_LINE_BREAKS)
            records.append(f"{line.time:.3f} {line.fd} {text}\n")
            if line.cut:
                records.append(f"#split {line.fd}\n")
        self._write(records)

    def note(self, text: str) -> None:
        self._write([f"#note {_one_line(redact_line(text))}\n"])

    def cancelled(self, signal_name: str, seconds: float) -> None:
        self._write([f"#cancelled {signal_name} {seconds:.3f}\n"])

    def close(self, result: RunResult | None) -> None:
        """Write the notes and the ``#exit`` line of ``result`` (None: the
        command never ran) and close the file. Closing twice does nothing."""
        with self._lock:
            if self._file.closed:
                return
            try:
                if result is not None:
                    for note in result.notes:
                        self._file.write(f"#note {_one_line(redact_line(note))}\n")
                    self._file.write(f"#exit {result.exit_code} {result.duration:.3f}\n")
                self._file.flush()
            finally:
                self._file.close()
            if self._memory.generation != self._learnt_at_start:
                self._mask_learnt()

    def _mask_learnt(self) -> None:
        """Mask, in what was written already, the values learnt during the run
        (a value masked in a response body after an earlier line showed it)."""
        try:
            text = self.path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return
        masked = self._memory.literals.mask(text)
        if masked != text:
            write_private(self.path, masked)

    def _write(self, records: list[str]) -> None:
        with self._lock:
            if self._file.closed:
                return
            self._file.writelines(records)
            self._file.flush()


def redact_command(argv: Sequence[str]) -> str:
    """The argv as a JSON array, redacted (``osdoctor.cmdline.redact_argv``)."""
    return json.dumps(redact_argv(argv), ensure_ascii=False)


def _one_line(text: str) -> str:
    return text.replace("\n", " ").translate(_LINE_BREAKS)


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
    match = _DATA_LINE.match(line)
    if match is None:
        return None
    return DataLine(float(match[1]), int(match[2]), match[3] or "")


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
    try:
        return datetime.strptime(value.strip(), "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    except ValueError:
        raise SessionFormatError(f"bad #started time {value.strip()!r}") from None
