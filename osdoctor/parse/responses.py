"""The reader of answers: keystoneauth's ``RESP:`` records (read by
``parse.answer_lines``) placed on the exchanges they answer, the heat shell's
``HTTP/1.1 200 OK`` status line, and how long big bodies are kept.

Which exchange an answer belongs to is the assembler's (``parse.assembler``):
the last request read; a body that goes on over the next lines is gathered by
the collector left there.
"""

from __future__ import annotations

from osdoctor import regex
from osdoctor.model import BODY_KEEP, Body, Exchange, Request, Response
from osdoctor.parse.answer_lines import (
    AnswerBody,
    AnswerLine,
    AnswerReader,
    AnswerRecord,
    AnswerStatus,
)
from osdoctor.parse.assembler import BIG_BODY, Assembler
from osdoctor.parse.bodies import BodyCollector, HeatResponseCollector
from osdoctor.parse.http_text import header_location

_HTTP_STATUS = regex.compile(r"HTTP/\d(?:\.\d)? (\d{3}) ?(.*)")


class ResponseReader:
    """Reads answers into ``assembler``."""

    def __init__(self, assembler: Assembler) -> None:
        self._asm = assembler
        self.trace = assembler.trace
        self._answers = AnswerReader()

    def answer(self, number: int, text: str, time: float | None) -> bool:
        """A line that opens with ``RESP``: False when it is none of keystoneauth's."""
        record = self._answers.feed(number, text)
        if record is None:
            return False
        self._place_answer(record)
        return True

    def heat_status(self, number: int, text: str, time: float | None) -> bool:
        """The heat shell's status line (``HTTP/1.1 200 OK``), its headers and body
        to follow: the answer to the last request, when it has none yet."""
        m = _HTTP_STATUS.match(text)
        ex = self._asm.last
        if m is None or ex is None or ex.response is not None:
            return False
        response = Response(int(m.group(1)), number, reason=m.group(2) or None, last_line=number)
        self._asm.answer(ex, response)
        self._asm.collector = HeatResponseCollector(response)
        self.trace.openstack_lines += 1
        return True

    def _place_answer(self, record: AnswerRecord) -> None:
        """An answer's record (``parse.answer_lines``) on the exchange it answers."""
        if isinstance(record, AnswerLine):
            self._resp_line(record)
        elif isinstance(record, AnswerBody):
            self._resp_body(record.number, record.text)
        elif isinstance(record, AnswerStatus):
            self._resp_status(record)
        else:
            ex = self._asm.last
            if ex is not None and ex.response is not None:
                ex.response.raw_headers = record.headers
                ex.response.last_line = record.number
            self.trace.openstack_lines += 1

    def _resp_line(self, record: AnswerLine) -> None:
        self.trace.openstack_lines += 1
        number, status, body = record.number, record.status, record.body
        ex = self._asm.last
        if ex is None:
            return
        if ex.response is None:
            ex.response = Response(status, number)
            self._asm.drop_pending(ex)
        elif (
            status is not None
            and ex.response.raw_headers
            and ex.response.status is not None
            and 300 <= ex.response.status < 400
            and header_location(ex.response.raw_headers)
        ):
            # A second answer to one request: keystoneauth followed the redirect and
            # nothing logged the new request (the heat shell has no urllib3 lines).
            location = header_location(ex.response.raw_headers) or ""
            hop = self._asm.new_exchange(
                Request(ex.request.method, location, number, logged_as="redirect"), None
            )
            hop.response = Response(status, number, raw_headers=record.headers, last_line=number)
            return
        elif status is not None and ex.response.status != status:
            ex.response.status = status
        ex.response.raw_headers = record.headers
        ex.response.last_line = number
        if body is not None:
            ex.response.body = Body(
                number, number, body[:BODY_KEEP], len(body), truncated=len(body) > BODY_KEEP
            )
            self._learn_v2_catalog(ex)

    def _learn_v2_catalog(self, ex: Exchange) -> None:
        """Keystone v2's token answer (``{"access": {"serviceCatalog": ...}}``) maps
        the later requests to their services, as a v3 token does."""
        body = ex.response.body if ex.response else None
        if (
            self.trace.catalog
            or body is None
            or not body.text
            or not body.text.startswith('{"access"')
        ):
            return
        catalog = self._asm.services.learn_catalog(body.json())
        if catalog:
            self.trace.catalog = catalog
            for other in self.trace.exchanges:
                if other.request.logged_as != "auth":
                    other.service, other.path = self._asm.services.locate(other.request.url)

    def _resp_status(self, record: AnswerStatus) -> None:
        self.trace.openstack_lines += 1
        number, status, reason = record.number, record.status, record.reason
        ex = self._asm.last
        if ex is None:
            return
        if ex.response is None:
            ex.response = Response(status, number, reason=reason, last_line=number)
            self._asm.drop_pending(ex)
        else:
            ex.response.status = status or ex.response.status
            ex.response.reason = reason
            ex.response.last_line = number

    def _resp_body(self, number: int, text: str) -> None:
        answer = self._asm.answer_line(number, "RESP BODY: ", text)
        if answer is None:
            return
        ex, response = answer
        response.last_line = max(response.last_line, number)
        if text.startswith("Omitted, Content-Type is set to"):
            response.body = Body(number, number, None, 0, omitted=text)
            return
        size = len(text)
        truncated = size > BODY_KEEP
        kept = text[:BODY_KEEP] if truncated else text
        body = Body(number, number, kept, size, truncated=truncated, cut=self._asm.line_cut)
        response.body = body
        head = text[:1]
        tail = text.rstrip()[-1:] if text.strip() else ""
        if head in "{[" and tail not in "}]":
            self._asm.collector = BodyCollector(body, [kept], "}" if head == "{" else "]")
        elif text.lstrip()[:5].lower() in ("<html", "<!doc") and "</html>" not in text.lower():
            self._asm.collector = BodyCollector(body, [kept], "</html>")
        elif head == "{" and text.startswith('{"access"'):
            self._learn_v2_catalog(ex)
        self._retain(ex, body)

    def _retain(self, ex: Exchange, body: Body) -> None:
        """Release the text of old, large, successful bodies so memory stays bounded."""
        status = ex.status or 0
        if body.size <= BIG_BODY or not (200 <= status < 300):
            return
        self._asm.keep_big(ex)
