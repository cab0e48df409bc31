"""The table of openings alone: each opening goes to its reader, in order, and a
reader that does not take a line lets it go on (no parser is made here; the
readers are stand-ins that record what they are given)."""

from __future__ import annotations

import pytest

from osdoctor.parse.openings import OPENINGS, bind, take


class Stand:
    """Stands for one reader: each method records (reader.method, text), and takes
    the line unless it is in ``refuse``."""

    def __init__(self, name: str, seen: list[tuple[str, str]], refuse: set[str]) -> None:
        self.name, self.seen, self.refuse = name, seen, refuse

    def __getattr__(self, method: str) -> object:
        def read(number: int, text: str, time: float | None) -> bool:
            self.seen.append((f"{self.name}.{method}", text))
            return f"{self.name}.{method}" not in self.refuse

        return read


def readers(seen: list[tuple[str, str]], refuse: set[str] | None = None) -> dict[str, object]:
    names = {name.partition(".")[0] for _opening, name in OPENINGS}
    found: dict[str, object] = {name: Stand(name, seen, refuse or set()) for name in names}
    # A reader that is a function (the parser's own) is bound as it is.
    found["traceback"] = Stand("traceback", seen, refuse or set()).start
    return found


LINES = [
    ("RESP: [200] Content-Length: 2", "responses.answer"),
    ("RESP BODY: {}", "responses.answer"),
    ("REQ: curl -g -i -X GET http://x", "requests.request_line"),
    ("Request to http://x timed out", "connections.unanswered"),
    ('http://x:80 "GET / HTTP/1.1" 200 2', "connections.pool_line"),
    ('https://x:443 "GET / HTTP/1.1" 200 2', "connections.pool_line"),
    ("header: K: V", "legacy.header_line"),
    ('"POST /v2.0/tokens HTTP/1.1" 401 116', "connections.bare_pool_line"),
    ("send: 'GET / HTTP/1.1'", "legacy.send_line"),
    ("reply: 'HTTP/1.1 200 OK'", "legacy.reply_line"),
    ("curl -i http://x -X GET", "requests.curl_line"),
    ("clean_up ShowServer: No server", "run.clean_up"),
    ("command: server show -> openstackclient", "run.command"),
    ("Making authentication request to http://k/v3/auth/tokens", "requests.auth_request"),
    ('{"token": {}}', "requests.token_body"),
    ("Traceback (most recent call last):", "traceback.start"),
    ("Unable to establish connection to http://x: refused", "connections.refused"),
    ("SSL exception connecting to https://x: bad", "connections.refused"),
    ("START with options: server list", "run.start"),
    ("Starting new HTTP connection (1): x:80", "run.noise"),
    ("ERROR (ConnectFailure): Unable to establish connection", "connections.error_line"),
    ("END return value: 1", "run.end"),
    (
        "Failed to discover available identity versions when contacting http://k",
        "connections.discovery_failed",
    ),
    ("HTTP/1.1 409 Conflict", "responses.heat_status"),
]


@pytest.mark.parametrize(("text", "reader"), LINES)
def test_each_opening_goes_to_its_reader(text: str, reader: str) -> None:
    seen: list[tuple[str, str]] = []
    assert take(bind(readers(seen)), 1, text, None)
    assert seen == [(reader, text)]


def test_a_line_no_opening_names_goes_to_no_reader() -> None:
    seen: list[tuple[str, str]] = []
    table = bind(readers(seen))
    for text in ("GET call to compute used request id req-1", '  File "x.py", line 1', "x"):
        assert not take(table, 1, text, None)
    assert seen == []


def test_a_reader_that_does_not_take_a_line_lets_the_next_opening_try() -> None:
    seen: list[tuple[str, str]] = []
    table = bind(readers(seen, refuse={"responses.answer", "connections.unanswered"}))
    assert not take(table, 1, "RESPONSE was fine", None)
    assert not take(table, 2, "Request to http://x was sent", None)
    assert [reader for reader, _text in seen] == ["responses.answer", "connections.unanswered"]


def test_lines_that_are_read_on_go_to_every_reader_of_their_opening() -> None:
    seen: list[tuple[str, str]] = []
    refuse = {"connections.bare_pool_line", "run.heat_deprecation", "connections.refused"}
    table = bind(readers(seen, refuse))
    take(table, 1, '"heat stack-create" is deprecated, please use openstack', None)
    assert [reader for reader, _text in seen] == [
        "connections.bare_pool_line",
        "run.heat_deprecation",
    ]
    seen.clear()
    take(table, 2, "Unable to establish connection to nowhere", None)
    take(table, 3, "Using bare metal API version '1.78'", None)
    assert [reader for reader, _text in seen] == ["connections.refused", "run.baremetal_shell"]


def test_openings_of_one_first_character_keep_their_order() -> None:
    table = bind(readers([]))
    assert [opening for opening, _read in table["R"]] == [
        "RESP",
        "REQ: ",
        "Request to ",
        "Request returned failure status",
    ]
    assert [opening for opening, _read in table["S"]] == [
        "SSL exception connecting to ",
        "START with options:",
        "Starting new HTTP",
    ]
