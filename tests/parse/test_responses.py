"""The reader of answers alone, over an assembler (no parser is made here)."""

from __future__ import annotations

from osdoctor.model import Request, Trace
from osdoctor.parse.assembler import Assembler
from osdoctor.parse.bodies import BodyCollector, HeatResponseCollector
from osdoctor.parse.responses import ResponseReader

URL = "https://nova.example:8774/v2.1/servers"


def waiting() -> tuple[ResponseReader, Assembler]:
    asm = Assembler(Trace())
    asm.request(Request("GET", URL, 1), None)
    return ResponseReader(asm), asm


def test_an_answer_line_answers_the_last_request() -> None:
    responses, asm = waiting()
    assert responses.answer(2, "RESP: [404] Content-Type: application/json", None)
    [ex] = asm.trace.exchanges
    assert ex.status == 404 and not asm.pending
    assert ex.response is not None and ex.response.raw_headers == "Content-Type: application/json"


def test_a_body_that_goes_on_is_left_to_a_collector() -> None:
    responses, asm = waiting()
    responses.answer(2, "RESP: [200] Content-Length: 80", None)
    assert responses.answer(3, 'RESP BODY: {"servers": [', None)
    assert isinstance(asm.collector, BodyCollector)


def test_a_line_that_only_opens_like_an_answer_is_not_read() -> None:
    responses, asm = waiting()
    assert not responses.answer(2, "RESPONSE was fine", None)
    assert asm.trace.exchanges[0].response is None


def test_the_heat_shells_status_line_answers_the_request_and_gathers_the_rest() -> None:
    responses, asm = waiting()
    assert responses.heat_status(2, "HTTP/1.1 409 Conflict", None)
    ex = asm.trace.exchanges[0]
    assert ex.status == 409 and ex.response is not None and ex.response.reason == "Conflict"
    assert isinstance(asm.collector, HeatResponseCollector)
    assert not responses.heat_status(3, "HTTP/1.1 200 OK", None)  # answered already
