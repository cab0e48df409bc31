"""The reader of httplib's debug dump alone: lines in, records out (no parser is
made here; placing a record on its exchange is the parser's)."""

from __future__ import annotations

import subprocess
import sys

from osdoctor.parse.httplib_lines import (
    Header,
    HttplibReader,
    Reply,
    SentBody,
    SentRequest,
    SentUnread,
)
from osdoctor.parse.legacy import Sent


def test_a_sent_request_gives_its_method_path_host_and_headers() -> None:
    text = r"send: 'GET /v1.1/servers HTTP/1.1\r\nHost: nova:8774\r\nX-Auth-Token: t\r\n\r\n'"
    record = HttplibReader().feed(4, text)
    assert record == SentRequest(
        4, Sent("GET", "/v1.1/servers", "nova:8774", "Host: nova:8774\nX-Auth-Token: t", None)
    )


def test_a_body_sent_apart_is_a_body_record() -> None:
    assert HttplibReader().feed(5, """send: '{"server": {}}'""") == SentBody(5, '{"server": {}}')


def test_a_send_line_that_holds_nothing_is_kept_whole() -> None:
    assert HttplibReader().feed(6, "send: ''") == SentUnread(6, "send: ''")


def test_a_reply_gives_its_status_and_reason() -> None:
    assert HttplibReader().feed(7, r"reply: 'HTTP/1.1 404 Not Found\r\n'") == Reply(
        7, 404, "Not Found"
    )


def test_a_reply_without_a_status_line_is_no_record() -> None:
    assert HttplibReader().feed(7, "reply: nothing here") is None


def test_a_header_keeps_its_words_without_the_label() -> None:
    record = HttplibReader().feed(8, "header: x-compute-request-id: req-1")
    assert record == Header(8, "x-compute-request-id: req-1")


def test_other_lines_are_no_record() -> None:
    assert HttplibReader().feed(9, "REQ: curl -g -i -X GET http://x") is None


def test_the_reader_stands_without_the_parser() -> None:
    code = (
        "import sys, osdoctor.parse.httplib_lines; "
        "print(sorted(m for m in sys.modules if m.startswith('osdoctor.parse.')))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    # The shapes of old clients' lines only: no parser, no other reader.
    assert loaded == "['osdoctor.parse.httplib_lines', 'osdoctor.parse.legacy']\n"
