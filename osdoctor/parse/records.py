"""The state the record readers share, and the few steps they all take.

The parser is made of readers, one for each kind of record a client's log holds
(``request_lines``, ``responses``, ``connections``, ``legacy_records``); each is
a class of methods over this one state: the trace being built, the exchange
last read, the ones still waiting for an answer, the body or traceback being
gathered. ``parse.parser`` brings them together and pairs records into
exchanges (``_new_exchange``), and keeps the printed messages (``_message``).
"""

from __future__ import annotations

from collections import deque

from osdoctor.model import Exchange, MessageKind, Request, Response, Trace
from osdoctor.parse.bodies import BodyCollector, HeatResponseCollector
from osdoctor.parse.services import ServiceMap
from osdoctor.parse.tracebacks import TracebackCollector
from osdoctor.secrets.redact import redact_line


class Records:
    """What every reader reads and writes (set by ``Parser.__init__``)."""

    trace: Trace
    _services: ServiceMap
    _pending: deque[Exchange]
    _last: Exchange | None
    _collector: BodyCollector | TracebackCollector | HeatResponseCollector | None
    _big: deque[Exchange]
    _line_cut: bool
    cut_width: int | None
    _connecting: tuple[int, str] | None
    _gopher: Exchange | None
    _depth: int

    def _new_exchange(self, request: Request, time: float | None) -> Exchange:
        """A new exchange for ``request``, placed in the trace (see ``Parser``)."""
        raise NotImplementedError

    def _message(self, number: int, kind: MessageKind, text: str) -> None:
        """A printed line kept as a message (see ``Parser``)."""
        raise NotImplementedError

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

    def _find_pending(self, url: str, method: str | None = None) -> Exchange | None:
        for ex in reversed(self._pending):
            if method is not None and ex.request.method != method:
                continue
            if ex.request.url == url or ex.request.url.split("?")[0] == url.split("?")[0]:
                return ex
        return None

    def _drop_pending(self, ex: Exchange) -> None:
        try:
            self._pending.remove(ex)
        except ValueError:
            pass

    def _answer_line(self, number: int, label: str, text: str) -> tuple[Exchange, Response] | None:
        """The answer a line of it (a body, an httplib header) belongs to: the last
        exchange's; None, and the line kept as a debug message, when there is none."""
        self.trace.openstack_lines += 1
        ex = self._last
        if ex is None or ex.response is None:
            self._message(number, "debug", label + text)
            return None
        return ex, ex.response
