"""What a glance at the screen must give, at the sizes people use: whether the
command still runs or how it ended, the cause in one sentence, the next command
to type. Read from the screen's text, as a person would read it."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from osdoctor.diagnose import diagnose, parse_path
from osdoctor.render.common import headline_finding, request_rows
from osdoctor.tui.app import OsdoctorApp
from osdoctor.tui.steps import step_command
from osdoctor.tui.widgets.diagnosis import RUNNING_STEP, SUCCESS_STEP
from osdoctor.tui.workers import knowledge
from tests.tui.conftest import steady_app, wait_until
from tests.tui.logs import FIXTURES, PRINT_THEN_WAIT
from tests.tui.screen import screen_text, settle

pytestmark = pytest.mark.anyio

SIZES = [(80, 24), (120, 36), (160, 45)]
IDS = [f"{w}x{h}" for w, h in SIZES]
#: A stack delete --wait that exits 1 although the stack is deleted.
FAILING = FIXTURES / "heat.stack-delete.gone-but-error.log"
#: A stack create --wait that succeeds after polling the events.
HEALTHY = FIXTURES / "heat.stack-create.create-complete.log"
#: A server create --wait: the first poll reads BUILD (scheduling).
POLLING = FIXTURES / "osc.server-create.active.log"


@asynccontextmanager
async def opened(
    log: Path, size: tuple[int, int]
) -> AsyncIterator[tuple[OsdoctorApp, Pilot[Any], str]]:
    """The app on ``log`` once it is read, with the screen's text then."""
    app = steady_app(log=log)
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: app.main.state == "read")
        await settle(pilot)
        yield app, pilot, screen_text(app)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
async def test_a_failed_run_shows_its_state_cause_and_next_step(size: tuple[int, int]) -> None:
    report = diagnose(parse_path(FAILING), knowledge())
    first = headline_finding(report)
    assert first is not None and first.next_steps
    # what to type (the step's comment after "#" may wrap away in a narrow pane)
    command = step_command(first.next_steps[0]).split("#")[0].strip()
    async with opened(FAILING, size) as (app, pilot, text):
        assert "log read: exit 1" in text
        assert f"FAILURE  {first.title}" in text
        assert command in text
        # the timeline gives up columns, not the status and path of the failure
        assert "404" in text and "/stacks/web?resolve_outputs=False" in text
        assert "orchestrat " not in text
        # the diagnosis pane's keys keep the headline and its first step in view
        await pilot.press("1", "down", "down", "down", "up", "up", "up")
        await settle(pilot)
        text = screen_text(app)
        assert f"FAILURE  {first.title}" in text and command in text
        if size[0] >= 100:
            assert "ERROR  The stack IS deleted" in text  # pinned over the diagnosis


@pytest.mark.parametrize("size", SIZES, ids=IDS)
async def test_a_healthy_run_says_so_and_that_nothing_is_to_do(size: tuple[int, int]) -> None:
    async with opened(HEALTHY, size) as (_app, _pilot, text):
        assert "log read: exit 0" in text
        assert "SUCCESS  The command succeeded." in text
        assert SUCCESS_STEP in text
        assert "web CREATE_COMPLETE" in text  # what the events poll read last


def _cut_after_first_poll() -> int:
    """Lines of POLLING up to the first answer of its server poll."""
    trace = parse_path(POLLING)
    poll = next(
        r
        for r in request_rows(trace.exchanges)
        if r.count > 1 and r.first.path.startswith("/servers/")
    )
    second = next(ex for ex in trace.exchanges if ex.index == poll.first.index + 1)
    return second.first_line - 1


@pytest.mark.parametrize("size", SIZES, ids=IDS)
async def test_a_run_in_progress_shows_that_it_runs_and_what_the_poll_read(
    size: tuple[int, int],
) -> None:
    command = [sys.executable, "-c", PRINT_THEN_WAIT, str(POLLING), str(_cut_after_first_poll())]
    app = steady_app(command=command)
    async with app.run_test(size=size) as pilot:
        screen = app.main
        # The status line and the diagnosis pane are refreshed apart: wait for both
        # to have read the poll (a wait that never ends fails the test).
        await wait_until(
            pilot,
            lambda: (
                screen.report is not None
                and "BUILD (scheduling)" in screen_text(app)
                and "RUNNING  " in screen_text(app)
            ),
        )
        await settle(pilot)
        text = screen_text(app)
        assert "● running 0.0s" in text
        assert "last read: BUILD (scheduling)" in text  # in the status line
        assert "RUNNING  Nothing has failed so far." in text
        assert RUNNING_STEP[:40] in text
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: screen.state == "cancelled")
        await settle(pilot)
        text = screen_text(app)
        assert "✗ cancelled: exit" in text
        assert "● running" not in text
        assert "CANCELLED  " in text  # whatever the diagnosis says of the interrupted client
