"""The timeline: one row per exchange, redirect hop or run of repeats."""

from __future__ import annotations

from dataclasses import dataclass, replace

from rich.text import Text
from textual.geometry import Size
from textual.message import Message
from textual.widget import Widget

from osdoctor.model import Exchange, Trace
from osdoctor.render.common import row_count
from osdoctor.render.polls import poll_state
from osdoctor.render.rows import RowBuilder, TimelineRow, status_class, status_text
from osdoctor.tui.palette import warn
from osdoctor.tui.widgets.linelist import LineList


class TimelineHead(Widget):
    """The column titles over the timeline, as the timeline lays them out now."""

    def render(self) -> Text:
        return self.screen.query_one(Timeline).header()


STATUS_STYLE = {
    "2xx": "green",
    "3xx": "cyan",
    "4xx": "yellow",
    "5xx": "bold red",
    "error": "bold red",
    "pending": "dim",
    "1xx": "dim",
}


def status_style(ex: Exchange, dark: bool) -> str:
    kind = status_class(ex)
    return warn(dark) if kind == "4xx" else STATUS_STYLE.get(kind, "")


def _seconds(value: float | None) -> str:
    if value is None:
        return ""
    if value < 100:
        return f"{value:.2f}s"
    return f"{value:.0f}s"


@dataclass(frozen=True)
class Columns:
    """Which columns fit: status and path never go, the others in ``DROP_ORDER``."""

    number: int
    service: int
    time: bool
    gap: bool


#: Columns given up, first to last, when the pane is too narrow for a useful path.
DROP_ORDER = ("gap", "time", "service")
#: The path keeps at least this many cells before a column is dropped for it.
MIN_PATH = 24
_TIME, _METHOD, _STATUS = 7, 6, 8
#: The share of a one-column screen's height the timeline takes, at most.
SHARE = 0.3


def fit_columns(width: int, rows: int, timed: bool, service: int) -> Columns:
    """The widest set of columns that leaves the path ``MIN_PATH`` cells."""
    columns = Columns(max(2, len(str(rows))), service, timed, timed)

    def used(c: Columns) -> int:
        return (
            c.number
            + 1
            + _METHOD
            + 1
            + _STATUS
            + 1
            + (c.service + 1 if c.service else 0)
            + (_TIME + 1 if c.time else 0)
            + (_TIME + 1 if c.gap else 0)
        )

    dropped = {"gap": replace(columns, gap=False)}
    dropped["time"] = replace(dropped["gap"], time=False)
    dropped["service"] = replace(dropped["time"], service=0)
    for name in DROP_ORDER:
        if width - used(columns) >= MIN_PATH:
            break
        columns = dropped[name]
    return columns


class Timeline(LineList):
    """The requests of the run, in order, live."""

    class ColumnsChanged(Message):
        """The columns that fit changed (a resize, more rows): the head follows."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.trace: Trace | None = None
        self.builder = RowBuilder()
        self._dropped = 0
        self._seen = 0
        self.live = False
        self.timed = False
        """Whether the log carries times (a session or a live run): then the
        time and gap columns are shown, when they fit."""
        self.service_width = len("service")
        self._columns: Columns | None = None

    def show(self, trace: Trace, live: bool) -> None:
        self.trace, self.live = trace, live
        self.builder = RowBuilder()
        self._dropped = self._seen = 0
        self.timed = False
        self.service_width = len("service")
        self.cursor = 0
        self.touched = False
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
            self._seen = 0
        self.builder.update(self.trace.exchanges)
        rows = self.builder.rows
        if not self.timed and rows and rows[0].first.time is not None:
            self.timed = True
        for item in rows[max(0, self._seen - 1) :]:
            for ex in (item.first, item.last):
                self.service_width = max(self.service_width, len(ex.service or "?"))
        self._seen = len(rows)
        self.set_row_count(len(rows), follow_end=self.live)
        self._check_columns()

    def on_resize(self) -> None:
        self._check_columns()

    def _check_columns(self) -> None:
        columns = self.columns
        if columns != self._columns:
            self._columns = columns
            self.post_message(self.ColumnsChanged())

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """As many lines as rows, up to ``SHARE`` of the screen when the screen is
        one column (there the list is sized by its rows, and the panes get the rest)."""
        rows = self.virtual_size.height
        if self.screen.has_class("-narrow"):
            rows = min(rows, max(3, int(viewport.height * SHARE)))
        return rows

    @property
    def columns(self) -> Columns:
        return fit_columns(
            self.scrollable_content_region.width or self.size.width,
            self.row_count,
            self.timed,
            self.service_width,
        )

    def header(self) -> Text:
        """Column titles matching ``render_row`` at the pane's width."""
        c = self.columns
        text = f"{'#':>{c.number}} "
        if c.time:
            text += f"{'time':>{_TIME}} "
        if c.gap:
            text += f"{'gap':>{_TIME}} "
        text += f"{'method':<{_METHOD}} "
        if c.service:
            text += f"{'service':<{c.service}} "
        text += f"{'status':<{_STATUS}} path"
        return Text(text, "bold", no_wrap=True, overflow="ellipsis")

    def row(self, row: int) -> TimelineRow | None:
        rows = self.builder.rows
        return rows[row] if 0 <= row < len(rows) else None

    def selected(self) -> Exchange | None:
        row = self.row(self.cursor)
        return row.shown if row else None

    def row_state(self, row: int) -> str | None:
        """What the row's poll last read (``BUILD``), when it is a poll."""
        item = self.row(row)
        if item is None or self.trace is None:
            return None
        return poll_state(item, self.trace.exchanges)

    def render_row(self, row: int, width: int) -> Text:
        item = self.builder.rows[row]
        ex = item.shown
        c = self.columns
        plain = self.app.no_color
        text = Text(no_wrap=True, overflow="ellipsis")
        # Row numbers, not request numbers: folded polls and redirect hops would
        # make those skip (1, 2, 3, 5, 7); the exchange pane gives the request's.
        text.append(f"{row + 1:>{c.number}} ", "dim")
        if c.time or c.gap:
            gap: float | None = None
            if row and item.first.time is not None:
                before = self.builder.rows[row - 1].first.time
                gap = item.first.time - before if before is not None else None
            if c.time:
                text.append(f"{_seconds(item.first.time):>{_TIME}} ", "dim")
            if c.gap:
                text.append(f"{('+' + _seconds(gap)) if gap is not None else '':>{_TIME}} ", "dim")
        text.append(f"{ex.request.method:<{_METHOD}} ", "bold")
        if c.service:
            # Without colours, dark hues turn into a grey close to the background.
            text.append(f"{ex.service or '?':<{c.service}} ", "" if plain else "magenta")
        status = status_text(ex, short=True)
        if item.redirect is not None:
            status = f"{status_text(item.redirect, short=True)}→{status}"
        text.append(
            f"{status:<{_STATUS}} ",
            "bold" if plain else status_style(ex, self.app.current_theme.dark),
        )
        path = item.first.path or item.first.request.url
        if item.first.query:
            path += "?" + item.first.query
        count = row_count(item)
        state = self.row_state(row)
        if state and item.count < 2 and width - text.cell_len - len(count) - len(state) < MIN_PATH:
            state = None  # a single read gives way to its path; a poll's progress does not
        suffix = count + (f" {state}" if state else "")
        room = max(8, width - text.cell_len - len(suffix))
        if len(path) > room:
            path = path[: room - 1] + "…"
        text.append(path)
        text.append(count, "bold cyan")
        if state:
            text.append(f" {state}", "bold")
        return text
