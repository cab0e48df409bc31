"""Evidence quotes the log, and no report shows a method or a path the log does not
(issue 31, defect 2: ``line 3 GET https://…/v3/auth/tokens`` for a line that
says only ``ERROR (ConnectFailure): Unable to establish connection to …``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from osdoctor.parse.paste import unbox, unlink
from osdoctor.render.json_report import render_json
from osdoctor.render.markdown_report import render_markdown
from osdoctor.render.text import render_text
from tests.helpers.public_logs import public_log
from tests.helpers.reports import ALL_LOGS, run_reports

LOGS = ALL_LOGS
#: Lines a cited line may run over in the log (a paste's hard wraps).
_SPAN = 8


def _flat(text: str) -> str:
    return " ".join(text.split())


def _holds(lines: list[str], number: int, text: str) -> bool:
    """Whether the log's lines from ``number`` on hold ``text``, a quote that may be
    cut short ("…") and have its secrets masked ("***")."""
    window = lines[number - 1 : number - 1 + _SPAN]
    joined = [_flat(" ".join(window)), "".join(window).replace(" ", "")]
    pieces = [p.strip() for p in text.removesuffix("…").split("***")]
    for hay in joined:
        at, ok = 0, True
        for piece in pieces:
            if len(piece) < 3:
                continue
            needle = _flat(piece) if hay is joined[0] else piece.replace(" ", "")
            found = hay.find(needle, at)
            if found < 0:
                ok = False
                break
            at = found + len(needle)
        if ok:
            return True
    return False


@pytest.mark.parametrize("log", LOGS, ids=[f"{p.parent.name}/{p.stem}" for p in LOGS])
def test_every_evidence_line_quotes_the_log(log: Path) -> None:
    lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    # A box-drawn table's rows are read, and quoted, as the ASCII table they draw;
    # a URL a mirror made a link to itself, as the bare URL the client printed.
    ascii_rows = [unlink(unbox(line)) for line in lines]
    for report in run_reports(log):
        failure = report.facts.failure
        cited = [(f.id, e.line, e.text) for f in report.findings for e in f.evidence]
        if failure is not None:
            cited += [("facts", line, text) for line, text in failure.evidence]
        for owner, line, text in cited:
            assert _holds(lines, line, text) or _holds(ascii_rows, line, text), (
                owner,
                line,
                text,
                lines[line - 1][:200],
            )


def test_a_transport_error_shows_no_method_it_does_not_name() -> None:
    """nova-2016: line 3 names only the URL of a connection that timed out."""
    log = public_log("nova-2016-list-connectfailure-timeout-py2-nohandlers")
    (report,) = run_reports(log)
    line3 = log.read_text(encoding="utf-8").splitlines()[2]
    assert "GET" not in line3 and "POST" not in line3
    failure = report.facts.failure
    assert failure is not None and failure.method == ""
    text, markdown = render_text(report), render_markdown(report)
    doc = json.loads(render_json(report))
    assert doc["facts"]["failure"]["method"] in ("", None)
    # (the scenario's documented steps name the calls the seed's diagram shows)
    said = json.dumps([doc["facts"], doc["findings"], doc["exchanges"]])
    for shown in (text, markdown, said):
        assert not re.search(r"\b(?:GET|POST)\b", shown), shown
    assert "Failed    line 3  Keystone /v3/auth/tokens  → no answer (timeout)" in text
    for f in report.findings:
        assert [e.line for e in f.evidence] == [3]
        assert f.evidence[0].text.startswith("ERROR (ConnectFailure): Unable to establish")


@pytest.mark.parametrize(
    ("name", "run"),
    [
        ("osc-2020-catalog-list-ssl-wrong-version-number", 0),
        ("osc-2020-image-create-proxy-tunnel-403", 0),
        ("osc-2025-nixos-journald-nameresolution-then-keystone-500", 0),
    ],
)
def test_no_other_transport_error_shows_a_method(name: str, run: int) -> None:
    """The same on the other logs defect 2 names: each failing line names a URL only."""
    report = run_reports(public_log(name))[run]
    failure = report.facts.failure
    assert failure is not None and failure.kind == "transport" and failure.method == ""
    failed = next(x for x in render_text(report).splitlines() if x.startswith("Failed"))
    assert not re.search(r"\b(?:GET|POST)\b", failed), failed
    for f in report.findings:
        for e in f.evidence:
            assert not re.match(r"(?:GET|POST) ", e.text), (f.id, e.text)
