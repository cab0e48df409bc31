"""The reader of connection lines: urllib3's connection-pool line for each answer
(requests 1.x's without scheme and host too), and the lines that say a request
got no answer (refused, timed out, TLS, discovery failed).

The words of a no-answer line are ``parse.unanswered``'s; which request waited
for it is the assembler's (``parse.assembler``).
"""

from __future__ import annotations

import re

from osdoctor import regex
from osdoctor.model import Request, Response, TransportError
from osdoctor.parse.assembler import Assembler
from osdoctor.parse.http_text import split_url
from osdoctor.parse.legacy import BARE_URLLIB3
from osdoctor.parse.record_starts import URLLIB3
from osdoctor.parse.transport_kind import named_in
from osdoctor.parse.unanswered import Unanswered, UnansweredReader

URLLIB3_CUT = regex.compile(r'(https?://\S+) "([A-Z]+) (/\S*)(?: HTTP/[\d.]+"(?: (\d{3})\b)?.*)?$')


class ConnectionReader:
    """Reads connection lines into ``assembler``; ``cut_width``, the width a paste
    cut its lines at, if any."""

    def __init__(self, assembler: Assembler, cut_width: int | None = None) -> None:
        self._asm = assembler
        self.trace = assembler.trace
        self._cut_width = cut_width
        self._unanswered = UnansweredReader()

    def pool_line(self, number: int, text: str, time: float | None) -> bool:
        """urllib3's connection-pool line (``http://host:port "GET /x HTTP/1.1" 200``),
        or the head of one a paste cut at its width."""
        m = URLLIB3.match(text)
        if m:
            self._urllib3(number, m, time)
            return True
        if self._asm.line_cut:
            m = URLLIB3_CUT.match(text)
            if m and m.group(4):
                self._urllib3(number, m, time)
                return True
            if m:
                # A pool line cut by the paste: the request, its answer to come.
                self._urllib3_cut(number, m, time)
                return True
        return False

    def bare_pool_line(self, number: int, text: str, time: float | None) -> bool:
        """requests 1.x's pool line, without scheme and host."""
        m = BARE_URLLIB3.match(text)
        if m:
            self._urllib3(number, m, time, bare=True)
            return True
        return False

    def unanswered(self, number: int, text: str, time: float | None) -> bool:
        """ "Request to URL timed out" (False when it did not time out)."""
        record = self._unanswered.feed(number, text)
        if record is None:
            return False
        self.place_unanswered(record)
        return True

    def refused(self, number: int, text: str, time: float | None) -> bool:
        """ "Unable to establish connection to URL: ..." and "SSL exception connecting
        to URL: ...": read, whether or not they name a URL."""
        self.unanswered(number, text, time)
        return True

    def discovery_failed(self, number: int, text: str, time: float | None) -> bool:
        """keystoneauth's "Failed to discover available identity versions when
        contacting URL": that request fails; the line is read on as any other."""
        url = text[63:].partition(". ")[0].rstrip(".")
        ex = self._asm.find_pending(url)
        if ex is not None and ex.response is None and ex.error is None:
            ex.error = TransportError("discovery", text, number)
            self._asm.drop_pending(ex)
        self.trace.openstack_lines += 1
        return False

    def discovery_summary(self, number: int, text: str, time: float | None) -> bool:
        """keystoneauth's "Could not find versioned identity endpoints": see
        :meth:`refine_discovery`; the line is read on as any other."""
        self.refine_discovery(text)
        return False

    def error_line(self, number: int, text: str, time: float | None) -> bool:
        """novaclient's and the legacy shells' "ERROR (ConnectFailure): <message>"."""
        if "): " not in text[:60]:
            return False
        return self.transport_text(number, text.partition("): ")[2], text)

    def _urllib3(
        self, number: int, m: re.Match[str], time: float | None, bare: bool = False
    ) -> None:
        """urllib3's connection-pool line; ``bare`` for requests 1.x's, which has no
        scheme and host (the last connection line gives the host)."""
        if bare:
            method, target, status = m.group(1), m.group(2), int(m.group(3))
            host = self._asm.connecting[1] if self._asm.connecting is not None else "unknown-host"
            base = host if "://" in host else "http://" + host
        else:
            base, method, target, status = m.group(1), m.group(2), m.group(3), int(m.group(4))
        found = None
        for ex in reversed(self._asm.pending):
            if ex.request.method != method or ex.response is not None:
                continue
            _b, path, query = split_url(ex.request.url)
            if target == path + ("?" + query if query else "") or target.split("?")[0] == path:
                found = ex
                break
        if found is None:
            req = Request(method, base + target, number, logged_as="urllib3")
            found = self._asm.new_exchange(req, time)
        else:
            self._asm.drop_pending(found)
            url = found.request.url
            if (
                self._asm.line_cut is False
                and self._cut_width is not None
                and len(base + target) > len(url)
                and (base + target).startswith(url)
            ):
                # The request line was cut by the paste: the pool line has the whole URL.
                found.request.url = base + target
                found.query = target.partition("?")[2]
        found.response = Response(status, number, last_line=number)
        self._asm.last = found

    def _urllib3_cut(self, number: int, m: re.Match[str], time: float | None) -> None:
        base, method, target = m.group(1), m.group(2), m.group(3)
        for ex in reversed(self._asm.pending):
            if (
                ex.request.method == method
                and ex.response is None
                and (base + target).startswith(ex.request.url.partition("?")[0])
            ):
                self._asm.last = ex
                return
        req = Request(method, base + target, number, logged_as="urllib3")
        self._asm.pending.append(self._asm.new_exchange(req, time))

    def refine_discovery(self, text: str) -> None:
        """keystoneauth's summary of a failed discovery names the transport
        cause (refused, TLS, dropped) that its earlier "Failed to discover"
        line did not: give the discovery exchange that kind."""
        named = named_in(text)
        if named is None:
            return
        url, kind, detail = named
        for ex in reversed(self.trace.exchanges[-8:]):
            if ex.request.url == url and ex.error is not None and ex.error.kind == "discovery":
                ex.error.kind = kind
                ex.error.detail = detail
                return

    def place_unanswered(self, record: Unanswered, message: bool = True) -> None:
        """A request that got no answer: the one waiting for ``record.url``, or a
        new exchange when the log never showed it (its method is then unknown)."""
        number = record.number
        self.trace.openstack_lines += 1
        ex = self._asm.find_pending(record.url)
        if ex is None:
            # The line names the URL only: its method is not in the log.
            req = Request("", record.url, number, logged_as="error")
            ex = self._asm.new_exchange(req, None)
        if ex.response is None:
            ex.error = TransportError(record.kind, record.text, number, record.detail)
            self._asm.drop_pending(ex)
        if message:
            self._asm.message(number, "error", record.text)

    def transport_text(self, number: int, cause: str, text: str, message: bool = True) -> bool:
        """A transport failure named inside another message (``ERROR
        (ConnectFailure): Unable to establish connection to URL: ...``, an
        exception's text): True when ``cause`` was one."""
        record = self._unanswered.within(number, cause, text)
        if record is None:
            return False
        if any(ex.error is not None for ex in self.trace.exchanges[-8:]):
            return False  # already read from the line that reported it
        self.place_unanswered(record, message)
        return True
