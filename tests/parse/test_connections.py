"""The reader of connection lines alone, over an assembler (no parser is made here)."""

from __future__ import annotations

from osdoctor.model import Request, Trace
from osdoctor.parse.assembler import Assembler
from osdoctor.parse.connections import ConnectionReader

NOVA = "https://nova.example:8774"


def reader() -> tuple[ConnectionReader, Assembler]:
    asm = Assembler(Trace())
    return ConnectionReader(asm), asm


def test_a_pool_line_answers_the_request_waiting_for_it() -> None:
    connections, asm = reader()
    ex = asm.request(Request("GET", NOVA + "/v2.1/servers", 1), None)
    line = NOVA + ' "GET /v2.1/servers HTTP/1.1" 503 120'
    assert connections.pool_line(2, line, None)
    assert ex.status == 503 and not asm.pending and len(asm.trace.exchanges) == 1


def test_a_pool_line_no_request_showed_is_an_exchange_of_its_own() -> None:
    connections, asm = reader()
    assert connections.pool_line(5, NOVA + ' "DELETE /v2.1/servers/x HTTP/1.1" 204 0', None)
    [ex] = asm.trace.exchanges
    assert (ex.request.method, ex.request.logged_as, ex.status) == ("DELETE", "urllib3", 204)


def test_requests_1x_pool_line_takes_its_host_from_the_last_connection_line() -> None:
    connections, asm = reader()
    asm.connecting = (1, "k.example:5000")
    assert connections.bare_pool_line(2, '"POST /v2.0/tokens HTTP/1.1" 401 116', None)
    assert asm.trace.exchanges[0].request.url == "http://k.example:5000/v2.0/tokens"


def test_a_refused_connection_fails_the_request_that_waited() -> None:
    connections, asm = reader()
    ex = asm.request(Request("POST", "http://10.0.0.5:5000/v3/auth/tokens", 1), None)
    text = (
        "Unable to establish connection to http://10.0.0.5:5000/v3/auth/tokens: "
        "[Errno 111] Connection refused"
    )
    assert connections.refused(2, text, None)
    assert ex.error is not None and ex.error.kind == "connection-refused" and not asm.pending
    assert asm.trace.messages[-1].kind == "error"


def test_a_failure_named_in_an_error_line_counts_once() -> None:
    connections, asm = reader()
    text = "ERROR (ConnectFailure): Unable to establish connection to http://a:1/x: refused"
    assert connections.error_line(3, text, None)
    assert asm.trace.exchanges[0].error is not None
    assert not connections.error_line(4, text, None)  # already read
    assert not connections.error_line(5, "ERROR (CommandError): no such flavor", None)


def test_a_request_that_did_not_time_out_is_not_read() -> None:
    connections, asm = reader()
    assert not connections.unanswered(1, "Request to http://a:1/x was sent", None)
    assert connections.unanswered(2, "Request to http://a:1/x timed out", None)
    assert asm.trace.exchanges[0].error is not None
