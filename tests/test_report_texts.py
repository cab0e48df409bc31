"""What the user reads in every report of every real client log: no reference to
a seed document they do not have, the runbook page of each finding instead."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest

from osdoctor.diagnose import diagnose, parse_path
from osdoctor.kb.loader import KnowledgeBase, load_knowledge
from osdoctor.kb.schema import SEEDS
from osdoctor.model import Report
from osdoctor.render.json_report import render_json
from osdoctor.render.markdown import render_markdown
from osdoctor.render.text import render_text
from osdoctor.runbook.excerpts import Excerpts
from osdoctor.runbook.markdown import render_markdown_runbook

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted((ROOT / "tests" / "fixtures" / "logs").glob("*.log"))


@functools.cache
def _kb() -> KnowledgeBase:
    return load_knowledge(user=False)


@functools.cache
def _runbook_pages() -> frozenset[str]:
    return frozenset(render_markdown_runbook(_kb(), Excerpts({}, {})))


def _report(log: Path) -> Report:
    return diagnose(parse_path(log), _kb())


@pytest.mark.parametrize("log", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_findings_point_at_their_runbook_page_not_a_seed(log: Path) -> None:
    report = _report(log)
    text, markdown = render_text(report), render_markdown(report)
    for seed in SEEDS:
        assert seed not in text and seed not in markdown
    pages = _runbook_pages()
    for f in report.findings:
        assert f.runbook == f"rules/{f.id}.md" and f.runbook in pages
        assert f"See the runbook page {f.runbook}\n" in text
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

