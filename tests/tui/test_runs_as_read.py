"""A log of several runs lists them as they are read, not once all are.

The reader is held after a given run (``RunLister.hold``, the hook it offers
for this) and posts every run at once (``every = 0``), so that what the
screen shows half way is a function of the log alone: no sleep, no timing.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from textual.widgets import OptionList

from osdoctor.tui import workers
from osdoctor.tui.app import OsdoctorApp
from osdoctor.tui.screens.runs_list import RunsScreen
from osdoctor.tui.workers import RunLister
from tests.tui.conftest import runs_listed, steady_app, wait_until
from tests.tui.screen import screen_text, settle
from tests.tui.test_runs import _typed

pytestmark = pytest.mark.anyio

#: Two runs that pass around one that fails, then one more that fails.
RUNS = (
    "heat.stack-delete.deleted",
    "generic.auth-no-role",
    "osc.auth.authenticated",
    "generic.auth-password-expired",
)


class Gate:
    """Holds the reader once it has posted ``at`` runs, until released or stopped."""

    def __init__(self, at: int) -> None:
        self.at = at
        self.release = threading.Event()
        self.stopped = False
        self.ended = threading.Event()
        """Set when the reader has returned."""

    def hold(self, lister: RunLister, runs: int) -> None:
        if runs != self.at:
            return
        # The wait is bounded by the test (release) or the app (stop), never by time.
        while not self.release.wait(0.01):
            if lister.stop():
                self.stopped = True
                return


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> Gate:
    gate = Gate(2)
    monkeypatch.setattr(RunLister, "every", 0)
    monkeypatch.setattr(RunLister, "hold", lambda lister, runs: gate.hold(lister, runs))
    read = RunLister.read

    def reading(lister: RunLister) -> None:
        try:
            read(lister)
        finally:
            gate.ended.set()

    monkeypatch.setattr(RunLister, "read", reading)
    return gate


@pytest.fixture
def log(tmp_path: Path) -> Path:
    path = tmp_path / "day.log"
    path.write_bytes(b"".join(_typed(name) for name in RUNS))
    return path


def rows(app: OsdoctorApp) -> int:
    screen = app.screen
    return screen.query_one(OptionList).option_count if isinstance(screen, RunsScreen) else -1


async def test_the_list_shows_the_runs_read_so_far_then_all(log: Path, gate: Gate) -> None:
    size = f"{log.stat().st_size / 1e3:.0f} kB"
    app = steady_app(log=log)
    async with app.run_test(size=(160, 50)) as pilot:
        try:
            await wait_until(pilot, lambda: rows(app) == gate.at)
            await settle(pilot)
            text = screen_text(app)
            # The counts change: they are on the progress line, the heading comes last.
            assert f"  {log}  " in text and f"{log}:" not in text
            assert f"reading… 2 runs, 1 failed, {size} of {size}" in text
            assert "✓   1" in text and "✗   2" in text and "  3  lines" not in text
            assert "Keystone refused user demo" in text
            assert "enter opens a run · escape goes back" in text
            # A run read can be opened while the others are read: the failed one
            # is highlighted, and is diagnosed when opened.
            assert app.screen.query_one(OptionList).highlighted == 1
            await pilot.press("enter")
            main = app.main
            await wait_until(pilot, lambda: app.screen is main and main.state == "read")
            await settle(pilot)
            text = screen_text(app)
            assert "run 2 of 2 so far" in text
            assert "FAILURE  Keystone refused user demo" in text
            assert main.trace is not None and main.trace.command == "openstack server list"
            # The log pane numbers lines as the log does: the run's first is its own.
            first = len(_typed(RUNS[0]).splitlines()) + 1
            assert (
                main.lines is not None
                and main.lines.text(first) == "$ openstack --debug server list"
            )
            assert min(ex.first_line for ex in main.trace.exchanges) > first
            # Back to the list: still being read, where it was.
            await pilot.press("l")
            await wait_until(pilot, lambda: rows(app) == gate.at)
            await settle(pilot)
            assert "reading… 2 runs, 1 failed" in screen_text(app)
        finally:
            gate.release.set()
        await runs_listed(pilot, app)
        text = screen_text(app)
        assert f"{log}: 4 runs, 2 failed" in text and "reading…" not in text
        assert "✓   3" in text and "✗   4" in text
        assert "the password of user demo on project demo has expired" in text
        assert rows(app) == 4


async def test_the_first_rows_fit_a_small_terminal(log: Path, gate: Gate) -> None:
    app = steady_app(log=log)
    async with app.run_test(size=(80, 24)) as pilot:
        try:
            await wait_until(pilot, lambda: rows(app) == gate.at)
            await settle(pilot)
            text = screen_text(app)
        finally:
            gate.release.set()
    assert "reading… 2 runs, 1 failed," in text
    assert "✓   1  lines 1-" in text and "✗   2  lines" in text
    assert "esc Back" in text


async def test_the_cursor_goes_to_the_first_failed_run_once_read(log: Path, gate: Gate) -> None:
    """Until the user moves it; then it stays where the user put it."""
    first_ok = log.parent / "first-ok.log"
    first_ok.write_bytes(b"".join(_typed(name) for name in (RUNS[0], RUNS[2], RUNS[1])))
    gate.at = 1
    app = steady_app(log=first_ok)
    async with app.run_test(size=(160, 50)) as pilot:
        try:
            await wait_until(pilot, lambda: rows(app) == 1)
            options = app.screen.query_one(OptionList)
            assert options.highlighted == 0
        finally:
            gate.release.set()
        screen = await runs_listed(pilot, app)
        assert options.highlighted == 2  # the failed run, third
        await pilot.press("up")
        assert options.highlighted == 1
        screen.grew()  # as when more is read: the cursor stays
        assert options.highlighted == 1


async def test_quitting_while_the_runs_are_read_stops_the_reader(log: Path, gate: Gate) -> None:
    app = steady_app(log=log)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_until(pilot, lambda: rows(app) == gate.at)
        await pilot.press("q")
    assert gate.ended.wait(timeout=30)
    assert gate.stopped and not gate.release.is_set()


async def test_a_second_run_far_into_the_log_still_opens_the_list(tmp_path: Path) -> None:
    """The app looks for a second run in the log's first MiB before anything is
    drawn; one that begins further in is found by the incident screen's reader,
    which hands the log over to the list."""
    log = tmp_path / "long-first.log"
    table = b"".join(b"| server-%06d | ACTIVE |\n" % n for n in range(60_000))
    assert len(table) > 1 << 20
    log.write_bytes(_typed(RUNS[2]) + table + _typed(RUNS[1]))
    app = steady_app(log=log)
    async with app.run_test(size=(160, 50)) as pilot:
        await runs_listed(pilot, app)
        text = screen_text(app)
        assert f"{log}: 2 runs, 1 failed" in text
        assert "✓   1" in text and "✗   2" in text


async def test_a_log_that_cannot_be_read_on_says_so_on_the_list(
    log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unreadable(path: Path, *args: object) -> None:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(workers, "read_runs_of_path", unreadable)
    app = steady_app(log=log)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_until(pilot, lambda: app.run_list is not None and app.run_list.error is not None)
        await settle(pilot)
        text = screen_text(app)
        assert "reading stopped after 0 runs, 0 failed:" in text and "reading…" not in text
        assert isinstance(app.screen, RunsScreen)
