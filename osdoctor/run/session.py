"""The session writer: one run of a client command, recorded as it happens.

A session is written line by line while the command runs, so a crash of
osdoctor loses nothing, and every line is redacted before it reaches the disk
(``osdoctor.secrets.redact.redact_line``). The file is private: 0600 in a 0700 folder
(``osdoctor.paths``). Its format, and how it is read back, is
``osdoctor.run.sessionfile``'s alone.
"""

from __future__ import annotations

import json
import os
import secrets
import threading
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from osdoctor.paths import PrivateStorageError, create_private, sessions_dir, write_private
from osdoctor.run.cmdline import client_name, redact_argv
from osdoctor.run.sessionfile import (
    SUFFIX,
    cancelled_record,
    data_record,
    exit_record,
    header_records,
    note_record,
    split_record,
)
from osdoctor.secrets.commandsecrets import known_secrets, prints_bare_secret
from osdoctor.secrets.redact import SecretMemory, StreamRedactor, redact_line

if TYPE_CHECKING:
    from osdoctor.run.runner import OutputLine, RunResult


def new_session_path(argv: Sequence[str], folder: Path | None = None) -> Path:
    """A fresh file name in ``folder`` (default: the sessions folder).

    The name holds the time and the executable's base name only: the rest of
    the command may hold secrets.
    """
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    exe = client_name(argv) or "command"
    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in exe)[:32] or "command"
    base = folder if folder is not None else sessions_dir()
    return base / f"{stamp}-{safe}-{secrets.token_hex(3)}{SUFFIX}"


class SessionFileError(Exception):
    """The session file cannot be created; the message is one line for the user."""


def start_session(argv: Sequence[str], folder: Path | None = None) -> SessionWriter:
    """A writer on a new session file for ``argv``, for every front end that runs a
    command; SessionFileError, worded once, when the file cannot be created."""
    try:
        return SessionWriter.for_command(argv, folder)
    except (PrivateStorageError, OSError) as error:
        raise SessionFileError(f"cannot create the session file: {error}") from None


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
        self._write([f"{record}\n" for record in header_records(redact_command(argv), started)])

    def write_lines(self, lines: Iterable[OutputLine]) -> None:
        """Append output lines, redacted, and flush."""
        records: list[str] = []
        for line in lines:
            stream = self._pem.get(line.fd)
            text = stream.feed(line.text) if stream is not None else redact_line(line.text)
            records.append(f"{data_record(line.time, line.fd, text)}\n")
            if line.cut:
                records.append(f"{split_record(line.fd)}\n")
        self._write(records)

    def note(self, text: str) -> None:
        self._write([f"{note_record(redact_line(text))}\n"])

    def cancelled(self, signal_name: str, seconds: float) -> None:
        self._write([f"{cancelled_record(signal_name, seconds)}\n"])

    def close(self, result: RunResult | None) -> None:
        """Write the notes and the ``#exit`` line of ``result`` (None: the
        command never ran) and close the file. Closing twice does nothing."""
        with self._lock:
            if self._file.closed:
                return
            try:
                if result is not None:
                    for note in result.notes:
                        self._file.write(f"{note_record(redact_line(note))}\n")
                    self._file.write(f"{exit_record(result.exit_code, result.duration)}\n")
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
    """The argv as a JSON array, redacted (``osdoctor.run.cmdline.redact_argv``)."""
    return json.dumps(redact_argv(argv), ensure_ascii=False)
