"""The state the record readers share, and the few steps they all take.

The parser is made of readers, one for each kind of record a client's log holds
(``request_lines``, ``responses``, ``connections``, ``legacy_records``); each is
a class of methods over this one state: the trace being built, the exchange
last read, the ones still waiting for an answer, the body or traceback being
gathered. ``parse.parser`` brings them together and pairs records into
exchanges (``_new_exchange``), and keeps the printed messages (``_message``).
"""

from __future__ import annotations

from osdoctor.model import Exchange, Trace
from osdoctor.parse.assembler import Assembler
from osdoctor.secrets.redact import redact_line


class Records:
    """What every reader reads and writes (set by ``Parser.__init__``)."""

    trace: Trace
    _asm: Assembler
    cut_width: int | None
    _gopher: Exchange | None
    _depth: int

    def _read(self, number: int, text: str, time: float | None) -> None:
        """A redacted line read as any other (see ``Parser``)."""
        raise NotImplementedError

    def _read_inner(self, number: int, lines: list[str], time: float | None) -> None:
        """Lines another program's line held (an escaped report, a bytes repr, a
        collapsed run), read as lines, each at that line's number; what they hold
        is not unwrapped again."""
        self._depth += 1
        try:
            for line in lines:
                if line.strip():
                    self._read(number, redact_line(line), time)
        finally:
            self._depth -= 1
