"""The reader of answers: keystoneauth's ``RESP:`` records (read by
``parse.answer_lines``) placed on the exchanges they answer, the token body, and
how long big bodies are kept.
"""

from __future__ import annotations

import json

from osdoctor.model import BODY_KEEP, Body, Exchange, Request, Response
from osdoctor.parse.answer_lines import AnswerBody, AnswerLine, AnswerRecord, AnswerStatus
from osdoctor.parse.assembler import BIG_BODY
from osdoctor.parse.bodies import BodyCollector
from osdoctor.parse.http_text import header_location
from osdoctor.parse.records import Records


class ResponseReader(Records):
    """Reads answers."""

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

    def _token_body(self, number: int, text: str) -> None:
        ex = self._asm.last
        self.trace.openstack_lines += 1
        if ex is None:
            return
        if ex.response is None and ex.request.logged_as == "auth":
            # Clients that log no connection-pool line (the heat shell) still print
            # the token, which keystoneauth logs only for a successful answer.
            status = 201 if "/v3/" in ex.request.url else 200
            ex.response = Response(
                status, number, reason="(inferred from the logged token)", last_line=number
            )
            self._asm.drop_pending(ex)
        if ex.response is None:
            return
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if data is not None and not self.trace.catalog:
            # The first catalog is the one the run used; a later token (a retry,
            # another run pasted after this one) does not move earlier requests.
            catalog = self._asm.services.learn_catalog(data)
            if catalog:
                self.trace.catalog = catalog
                for other in self.trace.exchanges:
                    if other.request.logged_as != "auth":
                        other.service, other.path = self._asm.services.locate(other.request.url)
        # The token body is long and the catalog is now known: keep a marker only.
        ex.response.body = Body(number, number, None, len(text), dropped=True)
        ex.response.last_line = number
