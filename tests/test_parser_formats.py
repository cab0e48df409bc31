"""Table-driven checks of the line formats the parser must read.

These are single lines in the shapes the clients' logging code produces
(keystoneauth, heatclient's own HTTP client, swiftclient, osc-lib), used as
unit inputs; whole logs come only from real client runs (tests/fixtures/logs).
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from osdoctor.headers import resp_headers
from osdoctor.intake import parse_lines, parsed_lines
from osdoctor.parse.http_text import parse_curl
from osdoctor.parse.lines import read_lines, text_lines
from osdoctor.parse.parser import Parser
from osdoctor.parse.prefixes import PrefixStripper
from osdoctor.parse.wraps import Widths

KS_REQ = (
    "REQ: curl -g -i -X GET http://127.0.0.1:8004/v1/p1/stacks/x/events?limit=1 "
    '-H "Accept: application/json" -H "X-Auth-Token: {SHA256}abc"'
)
URLLIB3 = 'http://127.0.0.1:8004 "GET /v1/p1/stacks/x/events?limit=1 HTTP/1.1" 404 117'
KS_RESP = (
    "RESP: [404] Content-Length: 117 Content-Type: application/json "
    "Date: Mon, 30 Nov 2026 02:00:58 GMT X-Openstack-Request-Id: req-1"
)
KS_BODY = 'RESP BODY: {"explanation": "The resource could not be found.", "code": 404}'


def parse(*lines: str) -> Parser:
    return parsed_lines(text_lines(lines), widths=Widths())


@pytest.mark.parametrize(
    "text,method,url,header,data",
    [
        (
            'curl -g -i -X GET http://h:5000/v3 -H "Accept: application/json"',
            "GET",
            "http://h:5000/v3",
            ("Accept", "application/json"),
            None,
        ),
        (
            'curl -g -i -X POST "http://h/v1/nodes?x=1" -H "Content-Type: application/json" '
            '-d \'{"driver": "fake"}\'',
            "POST",
            "http://h/v1/nodes?x=1",
            ("Content-Type", "application/json"),
            '{"driver": "fake"}',
        ),
        # heatclient's own HTTP client: single quotes, URL last, data before it.
        (
            "curl -g -i -X PUT -H 'X-Auth-Key: k' -d '{\"a\": 1}' http://h:8004/v1/p/stacks/x",
            "PUT",
            "http://h:8004/v1/p/stacks/x",
            ("X-Auth-Key", "k"),
            '{"a": 1}',
        ),
        # swiftclient: URL first, bare DELETE, -I for HEAD.
        (
            'curl -i http://h:8080/v1/AUTH_p/c -X PUT -H "X-Auth-Token: abc..."',
            "PUT",
            "http://h:8080/v1/AUTH_p/c",
            ("X-Auth-Token", "abc..."),
            None,
        ),
        (
            "curl -i DELETE http://h:8080/v1/AUTH_p/c/o",
            "DELETE",
            "http://h:8080/v1/AUTH_p/c/o",
            None,
            None,
        ),
        ("curl -i -I http://h:8080/v1/AUTH_p", "HEAD", "http://h:8080/v1/AUTH_p", None, None),
        # requests-era: -i without -g
        (
            'curl -i http://h:35357/v2.0/tokens -X POST -H "Content-Type: application/json"',
            "POST",
            "http://h:35357/v2.0/tokens",
            ("Content-Type", "application/json"),
            None,
        ),
    ],
)
def test_curl_shapes(
    text: str, method: str, url: str, header: tuple[str, str] | None, data: str | None
) -> None:
    curl = parse_curl(text)
    assert curl is not None
    assert (curl.method, curl.url, curl.data) == (method, url, data)
    if header:
        from osdoctor.headers import curl_headers

        assert curl_headers(curl.headers)[header[0]] == header[1]


def test_curl_without_url_is_not_a_request() -> None:
    assert parse_curl("curl -g -i -X GET") is None


@pytest.mark.parametrize(
    "raw,key,value",
    [
        (
            "Content-Length: 117 Date: Mon, 30 Nov 2026 02:00:58 GMT Location: http://h/x/y",
            "Location",
            "http://h/x/y",
        ),
        (
            "Content-Length: 117 Date: Mon, 30 Nov 2026 02:00:58 GMT Location: http://h/x/y",
            "Date",
            "Mon, 30 Nov 2026 02:00:58 GMT",
        ),
        (
            "CaseInsensitiveDict({'content-length': '114', 'www-authenticate': 'Keystone uri=x'})",
            "www-authenticate",
            "Keystone uri=x",
        ),
        ("{'Content-Type': 'text/plain', 'X-Trans-Id': 'tx1'}", "X-Trans-Id", "tx1"),
    ],
)
def test_response_header_shapes(raw: str, key: str, value: str) -> None:
    assert resp_headers(raw)[key] == value


def test_keystoneauth_exchange_is_paired_with_status_headers_and_body() -> None:
    p = parse(
        "x",
        KS_REQ,
        "Starting new HTTP connection (1): 127.0.0.1:8004",
        URLLIB3,
        KS_RESP,
        KS_BODY,
        "GET call to orchestration for "
        "http://127.0.0.1:8004/v1/p1/stacks/x/events?limit=1 used request id req-1",
    )
    (ex,) = p.trace.exchanges
    assert (ex.request.method, ex.status, ex.first_line, ex.last_line) == ("GET", 404, 2, 6)
    assert ex.response is not None and ex.response.header("x-openstack-request-id") == "req-1"
    assert ex.response.body is not None and ex.response.body.json()["code"] == 404
    assert ex.service == "orchestration" and ex.path == "/stacks/x/events"
    assert ex.query == "limit=1"
    assert ex.response.request_id == "req-1"


def test_auth_request_without_req_line_and_catalog() -> None:
    token = (
        '{"token": {"catalog": [{"type": "orchestration", "endpoints": [{"url": '
        '"http://127.0.0.1:9999/heat-api/v1/p1", "interface": "public"}]}]}}'
    )
    p = parse(
        "Making authentication request to http://127.0.0.1:5000/v3/auth/tokens",
        'http://127.0.0.1:5000 "POST /v3/auth/tokens HTTP/1.1" 201 900',
        token,
        "REQ: curl -g -i -X GET http://127.0.0.1:9999/heat-api/v1/p1/stacks/s1",
    )
    auth, get = p.trace.exchanges
    assert (auth.request.method, auth.status, auth.request.logged_as) == ("POST", 201, "auth")
    assert p.trace.catalog == {"orchestration": ["http://127.0.0.1:9999/heat-api/v1/p1"]}
    assert (get.service, get.path) == ("orchestration", "/stacks/s1")


def test_redirect_hop_is_linked() -> None:
    p = parse(
        "REQ: curl -g -i -X GET http://h/v1/p/stacks/s",
        'http://h:80 "GET /v1/p/stacks/s HTTP/1.1" 302 0',
        "RESP: [302] Location: http://h/v1/p/stacks/s/id1",
        "REQ: curl -g -i -X GET http://h/v1/p/stacks/s/id1",
    )
    assert p.trace.exchanges[1].redirected_from == 0


@pytest.mark.parametrize(
    "line,kind",
    [
        (
            "Unable to establish connection to http://h:5000/v3/auth/tokens: "
            "HTTPConnectionPool(...): Failed to establish a new connection: "
            "[Errno 111] Connection refused",
            "connection-refused",
        ),
        ("Request to http://h:5000/v3/auth/tokens timed out", "timeout"),
        (
            "SSL exception connecting to https://h:5000/v3/auth/tokens: "
            "[SSL: CERTIFICATE_VERIFY_FAILED]",
            "tls",
        ),
        (
            "Unable to establish connection to http://h:5000/v3/auth/tokens: "
            "[Errno -2] Name or service not known",
            "dns",
        ),
    ],
)
def test_transport_errors(line: str, kind: str) -> None:
    url = re.search(r"(https?://\S+?)(?::\s| timed out)", line)
    assert url is not None
    p = parse("Making authentication request to " + url.group(1), line)
    (ex,) = p.trace.exchanges
    assert ex.response is None and ex.error is not None and ex.error.kind == kind


def test_traceback_command_and_exit() -> None:
    p = parse(
        "START with options: --debug stack hook poll 1234",
        "Traceback (most recent call last):",
        '  File "/x/heatclient/osc/v1/stack.py", line 10, in take_action',
        "    hook = x[0]",
        "IndexError: list index out of range",
        "clean_up PollHook: list index out of range",
        "END return value: 1",
    )
    t = p.trace
    assert t.command == "openstack stack hook poll 1234" and t.client == "openstackclient"
    (tb,) = t.tracebacks
    assert (tb.exc_type, tb.message, tb.first_line, tb.last_line) == (
        "IndexError",
        "list index out of range",
        2,
        5,
    )
    assert tb.frames[0].function == "take_action"
    assert (t.exit_code, t.exit_line) == (1, 7)


def test_multiline_json_body_is_one_body() -> None:
    p = parse(
        KS_REQ,
        URLLIB3,
        KS_RESP,
        "RESP BODY: {",
        '  "code": 404,',
        '  "title": "x"',
        "}",
        "END return value: 1",
    )
    ex = p.trace.exchanges[0]
    assert ex.response is not None and ex.response.body is not None
    assert ex.response.body.json() == {"code": 404, "title": "x"}
    assert p.trace.exit_code == 1


def test_heat_legacy_response_dump() -> None:
    p = parse(
        "curl -g -i -X GET -H 'Accept: application/json' http://h:8004/v1/p/stacks/s",
        "",
        "HTTP/1.1 404 Not Found",
        "Content-Type: application/json",
        "",
        '{"code": 404}',
        "",
        "ERROR: The Stack (s) could not be found.",
    )
    ex = p.trace.exchanges[0]
    assert ex.status == 404 and ex.response is not None
    assert ex.response.header("content-type") == "application/json"
    assert ex.response.body is not None and ex.response.body.json() == {"code": 404}
    assert p.trace.messages[-1].kind == "error"


def test_swift_logs_request_after_the_pool_line() -> None:
    p = parse(
        'http://h:8080 "PUT /v1/AUTH_p/c/o HTTP/1.1" 201 0',
        'REQ: curl -i http://h:8080/v1/AUTH_p/c/o -X PUT -H "Content-Length: 3"',
        "RESP STATUS: 201 Created",
        "RESP HEADERS: {'Etag': 'abc', 'X-Trans-Id': 'tx1'}",
    )
    (ex,) = p.trace.exchanges
    assert (ex.request.logged_as, ex.status, ex.service) == ("curl", 201, "object-store")
    assert ex.response is not None and ex.response.header("X-Trans-Id") == "tx1"


@pytest.mark.parametrize(
    "prefixed",
    [
        "2026-11-30 02:00:58.123 4242 DEBUG keystoneauth.session [None u p] " + KS_REQ,
        "[2026-11-30 02:00:58,123] DEBUG    keystoneauth.session " + KS_REQ,
        "DEBUG (session:375) " + KS_REQ,
        "DEBUG:keystoneauth.session:" + KS_REQ,
        "> " + KS_REQ,
        "> > " + KS_REQ,
        "Nov 30 02:00:58 host1 openstack[4242]: " + KS_REQ,
        "2026-11-30T02:00:58+0000 host1 openstack[4242]: " + KS_REQ,
        "0.004 2 " + KS_REQ,
        "\x1b[32m" + KS_REQ + "\x1b[0m",
        KS_REQ + "\r",
    ],
)
def test_prefixes_are_stripped(prefixed: str) -> None:
    p = parse(prefixed)
    (ex,) = p.trace.exchanges
    assert ex.request.url == "http://127.0.0.1:8004/v1/p1/stacks/x/events?limit=1"


def test_log_file_times_become_offsets() -> None:
    s = PrefixStripper()
    a = s.strip("2026-11-30 23:59:59.500 1 DEBUG x msg")  # noqa: B005 - PrefixStripper
    b = s.strip("2026-12-01 00:00:01.000 1 DEBUG x msg")  # noqa: B005
    assert (a.time, b.time) == (0.0, 1.5)


def test_session_metadata_gives_command_and_exit() -> None:
    p = parse(
        "#osdoctor-session 1",
        '#command ["heat", "--debug", "stack-list"]',
        "0.010 2 " + KS_REQ,
        "#exit 0 1.250",
    )
    t = p.trace
    assert (t.command, t.client, t.exit_code, t.format) == (
        "heat stack-list",
        "heatclient",
        0,
        "session",
    )
    assert t.exchanges[0].time == 0.01


def test_overlong_line_is_cut_without_reading_it_whole() -> None:
    data = b"REQ: curl -g -i -X GET http://h/x " + b"A" * 5000 + b"\nEND return value: 0\n"
    lines = list(read_lines(io.BytesIO(data), max_line=1024))
    assert lines[0].cut == len(data.split(b"\n")[0]) - 1024
    assert lines[1].text == "END return value: 0" and lines[1].number == 2


def test_invalid_utf8_and_nul_bytes_survive() -> None:
    lines = list(read_lines(io.BytesIO(b"ab\xff\x00cd\nEND return value: 2\n")))
    assert lines[0].text == "ab\ufffdcd"
    assert parse_lines(lines).exit_code == 2


@pytest.mark.parametrize("width", [37, 61, 80])
def test_request_line_wrapped_mid_word_is_joined(width: int) -> None:
    line = KS_REQ.replace("{SHA256}abc", "gAAAAABfakeTokenWrappedAcrossLines0123456789")
    wrapped = [line[i : i + width] for i in range(0, len(line), width)]
    p = parse(*wrapped, URLLIB3, KS_RESP)
    (ex,) = p.trace.exchanges
    assert ex.request.url == "http://127.0.0.1:8004/v1/p1/stacks/x/events?limit=1"
    assert ex.status == 404
    assert ex.request.header("Accept") == "application/json"
    assert "WrappedAcross" not in ex.request.raw_headers


def test_token_body_without_a_pool_line_answers_the_auth_request() -> None:
    """The heat shell logs no urllib3 lines: the logged token still means 201."""
    token = (
        '{"token": {"catalog": [{"type": "orchestration", "endpoints": [{"url": '
        '"http://h:8004/v1/p1", "interface": "public"}]}]}}'
    )
    p = parse("Making authentication request to http://h:5000/v3/auth/tokens", token)
    (auth,) = p.trace.exchanges
    assert auth.status == 201 and auth.response is not None
    assert "inferred" in (auth.response.reason or "")
    assert p.trace.catalog == {"orchestration": ["http://h:8004/v1/p1"]}


@pytest.mark.parametrize(
    "agent,client",
    [
        ("python-swiftclient-4.11.0", "swiftclient"),
        ("python-heatclient keystoneauth1/5.18.1 python-requests/2.34.2", "heatclient"),
        ("openstacksdk/4.22.0 keystoneauth1/5.18.1", "openstackclient"),
        ("curl/8.0", "unknown"),
    ],
)
def test_client_from_the_user_agent_when_no_command_line(agent: str, client: str) -> None:
    p = parse(f'REQ: curl -i http://h:8080/v1/AUTH_p -X GET -H "User-Agent: {agent}"')
    assert p.trace.client == client


def test_a_log_pasted_through_a_fixed_width_wrap_keeps_its_verdict() -> None:
    """A real fixture as a ticket shows it: quoted, CRLF, hard-wrapped at 100 columns."""
    from osdoctor.diagnose import diagnose
    from osdoctor.kb.loader import load_knowledge

    logs = Path(__file__).resolve().parent / "fixtures" / "logs"
    src = (logs / "heat.stack-update.redirect-missing.log").read_text().splitlines()
    pasted = (
        "\r\n".join(
            "> " + line[i : i + 100] for line in src for i in range(0, max(len(line), 1), 100)
        )
        + "\r\n"
    )
    kb = load_knowledge(user=False)
    report = diagnose(parse_lines(read_lines(io.BytesIO(pasted.encode()))), kb)
    assert report.scenario is not None
    assert (report.scenario.id, report.scenario.branch) == ("heat.stack-update", "redirect-missing")
    assert "heat.redirect-without-location" in {f.id for f in report.findings}
    assert any("wrapped at 100" in p for p in report.trace.problems)


def test_table_rows_of_one_width_are_not_taken_for_a_wrap() -> None:
    rows = ["| " + f"name-{i:03d}".ljust(70) + " |" for i in range(40)]
    p = parse("START with options: --debug server list", *rows, "END return value: 0")
    assert [m.text for m in p.trace.messages if m.kind == "output"] == rows
    assert not any("wrapped" in problem for problem in p.trace.problems)
