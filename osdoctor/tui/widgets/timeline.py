"""The timeline: one row per exchange, redirect hop or run of repeats."""

from __future__ import annotations

from rich.text import Text

from osdoctor.model import Exchange, Trace
from osdoctor.render.common import row_count
from osdoctor.render.rows import RowBuilder, TimelineRow, status_class, status_text
from osdoctor.tui.widgets.linelist import LineList

STATUS_STYLE = {
    "2xx": "green",
    "3xx": "cyan",
    "4xx": "yellow",
    "5xx": "bold red",
    "error": "bold red",
    "pending": "dim",
    "1xx": "dim",
}


def _seconds(value: float | None) -> str:
    if value is None:
        return ""
    if value < 100:
        return f"{value:.2f}s"
    return f"{value:.0f}s"


class Timeline(LineList):
    """The requests of the run, in order, live."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.trace: Trace | None = None
        self.builder = RowBuilder()
        self._dropped = 0
        self.live = False
        self.timed = False
        """Whether the log carries times (a session or a live run): then the
        time and gap columns are shown."""

    def show(self, trace: Trace, live: bool) -> None:
        self.trace, self.live = trace, live
        self.builder = RowBuilder()
        self._dropped = 0
        self.cursor = 0
        self.sync()

    def sync(self) -> None:
        """Take in the exchanges parsed since the last call."""
        if self.trace is None:
            return
        if self.trace.dropped != self._dropped:
            # The parser let go of the middle of a very long log: rows start again
            # from what it keeps, so that the rows do not keep it alive.
            self._dropped = self.trace.dropped
            self.builder = RowBuilder()
        self.builder.update(self.trace.exchanges)
        if not self.timed and self.builder.rows and self.builder.rows[0].first.time is not None:
            self.timed = True
        self.set_row_count(len(self.builder.rows), follow_end=self.live)

    def header(self) -> Text:
        """Column titles matching ``render_row``."""
        time_cols = "    time     gap" if self.timed else ""
        return Text(f"    #{time_cols} method service    status    path", "bold")

    def row(self, row: int) -> TimelineRow | None:
        rows = self.builder.rows
        return rows[row] if 0 <= row < len(rows) else None

    def selected(self) -> Exchange | None:
        row = self.row(self.cursor)
        return row.shown if row else None

    def select_exchange(self, index: int) -> None:
        self.move_to(self.builder.row_of(index), center=True)

    def render_row(self, row: int, width: int) -> Text:
        item = self.builder.rows[row]
        ex = item.shown
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(f"{item.first.index + 1:>5} ", "dim")
        if self.timed:
            gap: float | None = None
            if row and item.first.time is not None:
                before = self.builder.rows[row - 1].first.time
                gap = item.first.time - before if before is not None else None
            text.append(f"{_seconds(item.first.time):>7} ", "dim")
            text.append(f"{('+' + _seconds(gap)) if gap is not None else '':>7} ", "dim")
        text.append(f"{ex.request.method:<6} ", "bold")
        text.append(f"{(ex.service or '?')[:10]:<10} ", "magenta")
        status = status_text(ex, short=True)
        if item.redirect is not None:
            status = f"{status_text(item.redirect, short=True)}→{status}"
        text.append(f"{status:<9} ", STATUS_STYLE.get(status_class(ex), ""))
        path = item.first.path or item.first.request.url
        if item.first.query:
            path += "?" + item.first.query
        count = row_count(item)
        room = max(8, width - text.cell_len - len(count))
        if len(path) > room:
            path = path[: room - 1] + "…"
        text.append(path)
        text.append(count, "bold cyan")
        return text
