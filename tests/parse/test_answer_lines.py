"""The reader of answer lines alone: lines in, records out (no parser is made
here; placing a record on the exchange it answers is the parser's)."""

from __future__ import annotations

import subprocess
import sys

from osdoctor.parse.answer_lines import (
    AnswerBody,
    AnswerHeaders,
    AnswerLine,
    AnswerReader,
    AnswerStatus,
)


def test_an_answer_line_gives_its_status_and_headers() -> None:
    record = AnswerReader().feed(3, "RESP: [404] Content-Type: application/json ")
    assert record == AnswerLine(3, 404, "Content-Type: application/json")


def test_an_answer_line_without_a_status_keeps_its_headers() -> None:
    assert AnswerReader().feed(3, "RESP: Content-Length: 0") == AnswerLine(
        3, None, "Content-Length: 0"
    )


def test_an_old_novaclients_dict_repr_gives_status_headers_and_body() -> None:
    text = "RESP:{'status': '409', 'content-length': '60'} {\"conflictingRequest\": {}}"
    record = AnswerReader().feed(5, text)
    assert isinstance(record, AnswerLine)
    assert record.status == 409 and record.body == '{"conflictingRequest": {}}'
    assert "content-length" in record.headers


def test_a_status_line_gives_its_code_and_reason() -> None:
    assert AnswerReader().feed(4, "RESP STATUS: 500 Internal Server Error") == AnswerStatus(
        4, 500, "Internal Server Error"
    )
    assert AnswerReader().feed(4, "RESP STATUS: x") == AnswerStatus(4, None, None)


def test_headers_and_body_lines_keep_their_words() -> None:
    reader = AnswerReader()
    assert reader.feed(6, "RESP HEADERS: {'a': 'b'}") == AnswerHeaders(6, "{'a': 'b'}")
    assert reader.feed(7, 'RESP BODY:  {"servers": []}') == AnswerBody(7, '{"servers": []}')


def test_other_lines_are_no_record() -> None:
    assert AnswerReader().feed(1, "RESPONSE was fine") is None
    assert AnswerReader().feed(1, "REQ: curl -g -i -X GET http://x") is None


def test_the_reader_stands_without_the_parser() -> None:
    code = (
        "import sys, osdoctor.parse.answer_lines; "
        "print(sorted(m for m in sys.modules if m.startswith('osdoctor.parse.')))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    # The shapes of answer lines only: no parser, no other reader.
    assert loaded == "['osdoctor.parse.answer_lines', 'osdoctor.parse.legacy']\n"
