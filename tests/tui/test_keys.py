"""The keys, as the screen shows them: the footer holds the keys that apply now
(no cancel for a saved log; ``e`` once findings quote log lines, ``l`` in a log
of several runs), ``?`` and F1 list them all, and the next step's command is
never cut, at the sizes people use. Read from the screen's text, as a person
would read it."""

from __future__ import annotations

import shlex
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Footer

from osdoctor.diagnose import diagnose, parse_path
from osdoctor.render.common import headline_finding
from osdoctor.tui.app import OsdoctorApp
from osdoctor.tui.screens.incident import WIDE
from osdoctor.tui.screens.keys import KeysScreen
from osdoctor.tui.screens.runs_list import RunsScreen
from osdoctor.tui.steps import step_command
from osdoctor.tui.workers import knowledge
from tests.tui.conftest import runs_listed, steady_app, wait_until
from tests.tui.logs import FIXTURES, PRINT_THEN_WAIT
from tests.tui.screen import screen_text, settle

pytestmark = pytest.mark.anyio

SIZES = [(80, 24), (160, 45)]
IDS = [f"{w}x{h}" for w, h in SIZES]
#: Its first next step is a long command: ``openstack stack show ID -c
#: stack_name -f value``, wider than 80 columns with its label.
LONG_STEP = FIXTURES / "heat.stack-hook.poll-index-error.log"


def shown(app: OsdoctorApp, widget: Widget) -> str:
    """The screen's text inside ``widget`` (within its border), its lines joined by spaces
    and runs of spaces made one: what a person reads there, wrapped or not."""
    region = widget.content_region
    lines = screen_text(app).splitlines()[region.y : region.bottom]
    return " ".join(" ".join(line[region.x : region.right] for line in lines).split())


def footer(app: OsdoctorApp) -> str:
    return shown(app, app.screen.query_one(Footer))


@asynccontextmanager
async def opened(log: Path, size: tuple[int, int]) -> AsyncIterator[tuple[OsdoctorApp, Pilot[Any]]]:
    app = steady_app(log=log)
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: app.main.state == "read")
        await settle(pilot)
        yield app, pilot


def first_command(log: Path) -> str:
    report = diagnose(parse_path(log), knowledge())
    first = headline_finding(report)
    assert first is not None and first.next_steps
    return " ".join(step_command(first.next_steps[0]).split())


@pytest.mark.parametrize("size", SIZES, ids=IDS)
async def test_a_saved_log_s_footer_shows_what_applies_to_it(size: tuple[int, int]) -> None:
    async with opened(LONG_STEP, size) as (app, _pilot):
        keys = footer(app)
        assert keys.startswith("? Help e Evidence c Copy step / Search")
        assert "Cancel run" not in keys and "Stop following" not in keys
        assert "l Runs" not in keys  # a log of one run


async def test_a_running_command_s_footer_has_its_cancel() -> None:
    cut = len(LONG_STEP.read_text().splitlines()) // 2
    command = [sys.executable, "-c", PRINT_THEN_WAIT, str(LONG_STEP), str(cut)]
    app = steady_app(command=command)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.main
        await wait_until(pilot, lambda: screen.state == "running" and screen.report is not None)
        await settle(pilot)
        keys = footer(app)
        assert keys.startswith("? Help x Cancel run")
        assert "Run command" not in keys  # not while one runs
        await pilot.press("x")
        await wait_until(pilot, lambda: screen.state == "cancelled")
        await settle(pilot)
        keys = footer(app)
        assert keys.startswith("? Help") and "Cancel run" not in keys


async def test_a_log_of_several_runs_has_l_for_its_list(tmp_path: Path) -> None:
    names = ("heat.stack-delete.deleted", "generic.auth-no-role")
    log = tmp_path / "ticket.log"
    pieces = []
    for name in names:
        command = yaml.safe_load((FIXTURES / f"{name}.expected.yaml").read_text())["command"]
        pieces.append(
            b"$ " + shlex.join(command).encode() + b"\n" + (FIXTURES / f"{name}.log").read_bytes()
        )
    log.write_bytes(b"".join(pieces))
    app = steady_app(log=log)
    async with app.run_test(size=(80, 24)) as pilot:
        await runs_listed(pilot, app)
        assert footer(app).startswith("? Help esc Back")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.screen is app.main and app.main.state == "read")
        await settle(pilot)
        keys = footer(app)
        assert "l Runs" in keys and "e Evidence" in keys and "Cancel run" not in keys
        await pilot.press("l")
        await wait_until(pilot, lambda: isinstance(app.screen, RunsScreen))


@pytest.mark.parametrize("key", ["question_mark", "f1"])
@pytest.mark.parametrize("size", SIZES, ids=IDS)
async def test_help_lists_the_keys_of_the_screen(key: str, size: tuple[int, int]) -> None:
    async with opened(LONG_STEP, size) as (app, pilot):
        await pilot.press(key)
        await wait_until(pilot, lambda: isinstance(app.screen, KeysScreen))
        await settle(pilot)
        text = shown(app, app.screen.query_one("#keys"))
        assert "Keys On this screen ? f1 Help" in text
        for row in ("e Evidence", "c Copy step", "1 Diagnosis pane", "n Next match"):
            assert row in text
        assert "Cancel run" not in text  # nothing runs: x does nothing here
        await pilot.press(key)  # the same key closes it
        await wait_until(pilot, lambda: app.screen is app.main)
        await settle(pilot)
        assert "On this screen" not in screen_text(app)


async def test_help_on_the_list_of_runs_names_its_keys(tmp_path: Path) -> None:
    log = tmp_path / "two.log"
    run = (FIXTURES / "generic.auth-no-role.log").read_bytes()
    log.write_bytes(b"$ openstack server list\n" + run + b"$ openstack server list\n" + run)
    app = steady_app(log=log)
    async with app.run_test(size=(80, 24)) as pilot:
        await runs_listed(pilot, app)
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, KeysScreen))
        await settle(pilot)
        text = shown(app, app.screen.query_one("#keys"))
        assert "On this screen ? f1 Help esc Back" in text and "⏎" in text
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, RunsScreen))


@pytest.mark.parametrize("size", [(80, 24), (60, 20), (120, 36), (160, 45)])
async def test_the_next_command_is_shown_whole(size: tuple[int, int]) -> None:
    """One column: the line under the verdict wraps the command under its label.
    Side by side: the headline's steps in the diagnosis pane wrap it."""
    command = first_command(LONG_STEP)
    async with opened(LONG_STEP, size) as (app, _pilot):
        if size[0] < WIDE:
            assert shown(app, app.main.query_one("#next")) == f"next ▸ {command}"
        else:
            assert command in shown(app, app.main.query_one("#steps"))
