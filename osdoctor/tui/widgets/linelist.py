"""A keyboard-driven list drawn one line at a time (Textual's line API).

Only the rows on screen are ever rendered, so a list of 50,000 exchanges or
500,000 log lines costs what a screenful costs: the approach of toolong's log
view, instead of a DataTable that builds every cell.
"""

from __future__ import annotations

from functools import lru_cache
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.color import Color
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

#: The WCAG contrast ratio that text needs against its background.
TEXT_CONTRAST = 4.5


def _luminance(color: Color) -> float:
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(color.r) + 0.7152 * channel(color.g) + 0.0722 * channel(color.b)


def contrast(one: Color, other: Color) -> float:
    light, dark = sorted((_luminance(one), _luminance(other)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


@lru_cache(maxsize=16)
def readable(style: Style) -> Style:
    """``style`` with its background darkened (or lightened, under dark text)
    until its text has ``TEXT_CONTRAST``: some themes' cursor colours fall short."""
    if style.color is None or style.bgcolor is None:
        return style
    fg, bg = Color.from_rich_color(style.color), Color.from_rich_color(style.bgcolor)
    for _ in range(20):
        if contrast(fg, bg) >= TEXT_CONTRAST:
            break
        bg = bg.darken(0.04) if fg.brightness > bg.brightness else bg.lighten(0.04)
    return style + Style(bgcolor=bg.rich_color)


class LineList(ScrollView, can_focus=True):
    """Rows with a cursor; subclasses say how many rows and how each looks."""

    BINDING_GROUP_TITLE = "In the list"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "move(-1)", "Up", show=False),
        Binding("down,j", "move(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home,g", "edge(0)", "First", show=False),
        Binding("end,G", "edge(1)", "Last", show=False),
        Binding("enter", "choose", "Open", show=False),
    ]

    COMPONENT_CLASSES = {"linelist--cursor", "linelist--cursor-blurred"}

    class CursorMoved(Message):
        """The cursor is on a new row."""

        def __init__(self, sender: LineList, row: int) -> None:
            super().__init__()
            self.sender = sender
            self.row = row

        @property
        def control(self) -> LineList:
            return self.sender

    class Chosen(CursorMoved):
        """Enter was pressed on a row."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.cursor = 0
        self.touched = False
        """Whether the user moved the cursor: then nothing moves it for them."""
        self._count = 0
        self._widest = 0

    # -- for subclasses -----------------------------------------------------
    def render_row(self, row: int, width: int) -> Text:
        raise NotImplementedError

    @property
    def row_count(self) -> int:
        return self._count

    def set_row_count(self, count: int, follow_end: bool = False) -> None:
        """Resize the list; with ``follow_end`` a cursor on the last row stays last."""
        at_end = self.cursor >= self._count - 1
        self._count = count
        self.virtual_size = Size(max(self._widest, self.size.width), count)
        if follow_end and at_end and count:
            self.move_to(count - 1)
        elif self.cursor >= count:
            self.cursor = max(0, count - 1)
        self.refresh()

    # -- drawing -----------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        row = scroll_y + y
        width = self.scrollable_content_region.width
        base = self.rich_style
        if row >= self._count or width <= 0:
            return Strip.blank(width, base)
        text = self.render_row(row, width)
        if row == self.cursor:
            # One style for the whole row: a status coloured for a dark background
            # would be unreadable on the cursor's (red on orange).
            cursor = readable(
                self.get_component_rich_style(
                    "linelist--cursor" if self.has_focus else "linelist--cursor-blurred"
                )
            )
            text = Text(text.plain, no_wrap=True, end="")
            text.pad_right(max(0, width + scroll_x - text.cell_len))
            text.stylize(cursor)
        if text.cell_len > self._widest:
            self._widest = text.cell_len
            self.call_later(self._grow)
        segments = list(text.render(self.app.console))
        strip = Strip(segments, text.cell_len).apply_style(base)
        return strip.crop_extend(scroll_x, scroll_x + width, base)

    def _grow(self) -> None:
        self.virtual_size = Size(max(self._widest, self.size.width), self._count)

    # -- moving ------------------------------------------------------------
    def move_to(self, row: int, center: bool = False) -> None:
        if not self._count:
            return
        row = max(0, min(self._count - 1, row))
        previous, self.cursor = self.cursor, row
        self.refresh_line_of(previous)
        self.refresh_line_of(row)
        self.scroll_to_region(
            Region(self.scroll_offset.x, row, 1, 1), animate=False, center=center, force=True
        )
        self.post_message(self.CursorMoved(self, row))

    def refresh_line_of(self, row: int) -> None:
        y = row - self.scroll_offset.y
        if 0 <= y < self.size.height:
            self.refresh(Region(0, y, self.size.width, 1))

    def action_move(self, delta: int) -> None:
        self.touched = True
        self.move_to(self.cursor + delta)

    def action_page(self, direction: int) -> None:
        self.touched = True
        self.move_to(self.cursor + direction * max(1, self.scrollable_content_region.height - 1))

    def action_edge(self, end: int) -> None:
        self.touched = True
        self.move_to(self._count - 1 if end else 0)

    def action_choose(self) -> None:
        self.post_message(self.Chosen(self, self.cursor))

    def on_click(self, event: events.Click) -> None:
        self.touched = True
        self.move_to(self.scroll_offset.y + event.y)

    def on_focus(self) -> None:
        self.refresh_line_of(self.cursor)

    def on_blur(self) -> None:
        self.refresh_line_of(self.cursor)
