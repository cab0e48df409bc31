"""Feeding a running command's output into the parser as it arrives.

Lines are numbered as they stand in the session file the runner writes (after
its three header lines), so that evidence in a live report points at the same
lines as a report on the saved session.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from osdoctor.intake import new_parser
from osdoctor.model import Message, Trace
from osdoctor.parse.commands import client_of
from osdoctor.parse.lines import clean
from osdoctor.run.cmdline import command_text
from osdoctor.run.runner import OutputLine, RunResult
from osdoctor.secrets.commandsecrets import known_secrets, prints_bare_secret
from osdoctor.secrets.secretnames import MASK

SESSION_HEADER_LINES = 3


class LiveTrace:
    """Thread-safe: the runner's reader thread feeds, a front end snapshots.

    The command is known here, so its secret values (and its templates' hidden
    parameters) are masked in every line, whatever their shape there (a
    passphrase echoed word by word), and the standard output of ``-f value -c
    secret`` whole."""

    def __init__(self, argv: Sequence[str], source: str = "-") -> None:
        self.parser = new_parser(source)
        words = [a for a in argv if a not in ("--debug", "-d")]
        trace = self.parser.trace
        secrets = self.parser.secrets
        secrets.update(known_secrets(argv))
        trace.command = secrets.literals.mask(command_text(words))
        trace.command_line = 2
        trace.client = client_of(words[0]) if words else "unknown"
        self._bare = prints_bare_secret(argv)
        self._number = SESSION_HEADER_LINES
        self._lock = threading.Lock()
        self.lines_seen = 0

    def feed(self, out: OutputLine) -> None:
        with self._lock:
            self._number += 1
            self.lines_seen += 1
            text = clean(out.text)
            if self._bare and out.fd == 1:
                text = MASK if text.strip() else text
            self.parser.feed(self._number, text, time=out.time)
            if out.cut:
                self._number += 1

    def snapshot(self) -> tuple[int, int]:
        """(exchanges, lines) so far, for a progress line."""
        with self._lock:
            return len(self.parser.trace.exchanges), self.lines_seen

    def finish(self, result: RunResult) -> Trace:
        with self._lock:
            trace = self.parser.finish()
            for note in result.notes:
                self._number += 1
                trace.messages.append(Message(self._number, "note", note, last_line=self._number))
            self._number += 1
            trace.exit_code = result.exit_code
            trace.exit_line = self._number
            if result.cancelled:
                trace.messages.append(
                    Message(
                        self._number, "cancelled", "cancelled by the user", last_line=self._number
                    )
                )
            return trace
