"""The selected row stays readable whatever the theme, with colours off too,
and a toast replaces the one before instead of stacking over it."""

from __future__ import annotations

import pytest
from rich.color import Color
from rich.segment import Segment

from osdoctor.tui.app import OsdoctorApp
from osdoctor.tui.widgets.timeline import Timeline
from tests.tui.conftest import steady_app, wait_until
from tests.tui.logs import FIXTURES
from tests.tui.screen import screen_text, settle

pytestmark = pytest.mark.anyio

#: Opens on a 404 row: the status that was drawn yellow-on-orange before.
LOG = FIXTURES / "heat.stack-delete.gone-but-error.log"
SIZE = (120, 36)


def _luminance(color: Color) -> float:
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    red, green, blue = color.get_truecolor()
    return 0.2126 * channel(red) + 0.7152 * channel(green) + 0.0722 * channel(blue)


def contrast(fg: Color, bg: Color) -> float:
    """The WCAG contrast ratio: 4.5 is the floor for text."""
    light, dark = sorted((_luminance(fg), _luminance(bg)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def _cursor_row(app: OsdoctorApp) -> list[Segment]:
    timeline = app.main.query_one(Timeline)
    return [
        s
        for s in timeline.render_line(timeline.cursor - timeline.scroll_offset.y)
        if s.text.strip()
    ]


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
async def test_the_selected_row_has_text_contrast_in_both_themes(theme: str) -> None:
    app = steady_app(log=LOG)
    async with app.run_test(size=SIZE) as pilot:
        app.theme = theme
        await wait_until(pilot, lambda: app.main.state == "read")
        await pilot.pause()
        segments = _cursor_row(app)
        assert "404" in "".join(s.text for s in segments)
        for segment in segments:
            style = segment.style
            assert style is not None and style.color is not None and style.bgcolor is not None
            assert contrast(style.color, style.bgcolor) >= 4.5, (theme, segment)


async def test_without_colours_the_selected_row_is_reversed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = steady_app(log=LOG)
    async with app.run_test(size=SIZE) as pilot:
        assert app.no_color
        await wait_until(pilot, lambda: app.main.state == "read")
        await pilot.pause()
        segments = _cursor_row(app)
        assert segments and all(s.style is not None and s.style.reverse for s in segments)


async def test_a_toast_replaces_the_one_before() -> None:
    app = steady_app(log=LOG)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_until(pilot, lambda: app.main.state == "read")
        await pilot.press("m")  # "Report exported to ..."
        await pilot.press("c")  # "Copied: ..."
        await settle(pilot)
        text = screen_text(app)
        assert "Copied: openstack stack show web" in text
        assert "Report exported" not in text
