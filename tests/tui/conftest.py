"""Fixtures for the TUI tests: a private osdoctor home, real logs, a driver."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from osdoctor.tui.app import OsdoctorApp
from osdoctor.tui.screens.runs_list import RunsScreen
from tests.tui.logs import make_refused_log
from tests.tui.screen import settle

#: The time every test screen reads: frozen, so that no duration ("running
#: 2.1s", "read in 1.4s") depends on how loaded the machine is.
FROZEN_AT = 1000.0


@pytest.fixture(autouse=True)
def osdoctor_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Sessions and exports go to a temporary home, never the user's."""
    home = tmp_path / "home"
    monkeypatch.setenv("OSDOCTOR_HOME", str(home))
    return home


@pytest.fixture(scope="session")
def refused_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_refused_log(tmp_path_factory.mktemp("logs") / "refused.log")


async def wait_until(
    pilot: Pilot[Any], condition: Callable[[], bool], timeout: float = 30.0
) -> None:
    """Let the app run until ``condition`` holds (checked after each pause)."""
    import time

    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        await pilot.pause(0.02)


async def runs_listed(pilot: Pilot[Any], app: OsdoctorApp) -> RunsScreen:
    """Let the app read a log of several runs to its end, its list on the screen:
    the list shows rows as they are read, so a test that reads or picks them
    waits for all."""
    await wait_until(
        pilot,
        lambda: (
            isinstance(app.screen, RunsScreen)
            and app.run_list is not None
            and app.run_list.done is not None
        ),
    )
    await settle(pilot)
    assert isinstance(app.screen, RunsScreen)
    return app.screen


def steady_app(**options: Any) -> OsdoctorApp:
    """The app as the tests drive it: a frozen clock, a cursor that does not
    blink and no animation, so that what the screen shows depends on its
    input alone, never on when it is looked at."""
    app = OsdoctorApp(clock=lambda: FROZEN_AT, cursor_blink=False, **options)
    app.animation_level = "none"
    return app
