"""Every real client log in tests/fixtures/logs explains to what its capture expected.

Each ``NAME.log`` was produced by a real client against the lab stub, beside
``NAME.expected.yaml`` (scenario, branch, outcome, findings), and with the
services' own logs of the run in ``NAME.service/`` when the capture kept them
(they are given, as ``--service-log`` gives them). The same report must come
out in text, Markdown and JSON, with its evidence line numbers (a service
log's lines named with their file).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from osdoctor.kb.loader import KnowledgeBase, load_knowledge
from osdoctor.lint import compare
from osdoctor.render import commonmark
from osdoctor.render.json_report import render_json
from osdoctor.render.markdown_report import render_markdown
from osdoctor.render.text import render_text
from tests.helpers.explained import fixture_report_of

LOGS = Path(__file__).resolve().parent / "fixtures" / "logs"
FIXTURES = sorted(p.name.removesuffix(".expected.yaml") for p in LOGS.glob("*.expected.yaml"))


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    kb = load_knowledge(user=False)
    assert [str(i) for i in kb.issues if i.severity == "error"] == []
    return kb


def test_there_are_fixtures() -> None:
    assert len(FIXTURES) >= 6


@pytest.mark.parametrize("name", FIXTURES)
def test_fixture_explains_as_expected(name: str, kb: KnowledgeBase) -> None:
    expected = yaml.safe_load((LOGS / f"{name}.expected.yaml").read_text())
    report = fixture_report_of(LOGS / f"{name}.log")
    assert compare(expected, report) == []
    if expected.get("exit_code") is not None and report.trace.exit_code is not None:
        assert report.trace.exit_code == expected["exit_code"]

    data = json.loads(render_json(report))
    assert data["outcome"] == expected["outcome"]
    scenario = data["scenario"]
    # A plain run's expectation names a scenario only when its output shows one.
    if "scenario" in expected:
        assert (scenario["id"] if scenario else None) == expected["scenario"]
    if "branch" in expected:
        assert (scenario["branch"] if scenario else None) == expected["branch"]
    # The case's findings fired; a server-side cause its service logs name may lead.
    ids = [f["id"] for f in data["findings"]] + [f["id"] for f in data["outranked"]]
    for fid in expected.get("findings") or []:
        assert fid in ids
    lines = (LOGS / f"{name}.log").read_bytes().splitlines()
    for finding in data["findings"]:
        for ev in finding["evidence"]:
            source = Path(ev["source"]) if "source" in ev else None
            count = len(source.read_bytes().splitlines()) if source else len(lines)
            assert 1 <= ev["line"] <= count

    text = render_text(report)
    markdown = render_markdown(report)
    for finding in report.findings:
        # (the Markdown sets the title so that it reads as written: see
        # test_markdown_reads_as_written)
        assert finding.title in text and commonmark.text(finding.title) in markdown
        for ev in finding.evidence:
            assert ev.where in text
            assert f"{ev.where}:" in markdown
    if report.scenario is not None:
        assert report.scenario.id in text and report.scenario.id in markdown
