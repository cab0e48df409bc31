"""The reader of older and foreign shapes: httplib's records (read by
``parse.httplib_lines``) placed on their exchanges, gophercloud's error lines,
and escaped reports (Ansible, ``level=debug msg=``) whose inner lines are read
as lines.

The words of httplib's lines are ``parse.httplib_lines``'; which exchange each
belongs to is the assembler's (``parse.assembler``).
"""

from __future__ import annotations

from collections.abc import Callable

from osdoctor.model import Body, Exchange, Request, Response
from osdoctor.parse import commands, escaped, legacy
from osdoctor.parse.assembler import Assembler
from osdoctor.parse.clients import note_command
from osdoctor.parse.http_text import split_url
from osdoctor.parse.httplib_lines import (
    Header,
    HttplibReader,
    HttplibRecord,
    Reply,
    SentBody,
    SentRequest,
    SentUnread,
)
from osdoctor.parse.printed_messages import classify

#: Reads lines another program's line held, each at that line's number.
InnerReader = Callable[[int, list[str], float | None], None]


class LegacyReader:
    """Reads httplib, gophercloud and escaped lines into ``assembler``; the lines
    an escaped report holds go to ``read_inner``."""

    def __init__(self, assembler: Assembler, read_inner: InnerReader) -> None:
        self._asm = assembler
        self.trace = assembler.trace
        self._read_inner = read_inner
        self._httplib = HttplibReader()
        #: gophercloud's error read last: the answer's body may follow on the next line.
        self.gopher: Exchange | None = None

    def send_line(self, number: int, text: str, time: float | None) -> bool:
        """httplib's ``send: '...'``."""
        sent = self._httplib.feed(number, text)
        if sent is not None:
            self._place_httplib(sent, time)
        return True

    def reply_line(self, number: int, text: str, time: float | None) -> bool:
        """httplib's ``reply: 'HTTP/1.1 200 OK'`` (False when it holds no status)."""
        reply = self._httplib.feed(number, text)
        if reply is None:
            return False
        self._place_httplib(reply, time)
        return True

    def header_line(self, number: int, text: str, time: float | None) -> bool:
        """httplib's ``header: K: V``."""
        header = self._httplib.feed(number, text)
        if header is not None:
            self._place_httplib(header, time)
        return True

    def _place_httplib(self, record: HttplibRecord, time: float | None) -> None:
        """An httplib record (``parse.httplib_lines``) on the exchange it belongs to."""
        if isinstance(record, Header):
            self._httplib_header(record)
        elif isinstance(record, Reply):
            self._httplib_reply(record)
        else:
            self._httplib_send(record, time)

    def _httplib_send(
        self, record: SentRequest | SentBody | SentUnread, time: float | None
    ) -> None:
        number = record.number
        self.trace.openstack_lines += 1
        ex = self._asm.last
        if isinstance(record, SentBody):
            # The body, sent apart from the request line and headers.
            if ex is not None and ex.request.body is None and ex.response is None:
                ex.request.body = Body(number, number, record.body, len(record.body))
            return
        if isinstance(record, SentUnread):
            self._asm.message(number, "debug", record.text)
            return
        sent = record.sent
        for pending in reversed(self._asm.pending):
            _b, path, query = split_url(pending.request.url)
            if (
                pending.request.method == sent.method
                and pending.response is None
                and (
                    sent.path == path + ("?" + query if query else "")
                    or sent.path.split("?")[0] == path
                )
            ):
                ex = pending  # the REQ line that logged it as curl
                break
        else:
            base = "http://" + sent.host if sent.host else ""
            if not base and self._asm.connecting is not None:
                base = "http://" + self._asm.connecting[1]
            req = Request(
                sent.method, base + sent.path, number, raw_headers=sent.headers, logged_as="httplib"
            )
            ex = self._asm.new_exchange(req, time)
            self._asm.pending.append(ex)
        if sent.body is not None and ex.request.body is None:
            ex.request.body = Body(number, number, sent.body, len(sent.body))

    def _httplib_reply(self, record: Reply) -> None:
        self.trace.openstack_lines += 1
        for ex in reversed(self._asm.pending):
            if ex.response is None:
                ex.response = Response(
                    record.status, record.number, reason=record.reason, last_line=record.number
                )
                self._asm.drop_pending(ex)
                self._asm.last = ex
                return

    def _httplib_header(self, record: Header) -> None:
        number, text = record.number, record.text
        answer = self._asm.answer_line(number, "header: ", text)
        if answer is None:
            return
        response = answer[1]
        response.raw_headers = (response.raw_headers + " " + text) if response.raw_headers else text
        response.last_line = number
        rid = text.partition(": ")
        if rid[0].lower() in ("x-compute-request-id", "x-openstack-request-id") and rid[2]:
            response.request_id = response.request_id or rid[2].strip()

    def gophercloud(self, number: int, text: str, time: float | None) -> None:
        found = legacy.gophercloud(text)
        if found is None:
            return
        method, url, status = found
        ex = self._asm.new_exchange(Request(method, url, number, logged_as="gophercloud"), time)
        ex.response = Response(status, number, last_line=number)
        default = legacy.gophercloud_default(text)
        if default is not None and default[3] is not None:
            ex.response.body = Body(number, number, default[3], len(default[3]))
            return
        self.gopher = ex

    def gopher_body(self, number: int, text: str) -> None:
        """gophercloud prints the answer's body on the line after its error."""
        ex, self.gopher = self.gopher, None
        if ex is None or ex.response is None or ex.response.line != number - 1:
            return
        if text[:1] in "{[":
            ex.response.body = Body(number, number, text, len(text))
            ex.response.last_line = number

    def escaped(self, number: int, text: str, time: float | None) -> None:
        """An escaped report (Ansible, ``level=debug msg=``): its inner lines are read
        as lines, each at the report's line."""
        head, lines, command = escaped.expand(text)
        if command is not None:
            for part in command.split("\n"):
                recognised = commands.recognise(part)
                if recognised is not None and recognised[1] != "unknown":
                    note_command(self.trace, number, recognised[0], recognised[1], part)
                    break
        if head is not None:
            self._asm.message(number, classify(head) if head else "text", head)
        self._read_inner(number, lines, time)
