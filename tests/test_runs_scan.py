"""The scans that find where runs start give what the plain patterns would.

``parse.run_split`` finds program names with ``bytes.find`` and pid lines after a
line break, for speed; these tests hold them to the patterns they stand for,
over made-up text full of the pieces that matter (paths, names, prefixes).
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from osdoctor import regex
from osdoctor.model import Body, Exchange, Message, Request, Response, Trace
from osdoctor.parse import run_split as runs
from osdoctor.parse.prefixes import _is_server_logger
from osdoctor.secrets.scrub import _holds_any, _scrub

_PIECES = [
    b"openstack",
    b"nova",
    b"heat",
    b"baremetal",
    b"/",
    b"/usr/bin/",
    b".",
    b"-",
    b"_",
    b"x",
    b"9",
    b" ",
    b"\t",
    b"\n",
    b"$ ",
    b'"',
    b"\x1b[0m",
    b"2024-01-02 03:04:05.123 ",
    b"> ",
    b"123 ",
    b"4242 ",
    b"DEBUG ",
    b"INFO: ",
    b"keystoneauth.session ",
    b"nova.api ",
    b"START with options",
    b"run(Namespace(",
]
_TEXT = st.lists(st.sampled_from(_PIECES), max_size=40).map(b"".join)


def _near(data: bytes, starts: list[int]) -> list[int]:
    """Those of ``starts`` that ``_marks`` reads: not too far into their line."""
    return [at for at in starts if at - (data.rfind(b"\n", 0, at) + 1) <= runs._MAX_BEFORE]


@settings(max_examples=400, deadline=None)
@given(_TEXT, st.integers(min_value=0, max_value=260))
def test_program_names_are_found_where_the_pattern_finds_them(text: bytes, pad: int) -> None:
    data = b"y" * pad + b" " + text
    plain = [m.start() for m in re.finditer(runs.PROGRAM_PATTERN, data)]
    assert _near(data, runs._program_starts(data)) == _near(data, plain)


def _pids(data: bytes, pid: bytes | None) -> list[tuple[int, bytes]]:
    """``RunSplitter._pids`` as the plain ``^`` patterns give it."""
    events: list[tuple[int, bytes]] = []
    pos = 0
    pattern: re.Pattern[bytes] | regex.Pattern[bytes]
    while True:
        if pid is None:
            pattern = runs._ANY_PID
        else:
            pattern = re.compile(
                rb"(?m)^" + runs._TIMESTAMP + rb"(?!" + pid + rb" )(\d+) " + runs._LEVELS
            )
        m = pattern.search(data, pos)
        if m is None:
            return events
        pos = m.end()
        if _is_server_logger(m.group(2).decode("ascii", "replace")):
            continue
        pid = m.group(1)
        events.append((m.start(), pid))


@settings(max_examples=400, deadline=None)
@given(_TEXT, st.sampled_from([None, b"123", b"4242"]))
def test_pid_lines_are_found_where_the_pattern_finds_them(text: bytes, pid: bytes | None) -> None:
    splitter = runs.RunSplitter()
    splitter._run.pid = pid
    assert splitter._pids(text) == _pids(text, pid)


def _trace(text: str) -> Trace:
    body = Body(first_line=2, last_line=2, text='{"a": ["' + text + '"]}')
    request = Request(method="GET", url="https://x/" + text, line=1, body=body)
    response = Response(status=200, line=3, raw_headers="h: " + text)
    return Trace(
        exchanges=[Exchange(index=0, request=request, response=response)],
        messages=[Message(line=4, kind="output", text=text)],
        catalog={"compute": [text]},
        problems=[text],
    )


def _strings(trace: Trace) -> list[str]:
    """Every string ``_scrub`` reads of ``trace``."""
    strings: list[str] = []

    def keep(text: str) -> str:
        strings.append(text)
        return text

    _scrub(trace, keep, set())
    return strings


@given(st.text(alphabet="abcS3cr3t%20 ", max_size=12))
def test_a_value_anywhere_in_a_trace_is_seen(text: str) -> None:
    value = "S3cr3tS3cr3t"
    for trace in (_trace(text), _trace(text + value + text)):
        seen = any(value in s for s in _strings(trace))
        assert _holds_any(trace, (value, "other-value")) == seen
