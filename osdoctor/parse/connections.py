"""The reader of connection lines: urllib3's connection-pool line for each answer,
and the lines that say a request got no answer (refused, timed out, TLS,
discovery failed), with the request ids the clients log after an answer.
"""

from __future__ import annotations

import re

from osdoctor import regex
from osdoctor.model import Request, Response, TransportError
from osdoctor.parse.http_text import split_url
from osdoctor.parse.records import Records
from osdoctor.parse.transport_kind import named_in
from osdoctor.parse.unanswered import Unanswered, UnansweredReader

URLLIB3_CUT = regex.compile(r'(https?://\S+) "([A-Z]+) (/\S*)(?: HTTP/[\d.]+"(?: (\d{3})\b)?.*)?$')


class ConnectionReader(Records):
    """Reads connection lines."""

    _unanswered: UnansweredReader

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
                and self.cut_width is not None
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

    def _refine_discovery(self, text: str) -> None:
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

    def _place_unanswered(self, record: Unanswered, message: bool = True) -> None:
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

    def _transport_text(self, number: int, cause: str, text: str, message: bool = True) -> bool:
        """A transport failure named inside another message (``ERROR
        (ConnectFailure): Unable to establish connection to URL: ...``, an
        exception's text): True when ``cause`` was one."""
        record = self._unanswered.within(number, cause, text)
        if record is None:
            return False
        if any(ex.error is not None for ex in self.trace.exchanges[-8:]):
            return False  # already read from the line that reported it
        self._place_unanswered(record, message)
        return True
