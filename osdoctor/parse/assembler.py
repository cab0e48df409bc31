"""The assembler: records in, a :class:`~osdoctor.model.Trace` out.

The readers of each kind of record (request lines, answers, connection lines,
older shapes) say what a line holds; which exchange it belongs to is decided
here, in one place: a request starts an exchange (numbered, located in its
service, linked to the redirect that led to it), waits among the pending ones
until its answer or its failure comes, and the log ending while one waits is
a request with no answer. What is kept of a log that grows without bound
(folds of long runs, windows, big bodies, debug messages) is decided here too,
with ``parse.retention``.

A run of repeating requests is also what the fast path over rounds
(``parse.round_path``) watches: the assembler tells a :class:`RunWatcher` when
a run goes on past its kept head and when it breaks.
"""

from __future__ import annotations

from collections import deque
from typing import Protocol

from osdoctor.model import Exchange, Message, MessageKind, Request, Response, Trace, TransportError
from osdoctor.parse.bodies import BodyCollector, HeatResponseCollector
from osdoctor.parse.http_text import header_location, split_url
from osdoctor.parse.retention import FOLD_KEEP, Limits, Retention
from osdoctor.parse.services import ServiceMap
from osdoctor.parse.tracebacks import TracebackCollector

#: Debug messages kept at most (the first ones).
MAX_DEBUG_MESSAGES = 20000
#: Bodies larger than this on successful answers are released once 64 newer
#: ones exist: rules look at error answers and at the end of a run.
BIG_BODY = 4096
BIG_BODIES_KEPT = 64

Collector = BodyCollector | TracebackCollector | HeatResponseCollector


class RunWatcher(Protocol):
    """Told of the run of repeating requests at the end of the trace."""

    def run_goes_on(self, request: Request) -> None:
        """``request`` starts another round of a run folded past its kept head."""
        ...

    def run_broke(self) -> None:
        """The latest exchange broke the run."""
        ...


class _NoWatcher:
    def run_goes_on(self, request: Request) -> None:
        pass

    def run_broke(self) -> None:
        pass


