"""What the user reads in every report of every real client log: no placeholder
left unfilled, no reference to a seed document they do not have, the runbook
page of each finding instead."""

from __future__ import annotations

import functools
import io
import json
import re
from pathlib import Path

import pytest

from osdoctor.diagnose import diagnose, parse_stream
from osdoctor.kb.conditions import request_id
from osdoctor.kb.loader import KnowledgeBase, load_knowledge
from osdoctor.kb.schema import SEEDS
from osdoctor.kb.text_placeholders import Captures, captures, fields, fill
from osdoctor.lint import template_issues
from osdoctor.model import Exchange, Finding, Report
from osdoctor.render.json_report import render_json
from osdoctor.render.markdown_report import render_markdown
from osdoctor.render.text import render_text
from osdoctor.runbook.excerpts import Excerpts
from osdoctor.runbook.markdown_pages import render_markdown_runbook
from tests.helpers.explained import report_of

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted((ROOT / "tests" / "fixtures" / "logs").glob("*.log"))


@functools.cache
def _kb() -> KnowledgeBase:
    return load_knowledge(user=False)


@functools.cache
def _runbook_pages() -> frozenset[str]:
    return frozenset(render_markdown_runbook(_kb(), Excerpts({}, {})))


def _report(log: Path) -> Report:
    return report_of(log)


