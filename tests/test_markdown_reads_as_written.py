"""The Markdown report reads as written once a CommonMark renderer has read it
(issue 31, defect 8: ``<network>``, ``<port>`` and ``/etc/<service>/…`` became
raw HTML, which GitHub and GitLab hide; ``'^\\[keystone_authtoken\\]'`` lost its
backslashes). Checked with markdown-it-py, the parser Textual uses, set as
GitHub's: CommonMark with tables and strikethrough."""

from __future__ import annotations

from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

from osdoctor.render.common import headline
from osdoctor.render.markdown_report import render_markdown
from osdoctor.render.next_steps import split_step
from tests.helpers.public_logs import public_log
from tests.helpers.reports import ALL_LOGS, run_reports

_MD = MarkdownIt("commonmark").enable(["table", "strikethrough"])


def _shown(inline: Token) -> str:
    """What a reader sees of an inline run: its text and code, no markup."""
    out = []
    for child in inline.children or []:
        assert child.type not in ("html_inline",), child.content
        if child.type in ("text", "code_inline"):
            out.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            out.append(" ")
    return "".join(out)


def _blocks(markdown: str) -> tuple[list[str], list[Token]]:
    """Every paragraph, heading and list item as a reader sees it, and the code
    spans among them."""
    tokens = _MD.parse(markdown)
    assert not [t for t in tokens if t.type == "html_block"]
    seen, spans = [], []
    for token in tokens:
        if token.type == "inline":
            seen.append(_shown(token))
            spans += [c for c in token.children or [] if c.type == "code_inline"]
    return seen, spans


@pytest.mark.parametrize("log", ALL_LOGS, ids=[f"{p.parent.name}/{p.stem}" for p in ALL_LOGS])
def test_the_markdown_report_reads_as_written(log: Path) -> None:
    for report in run_reports(log):
        seen, spans = _blocks(render_markdown(report, why_not=True))
        assert seen[0] == f"osdoctor: {headline(report)}"
        if report.trace.command:
            assert spans[0].content == report.trace.command
        for f in report.findings:
            assert f"{f.severity.upper()}: {f.title}" in seen
            for paragraph in f.explanation.split("\n\n"):
                assert paragraph in seen, paragraph
            for step in f.next_steps:
                assert step in seen, (step, [s for s in seen if s[:20] == step[:20]])
                command = split_step(step)[1].partition("   # ")[0].rstrip()
                if command:  # ready to copy: the whole command is one code span
                    assert command in [c.content for c in spans], command
            for e in f.evidence:  # (a code span drops the spaces around its text)
                assert e.text[:200].strip() in [c.content.strip() for c in spans]


def test_placeholders_and_backslashes_survive() -> None:
    """cgtsclient's run 2: ``/etc/sysinv/sysinv.conf`` after a grep whose pattern
    holds backslashes, and osc-2024's ``<other server creation arguments>``."""
    _run1, run2 = run_reports(public_log("cgtsclient-stx-host-list-503-html-prints-None"))
    _seen, spans = _blocks(render_markdown(run2))
    assert "grep -A12 '^\\[keystone_authtoken\\]' /etc/sysinv/sysinv.conf" in [
        c.content for c in spans
    ]
    (report,) = run_reports(public_log("osc-2024-server-create-neutron-networknotfound-unresolved"))
    seen, _spans = _blocks(render_markdown(report))
    assert any("<other server creation arguments>" in s for s in seen)
