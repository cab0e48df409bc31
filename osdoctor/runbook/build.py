"""The whole runbook as pages in memory, in the format asked for."""

from __future__ import annotations

from pathlib import Path

from osdoctor.kb.loader import KnowledgeBase
from osdoctor.runbook.excerpts import collect
from osdoctor.runbook.markdown_pages import render_markdown_runbook

FORMATS = ("markdown", "html")


def build_runbook(
    kb: KnowledgeBase, fixtures: Path | None, fmt: str = "markdown"
) -> dict[str, str]:
    """Relative path -> page text. ``fixtures`` is the folder of real client logs
    whose evidence gives each branch and rule its excerpt (None: no excerpts)."""
    pages = render_markdown_runbook(kb, collect(kb, fixtures))
    if fmt == "html":
        from osdoctor.runbook.html import markdown_site_to_html

        return markdown_site_to_html(kb, pages)
    return pages
