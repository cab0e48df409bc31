"""Named groups in a request pattern's ``body`` and ``header_value`` regexes are
placeholders: a rule can quote Nova's fault message or Swift's X-Trans-Id."""

from __future__ import annotations

import pytest

from osdoctor.intake import parsed_lines
from osdoctor.kb.conditions import Context, compile_conditions, evaluate_all
from osdoctor.parse.lines import text_lines
from osdoctor.parse.wraps import Widths

URL = "http://127.0.0.1:8774/compute/v2.1/servers/3f6c"
LINES = [
    f'REQ: curl -g -i -X GET {URL} -H "Accept: application/json"',
    'http://127.0.0.1:8774 "GET /compute/v2.1/servers/3f6c HTTP/1.1" 200 120',
    "RESP: [200] Content-Type: application/json X-Trans-Id: tx1234-0065",
    'RESP BODY: {"server": {"status": "ERROR", "fault": {"code": 500, '
    '"message": "No valid host was found. "}}}',
]


def context() -> Context:
    return Context(parsed_lines(text_lines(LINES), widths=Widths()).trace, "failure")


@pytest.mark.parametrize(
    "pattern,captured",
    [
        (
            {"body": '"fault": \\{[^}]*"message": "(?P<fault>[^"]*)"'},
            {"fault": "No valid host was found. "},
        ),
        ({"header_value": {"X-Trans-Id": "(?P<trans_id>tx\\S+)"}}, {"trans_id": "tx1234-0065"}),
        ({"body": '"status": "ERROR"'}, {}),
    ],
)
def test_named_groups_become_captures(pattern: dict[str, object], captured: dict[str, str]) -> None:
    match, _held, _failed = evaluate_all(compile_conditions([{"request": pattern}]), context())
    assert match is not None
    assert {k: v for k, v in match.captures.items() if k in captured} == captured


def test_a_pattern_that_does_not_match_captures_nothing() -> None:
    cond = compile_conditions([{"request": {"body": '"message": "(?P<fault>Quota[^"]*)"'}}])
    match, _held, _failed = evaluate_all(cond, context())
    assert match is None
