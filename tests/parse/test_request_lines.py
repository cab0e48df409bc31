"""The reader of request lines alone, over an assembler (no parser is made here)."""

from __future__ import annotations

from osdoctor.model import Trace
from osdoctor.parse.assembler import Assembler
from osdoctor.parse.request_lines import RequestReader

REQ = (
    'REQ: curl -g -i -X GET https://nova.example:8774/v2.1/servers -H "Accept: '
    'application/json" -H "OpenStack-API-Version: compute 2.79"'
)


def reader() -> tuple[RequestReader, Assembler]:
    asm = Assembler(Trace())
    return RequestReader(asm), asm


def test_a_request_line_starts_an_exchange_waiting_for_its_answer() -> None:
    requests, asm = reader()
    assert requests.request_line(4, REQ, None)
    [ex] = asm.trace.exchanges
    assert (ex.request.method, ex.request.url, ex.request.line) == (
        "GET",
        "https://nova.example:8774/v2.1/servers",
        4,
    )
    assert list(asm.pending) == [ex]
    assert asm.trace.api_versions == {"compute": "2.79"}


def test_a_request_line_a_paste_wrapped_is_joined_with_its_rest() -> None:
    requests, asm = reader()
    cut = len(REQ) - 30
    assert requests.request_line(1, REQ[:cut], None)
    assert not asm.trace.exchanges and requests.wrapped is not None
    assert requests.join_wrapped(REQ[cut:])
    assert requests.wrapped is None
    assert asm.trace.exchanges[0].request.header("OpenStack-API-Version") == "compute 2.79"


def test_a_wrapped_request_line_the_log_cut_is_read_as_it_stands() -> None:
    requests, asm = reader()
    requests.request_line(1, REQ[:-30], None)
    requests.release_wrapped()
    assert requests.wrapped is None
    assert asm.trace.exchanges[0].request.url == "https://nova.example:8774/v2.1/servers"


def test_a_request_line_that_is_no_curl_command_is_kept_as_a_debug_message() -> None:
    requests, asm = reader()
    requests.request(2, "curl", None)
    assert not asm.trace.exchanges
    assert [(m.line, m.kind) for m in asm.trace.messages] == [(2, "debug")]


def test_the_token_after_an_authentication_request_answers_it() -> None:
    requests, asm = reader()
    assert not requests.token_body(1, '{"token": {}}', None)  # no request before it
    requests.auth_request(2, "Making authentication request to https://k:5000/v3/auth/tokens", None)
    assert requests.token_body(3, '{"token": {"catalog": []}}', None)
    [ex] = asm.trace.exchanges
    assert ex.service == "identity" and ex.status == 201 and not asm.pending
    assert ex.response is not None and ex.response.body is not None
    assert ex.response.body.dropped and ex.response.body.text is None