@pytest.mark.parametrize("log", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_findings_point_at_their_runbook_page_not_a_seed(log: Path) -> None:
    report = _report(log)
    text, markdown = render_text(report), render_markdown(report)
    for seed in SEEDS:
        assert seed not in text and seed not in markdown
    pages = _runbook_pages()
    for f in report.findings:
        assert f.runbook == f"rules/{f.id}.md" and f.runbook in pages
        assert re.search(rf"^  See the runbook page {re.escape(f.runbook)}(;|$)", text, re.M)
        assert f"See the runbook page `{f.runbook}`." in markdown
    if report.scenario is not None:
        page = f"scenarios/{report.scenario.id}.md"
        assert page in pages
        if report.scenario.branch:
            assert f"(runbook {page}#{report.scenario.branch})" in text
    doc = json.loads(render_json(report))
    for f, out in zip(report.findings, doc["findings"], strict=True):
        assert out["references"] == [str(r) for r in _kb().rules[f.id].references]
        assert out["runbook"] == f.runbook


_RAW = re.compile(r"\{\w+(?:\|[^{}]*)?\}")


def _texts(report: Report) -> list[str]:
    doc = json.loads(render_json(report))
    scenario = dict(doc["scenario"] or {}, steps=None)  # steps quote the seed's diagram
    return [
        render_text(report),
        render_markdown(report),
        *(json.dumps(f) for f in doc["findings"]),
        json.dumps(scenario),
    ]


@pytest.mark.parametrize("log", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_no_placeholder_reaches_the_user(log: Path) -> None:
    for text in _texts(_report(log)):
        assert not _RAW.search(text), _RAW.findall(text)


def _templates() -> list[tuple[str, str, Captures]]:
    out = []
    for rule in _kb().rules.values():
        known = captures(rule.when)
        known.sure |= set(rule.defaults)
        for template in [rule.title, rule.explanation, *rule.next_steps]:
            out.append((rule.id, template, known))
    for scenario in _kb().scenarios.values():
        for branch in scenario.branches:
            known = captures(branch.when)
            for template in [branch.title, branch.divergence or ""]:
                out.append((f"{scenario.id}/{branch.id}", template, known))
    return out


def test_every_template_degrades_when_a_value_is_unknown() -> None:
    """Filled with only the values its conditions always capture (a fault message
    cut off with its line, another alternative of 'any'), no text shows a
    placeholder, raw or as <name>."""
    for owner, template, known in _templates():
        filled = fill(template, dict.fromkeys(known.sure, "VALUE"))
        assert not _RAW.search(filled), (owner, template)
        for f in fields(template):
            if f.fallback is None and f.when is None:
                assert f.name in known.sure, (owner, f.name)


def test_lint_checks_every_template_against_the_conditions() -> None:
    assert [str(i) for i in template_issues(_kb())] == []


def test_lint_names_a_placeholder_that_may_be_unknown(tmp_path: Path) -> None:
    (tmp_path / "site.yaml").write_text(
        "id: site.maybe\ntitle: 'Failed: {reason}'\nseverity: error\n"
        "when: [{message: 'failed(?:: (?P<reason>.*))?'}]\n"
        "explanation: 'It failed: {reason|no reason given}. {nowhere}'\nnext_steps: [y]\n"
        "references: [{seed: 000_416000e4d6ae2dea.txt, section: 4}]\n"
    )
    kb = load_knowledge([tmp_path], user=False)
    issues = [str(i) for i in template_issues(kb) if "site.maybe" in str(i)]
    assert len(issues) == 2, issues
    assert "title: {reason} is not captured on every log" in issues[0]
    assert "explanation: {nowhere} is never captured" in issues[1]
    assert fill(kb.rules["site.maybe"].explanation, {}) == "It failed: no reason given. <nowhere>"


def _damaged(log: Path, how: str, width: int) -> bytes:
    lines = log.read_bytes().split(b"\n")
    if how == "cut":
        return b"\n".join(line[:width] for line in lines)
    folded = []
    for line in lines:
        while len(line) > width:
            folded.append(line[:width])
            line = line[width:]
        folded.append(line)
    return b"\n".join(folded)


FALLBACK_FIXTURES = sorted(
    {
        log
        for log in FIXTURES
        for f in _report(log).findings
        if any(
            fld.fallback is not None
            for t in [_kb().rules[f.id].title, _kb().rules[f.id].explanation]
            for fld in fields(t)
        )
    }
)


@pytest.mark.parametrize("damage", [("cut", 200), ("fold", 132), ("fold", 200)])
@pytest.mark.parametrize("log", FALLBACK_FIXTURES, ids=[p.stem for p in FALLBACK_FIXTURES])
def test_damaged_log_degrades_gracefully(log: Path, damage: tuple[str, int]) -> None:
    """The server-create fault message, folded or cut with its line, is unknown:
    the title says where the reason is instead of printing {fault}."""
    report = diagnose(parse_stream(io.BytesIO(_damaged(log, *damage)), log.name), _kb())
    for text in _texts(report):
        assert not _RAW.search(text), _RAW.findall(text)
        assert "<fault>" not in text


def _finding_text(f: Finding) -> str:
    return "\n".join([f.title, f.explanation, *f.next_steps])


def _cited(report: Report, f: Finding) -> list[Exchange]:
    lines = {e.line for e in f.evidence}
    return [
        ex
        for ex in report.trace.exchanges
        if ex.request.line in lines or (ex.response is not None and ex.response.line in lines)
    ]


@pytest.mark.parametrize("log", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_findings_quote_what_the_log_has(log: Path) -> None:
    """A finding does not send the user to the log for a value osdoctor read: the
    request id, the Retry-After delay, the body's words are quoted; a client
    version is said only when the log shows it."""
    report = _report(log)
    raw = log.read_text(encoding="utf-8", errors="replace")
    for f in report.findings:
        text = _finding_text(f)
        assert not re.search(r"RESP (?:BODY )?line|in (?:its|the) RESP BODY|see the RESP", text), (
            f.id,
            text,
        )
        for version in re.findall(r"\b\d+\.\d+\.\d+\b", text):
            assert version in raw, (f.id, version)
        cited = _cited(report, f)
        ids = [rid for ex in cited if (rid := request_id(ex))]
        if ids and "request id" in text:
            assert any(rid in text for rid in ids), (f.id, ids)
        for ex in cited:
            delay = ex.response.header("Retry-After") if ex.response else None
            if delay:
                assert f"Retry-After: {delay}" in text, f.id


def test_no_rule_text_names_a_client_version() -> None:
    for rule in _kb().rules.values():
        for template in [rule.title, rule.explanation, *rule.next_steps]:
            assert not re.search(r"(?:client|sdk|osc-lib)\S* \d+\.\d+", template), rule.id
