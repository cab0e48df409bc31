"""The reader of no-answer lines alone: lines in, ``Unanswered`` records out
(no parser is made here; pairing a record with its request is the parser's)."""

from __future__ import annotations

import subprocess
import sys

from osdoctor.parse.unanswered import Unanswered, UnansweredReader

REFUSED = (
    "Unable to establish connection to http://10.0.0.5:5000/v3/auth/tokens: "
    "HTTPConnectionPool(host='10.0.0.5', port=5000): Max retries exceeded with url: "
    "/v3/auth/tokens (Caused by NewConnectionError('<urllib3.connection.HTTPConnection "
    "object at 0x7f>: Failed to establish a new connection: [Errno 111] Connection refused'))"
)
UNTRUSTED = (
    "SSL exception connecting to https://10.0.0.5:5000/v3: HTTPSConnectionPool("
    "host='10.0.0.5', port=5000): Max retries exceeded with url: /v3 (Caused by SSLError("
    "SSLError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed (_ssl.c:1006)')))"
)


def test_a_refused_connection_names_its_url_and_kind() -> None:
    record = UnansweredReader().feed(7, REFUSED)
    assert record == Unanswered(
        7, "http://10.0.0.5:5000/v3/auth/tokens", "connection-refused", REFUSED
    )


def test_a_certificate_not_trusted_is_a_tls_failure_with_its_detail() -> None:
    record = UnansweredReader().feed(3, UNTRUSTED)
    assert record is not None
    assert (record.url, record.kind, record.detail) == (
        "https://10.0.0.5:5000/v3",
        "tls",
        "certificate",
    )


def test_a_timeout_is_read_from_keystoneauths_words() -> None:
    text = "Request to https://nova.example:8774/v2.1/servers timed out"
    record = UnansweredReader().feed(9, text)
    assert record == Unanswered(9, "https://nova.example:8774/v2.1/servers", "timeout", text)


def test_a_request_line_that_did_not_time_out_is_no_record() -> None:
    assert UnansweredReader().feed(1, "Request to https://nova.example:8774/ was sent") is None


def test_a_failure_inside_another_message_keeps_that_messages_words() -> None:
    cause = "Unable to establish connection to http://a:1/x: [Errno 111] Connection refused"
    record = UnansweredReader().within(4, cause, "ERROR (ConnectFailure): " + cause)
    assert record is not None
    assert (record.url, record.kind, record.text) == (
        "http://a:1/x",
        "connection-refused",
        "ERROR (ConnectFailure): " + cause,
    )


def test_a_failure_inside_another_message_counts_only_with_an_http_url() -> None:
    assert (
        UnansweredReader().within(4, "Unable to establish connection to a:1/x: refused", "x")
        is None
    )


def test_the_reader_stands_without_the_parser() -> None:
    code = (
        "import sys, osdoctor.parse.unanswered; "
        "print(sorted(m for m in sys.modules if m.startswith('osdoctor.parse.')))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    # The words of transport failures only: no parser, no other reader.
    assert loaded == "['osdoctor.parse.transport_kind', 'osdoctor.parse.unanswered']\n"
