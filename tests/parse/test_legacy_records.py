"""The reader of older and foreign shapes alone, over an assembler (no parser is
made here)."""

from __future__ import annotations

from osdoctor.model import Trace
from osdoctor.parse.assembler import Assembler
from osdoctor.parse.legacy_records import LegacyReader


def reader() -> tuple[LegacyReader, Assembler, list[tuple[int, list[str]]]]:
    asm = Assembler(Trace())
    inner: list[tuple[int, list[str]]] = []
    return LegacyReader(asm, lambda number, lines, time: inner.append((number, lines))), asm, inner


def test_httplibs_send_reply_and_headers_make_one_exchange() -> None:
    legacy, asm, _inner = reader()
    assert legacy.send_line(
        1, "send: 'GET /v1.1/servers HTTP/1.1\\r\\nHost: nova:8774\\r\\n\\r\\n'", None
    )
    assert legacy.reply_line(2, "reply: 'HTTP/1.1 404 Not Found\\r\\n'", None)
    assert legacy.header_line(3, "header: x-compute-request-id: req-1", None)
    [ex] = asm.trace.exchanges
    assert (ex.request.url, ex.status) == ("http://nova:8774/v1.1/servers", 404)
    assert ex.response is not None and ex.response.request_id == "req-1"
    assert not legacy.reply_line(4, "reply: 'garbage'", None)


def test_gopherclouds_error_and_the_body_on_the_next_line() -> None:
    legacy, asm, _inner = reader()
    legacy.gophercloud(
        5,
        "Expected HTTP response code [202] when accessing [PUT http://c:8776/v3/v], "
        "but got 409 instead",
        None,
    )
    assert legacy.gopher is not None
    legacy.gopher_body(6, '{"conflict": {}}')
    [ex] = asm.trace.exchanges
    assert ex.status == 409 and ex.response is not None and ex.response.body is not None
    assert ex.response.body.text == '{"conflict": {}}' and legacy.gopher is None


def test_an_escaped_reports_inner_lines_are_handed_on_at_its_line() -> None:
    legacy, _asm, inner = reader()
    legacy.escaped(7, 'level=debug msg="REQ: curl -g -i -X GET http://x\\nRESP: [200]"', None)
    assert inner and inner[0][0] == 7
    assert any(line.startswith("REQ: curl") for line in inner[0][1])
