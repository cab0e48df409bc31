"""The text a person would read on the TUI's screen, as the terminal shows it."""

from __future__ import annotations

import io
from typing import Any

from rich.console import Console
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

#: Pauses ``settle`` allows before it gives up: a bound, never a delay.
SETTLE_PAUSES = 2000


def screen_text(app: App[Any]) -> str:
    """Every cell of the current screen, line by line (what a screenshot shows,
    without the colours): tests read this, not widget state."""
    width, height = app.size
    console = Console(
        width=width,
        height=height,
        file=io.StringIO(),
        record=True,
        force_terminal=True,
        color_system="truecolor",
        legacy_windows=False,
        safe_box=False,
    )
    console.print(
        app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    )
    return console.export_text()


def settled(app: App[Any]) -> bool:
    """Nothing left for the screen to do: no refresh, layout or recompose
    pending, no callback waiting for the next refresh, and a footer (if the
    screen has one) that shows its keys: it composes them only once the
    bindings are known."""
    screen = app.screen
    return not (
        screen._layout_required
        or screen._scroll_required
        or screen._repaint_required
        or screen._recompose_required
        or screen._dirty_widgets
        or screen._callbacks
        or (screen.query(Footer) and not screen.query(FooterKey))
    )


async def settle(pilot: Pilot[Any]) -> None:
    """Pause until the screen is ``settled``. Textual repaints on a timer, and
    ``pilot.pause()`` guesses that the app is idle from the CPU time it used: on
    a loaded machine it returns before a repaint, and a picture taken then
    lacks, say, the footer's keys."""
    for _ in range(SETTLE_PAUSES):
        await pilot.pause()
        if settled(pilot.app):
            return
    raise AssertionError("the screen never settled")
