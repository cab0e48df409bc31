"""The selected exchange in full: request, response, and the log lines it came from."""

from __future__ import annotations

import json

from rich.console import Group, RenderableType
from rich.json import JSON
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from osdoctor.model import Body, Exchange
from osdoctor.render.rows import TimelineRow, status_text, template_path
from osdoctor.tui.linestore import LineStore
from osdoctor.tui.widgets.timeline import status_style

#: Beyond this many characters a body is shown as text, not pretty JSON.
PRETTY_LIMIT = 20_000
#: Log lines shown under an exchange, at most.
SOURCE_LINES = 60


def _headers(headers: dict[str, str]) -> RenderableType:
    if not headers:
        return Text("  (none logged)", "dim")
    table = Table.grid(padding=(0, 1))
    table.add_column(style="bold", no_wrap=True)
    table.add_column(overflow="fold")
    for key, value in headers.items():
        table.add_row(Text(f"  {key}:"), Text(value))
    return table


def _body(body: Body | None) -> RenderableType:
    if body is None:
        return Text("  (no body)", "dim")
    if body.omitted:
        return Text(f"  {body.omitted}", "dim")
    if body.text is None:
        return Text(
            f"  (body of {body.size} characters not kept; see lines "
            f"{body.first_line}-{body.last_line})",
            "dim",
        )
    data = body.json()
    if data is not None and len(body.text) <= PRETTY_LIMIT:
        return JSON(json.dumps(data), indent=2)
    text = body.text[:PRETTY_LIMIT]
    note = " …(cut)" if body.truncated or len(body.text) > PRETTY_LIMIT else ""
    return Text(text + note)


def describe(
    row: TimelineRow, lines: LineStore | None, number: int | None = None, dark: bool = True
) -> RenderableType:
    """Everything known about the row's exchange, as one renderable; ``number``
    is the row's place in the timeline (from 0)."""
    ex: Exchange = row.shown
    parts: list[RenderableType] = []
    head = Text()
    if number is not None:
        head.append(f"row {number + 1} ", "dim")
    head.append(f"{ex.request.method} ", "bold")
    head.append(ex.request.url)
    head.append("  →  ")
    head.append(status_text(ex), status_style(ex, dark))
    if ex.response and ex.response.reason:
        head.append(f" {ex.response.reason}")
    parts.append(head)
    facts = Text(style="dim")
    facts.append(
        f"request {ex.index + 1} · service {ex.service or 'unknown'} · "
        f"template {template_path(ex.path or '/')}"
    )
    if ex.time is not None:
        facts.append(f" · at {ex.time:.3f}s")
    facts.append(f" · lines {ex.first_line}-{ex.last_line}")
    if ex.response and ex.response.request_id:
        facts.append(f" · request id {ex.response.request_id}")
    parts.append(facts)
    if row.redirect is not None:
        hop = row.redirect
        parts.append(
            Text(
                f"redirect: request {hop.index + 1} {hop.request.method} "
                f"{hop.request.url} "
                f"answered {status_text(hop)}, followed to the request above",
                "cyan",
            )
        )
    if row.count > 1:
        parts.append(
            Text(
                f"{row.count} identical requests folded into this row "
                f"(requests {row.first.index + 1} to {row.last.index + 1}); "
                "showing the last",
                "cyan",
            )
        )
    parts += [
        Text("\nRequest headers", "bold underline"),
        _headers(ex.request.headers),
        Text("\nRequest body", "bold underline"),
        _body(ex.request.body),
    ]
    if ex.error is not None:
        parts += [
            Text("\nNo answer", "bold underline red"),
            Text(f"  {ex.error.kind}: {ex.error.message}", "red"),
        ]
    if ex.response is not None:
        parts += [
            Text("\nResponse headers", "bold underline"),
            _headers(ex.response.headers),
            Text("\nResponse body", "bold underline"),
            _body(ex.response.body),
        ]
    elif ex.error is None:
        parts.append(Text("\nNo response logged (yet).", "dim"))
    if lines is not None:
        parts.append(Text("\nLog lines", "bold underline"))
        last = min(ex.last_line, ex.first_line + SOURCE_LINES - 1)
        source = Text(no_wrap=True, overflow="ellipsis")
        for number in range(ex.first_line, last + 1):
            source.append(f"{number:>7} ", "dim")
            source.append(lines.text(number)[:400] + "\n")
        if last < ex.last_line:
            source.append(f"        … {ex.last_line - last} more lines in the log pane\n", "dim")
        parts.append(source)
    return Group(*parts)


class ExchangeDetail(VerticalScroll):
    """Scrolls the description of the exchange under the timeline's cursor."""

    def compose(self) -> ComposeResult:
        yield Static(Text("No exchange selected.", "dim"), id="detail-body")

    def show(
        self, row: TimelineRow | None, lines: LineStore | None, number: int | None = None
    ) -> None:
        body = self.query_one("#detail-body", Static)
        if row is None:
            body.update(Text("No exchange selected.", "dim"))
        else:
            body.update(describe(row, lines, number, self.app.current_theme.dark))
        self.scroll_home(animate=False)
