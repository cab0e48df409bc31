"""``explain --why-not``: on every real client log, the nearest documented paths
other than the one taken, each with the first expected step that did not
happen in words, or that none came close ("No other documented path came
close." when the run took one) — never a copy of the plain report, never a
regular expression."""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

import pytest

from osdoctor.kb.loader import KnowledgeBase, load_knowledge
from osdoctor.kb.words import regex_words
from osdoctor.render.common import nothing_near
from osdoctor.render.json_report import render_json
from osdoctor.render.markdown_report import render_markdown
from osdoctor.render.text import render_text
from tests.helpers.explained import report_of

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted((ROOT / "tests" / "fixtures" / "logs").glob("*.log"))
_REGEX = re.compile(r"\(\?P<|\(\?:|\\[sSdDwWb]|\[\^|\.\*|\.\+|\$['\"]|['\"]\^")


@functools.cache
def _kb() -> KnowledgeBase:
    return load_knowledge(user=False)


@pytest.mark.parametrize("log", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_why_not_names_the_nearest_paths_in_words(log: Path) -> None:
    report = report_of(log)
    plain, why = render_text(report), render_text(report, why_not=True)
    assert why != plain
    section = why.split("Why not another documented path\n", 1)[1].split("\n\n", 1)[0]
    assert not _REGEX.search(section), section
    assert 0 < len(report.near) <= 3 or section.strip() == nothing_near(report)
    taken = (report.scenario.id, report.scenario.branch) if report.scenario else None
    for n in report.near:
        assert (n.scenario, n.branch) != taken
        assert 0 < n.held < n.steps and n.held / n.steps >= 0.5
        assert f"{n.scenario} › {n.branch}" in section and n.missing
        assert not _REGEX.search(n.missing)
    assert section.count("did not happen: ") == len(report.near)
    markdown = render_markdown(report, why_not=True)
    assert "### Why not another documented path" in markdown
    assert [n["branch"] for n in json.loads(render_json(report))["near"]] == [
        n.branch for n in report.near
    ]


def test_some_logs_come_close_and_some_do_not() -> None:
    counts = [len(report_of(log).near) for log in FIXTURES]
    assert any(counts) and not all(counts)


@pytest.mark.parametrize(
    ("pattern", "words"),
    [
        (r"^Stack not found: (?P<stack>\S+)", "Stack not found: …"),
        (
            r"^ERROR: The Stack \((?P<stack>[^)]*)\) could not be found",
            "ERROR: The Stack (…) could not be found",
        ),
        (
            r"Error parsing template (?:file://)?(?P<file>\S+) (?P<e>.+)",
            "Error parsing template … …",
        ),
        (r"HTTPNotFound$", "HTTPNotFound"),
    ],
)
def test_regex_words(pattern: str, words: str) -> None:
    assert regex_words(pattern) == words