class Assembler:
    """Places records on the exchanges of ``trace``, kept within ``limits``."""

    def __init__(self, trace: Trace, limits: Limits | None = None) -> None:
        self.trace = trace
        self.keep = Retention(trace, limits or Limits())
        self.services = ServiceMap()
        #: Requests still waiting for an answer, the latest last.
        self.pending: deque[Exchange] = deque(maxlen=32)
        #: The exchange a line read last belongs to: what an answer's next line adds to.
        self.last: Exchange | None = None
        self.exchange_count = 0
        #: A body or traceback being gathered over the next lines.
        self.collector: Collector | None = None
        #: urllib3's last connection line (its number, the host): what a hung client waits for.
        self.connecting: tuple[int, str] | None = None
        #: The line being read: its last physical line (a wrapped one spans several),
        #: and whether a paste cut it at its width.
        self.span_end = 0
        self.line_cut = False
        self.watcher: RunWatcher = _NoWatcher()
        self.dropped_messages = 0
        self._debug_messages = 0
        self._big: deque[Exchange] = deque()

    # -- exchanges ---------------------------------------------------------
    def new_exchange(self, request: Request, time: float | None) -> Exchange:
        """A new exchange for ``request``, placed in the trace."""
        if self.trace.exchanges:
            self.fold_repeats()
            if self.keep.run > FOLD_KEEP:
                self.watcher.run_goes_on(request)
        ex = Exchange(index=self.exchange_count, request=request, time=time)
        self.exchange_count += 1
        ex.service, ex.path = self.services.locate(request.url)
        ex.query = request.url.partition("?")[2]
        prev = self.last
        if prev is not None and prev.status is not None and 300 <= prev.status < 400:
            location = header_location(prev.response.raw_headers) if prev.response else None
            if location and (location == request.url or request.url.startswith(location)):
                ex.redirected_from = prev.index
        self.keep.append(ex)
        self.trace.openstack_lines += 1
        self.last = ex
        return ex

    def request(self, request: Request, time: float | None) -> Exchange:
        """A new exchange for ``request``, waiting for its answer."""
        ex = self.new_exchange(request, time)
        self.pending.append(ex)
        return ex

    def fold_repeats(self) -> None:
        """Fold the middle of the run at the end as a new exchange starts."""
        if not self.keep.fold_repeats():
            self.watcher.run_broke()

    def find_pending(self, url: str, method: str | None = None) -> Exchange | None:
        """The latest request to ``url`` (its query aside) still waiting."""
        for ex in reversed(self.pending):
            if method is not None and ex.request.method != method:
                continue
            if ex.request.url == url or ex.request.url.split("?")[0] == url.split("?")[0]:
                return ex
        return None

    def drop_pending(self, ex: Exchange) -> None:
        """``ex`` waits no more (answered, or failed)."""
        try:
            self.pending.remove(ex)
        except ValueError:
            pass

    def answer(self, ex: Exchange, response: Response) -> None:
        """``response`` answers ``ex``, which waits no more."""
        ex.response = response
        self.drop_pending(ex)

    def answer_line(self, number: int, label: str, text: str) -> tuple[Exchange, Response] | None:
        """The answer a line of it (a body, an httplib header) belongs to: the last
        exchange's; None, and the line kept as a debug message, when there is none."""
        self.trace.openstack_lines += 1
        ex = self.last
        if ex is None or ex.response is None:
            self.message(number, "debug", label + text)
            return None
        return ex, ex.response

    def request_id(self, url: str, request_id: str) -> None:
        """A client's "used request id" line: the id of a recent answer from ``url``."""
        self.trace.openstack_lines += 1
        for ex in reversed(self.trace.exchanges[-8:]):
            if ex.request.url == url and ex.response is not None:
                ex.response.request_id = request_id
                return

    def keep_big(self, ex: Exchange) -> None:
        """Keep a big body's text while it is among the newest: older ones' go."""
        self._big.append(ex)
        while len(self._big) > BIG_BODIES_KEPT:
            old = self._big.popleft()
            if old.response is not None and old.response.body is not None:
                old.response.body.text = None
                old.response.body.dropped = True

    # -- printed lines -----------------------------------------------------
    def message(self, number: int, kind: MessageKind, text: str) -> None:
        """A printed line kept as a message; the same line again is counted."""
        messages = self.trace.messages
        if messages:
            last = messages[-1]
            if last.kind == kind and last.text == text:
                last.repeats += 1
                last.last_line = max(number, self.span_end)
                return
        if kind == "debug":
            self._debug_messages += 1
            if self._debug_messages > MAX_DEBUG_MESSAGES:
                self.dropped_messages += 1
                return
        messages.append(Message(number, kind, text, last_line=max(number, self.span_end)))
        self.keep.trim_messages()

    # -- the end -----------------------------------------------------------
    def no_answer(self) -> None:
        """A log that ends inside a request: the client was still waiting (it hung,
        or was killed) for the host it last connected to."""
        t = self.trace
        if not t.exchanges or t.exit_code is not None:
            return
        ex = t.exchanges[-1]
        if ex.response is not None or ex.error is not None or ex.request.line == 0:
            return
        after = ex.request.line
        if any(tb.last_line > after for tb in t.tracebacks[-4:]) or any(
            m.line > after and m.kind not in ("debug", "elision") for m in t.messages[-16:]
        ):
            return
        host = split_url(ex.request.url)[0].partition("://")[2] or ex.request.url
        line = after
        connecting = self.connecting
        if connecting is not None and connecting[0] >= after:
            line, host = connecting
        ex.error = TransportError(
            "no-answer",
            f"the log ends while {ex.request.method} {ex.request.url} waits for "
            f"an answer from {host}",
            line,
            detail=host,
        )
        self.drop_pending(ex)

    def problems(self) -> list[str]:
        """What the trace says of what was not kept."""
        out = self.keep.problems()
        if self.dropped_messages:
            out.append(
                f"{self.dropped_messages} debug lines past the first {MAX_DEBUG_MESSAGES} "
                "were not kept"
            )
        return out
