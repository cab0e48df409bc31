"""What a report of a real paste must say to name its established cause."""

from __future__ import annotations

from osdoctor.model import Report
from osdoctor.render.text import render_text


def assert_names_the_cause(report: Report, rule: str, words: list[str]) -> None:
    """The first error or warning finding is ``rule``'s, an error, its title holds
    every one of ``words`` (in any case), it points at the lines that prove it,
    and it is the headline of the text report."""
    assert report.outcome == "failure"
    first = next(f for f in report.findings if f.severity in ("error", "warning"))
    assert (first.id, first.severity) == (rule, "error"), first.title
    for word in words:
        assert word.lower() in first.title.lower(), (word, first.title)
    assert first.evidence, "the finding points at the lines that prove it"
    assert render_text(report).splitlines()[1] == first.title
