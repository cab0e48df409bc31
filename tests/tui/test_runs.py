"""A log of several runs opens on the list of its runs; enter opens one."""

from __future__ import annotations

import io
import shlex
from pathlib import Path

import pytest
import yaml
from textual.widgets import OptionList

from osdoctor.tui.screens.runs_list import RunsScreen
from osdoctor.tui.widgets.timeline import Timeline
from tests.helpers.public_logs import public_log
from tests.tui.conftest import runs_listed, steady_app, wait_until
from tests.tui.screen import screen_text, settle

pytestmark = pytest.mark.anyio

LOGS = Path(__file__).resolve().parent.parent / "fixtures" / "logs"
RUNS = ("heat.stack-delete.deleted", "generic.auth-no-role", "osc.auth.authenticated")


def _typed(name: str) -> bytes:
    command = yaml.safe_load((LOGS / f"{name}.expected.yaml").read_text())["command"]
    return b"$ " + shlex.join(command).encode() + b"\n" + (LOGS / f"{name}.log").read_bytes()


async def test_a_log_of_several_runs_lists_them_and_opens_the_failed_one(tmp_path: Path) -> None:
    log = tmp_path / "ticket.log"
    pieces = [_typed(n) for n in RUNS]
    log.write_bytes(b"".join(pieces))
    app = steady_app(log=log)
    async with app.run_test(size=(160, 50)) as pilot:
        await runs_listed(pilot, app)
        text = screen_text(app)
        assert f"{log}: 3 runs, 1 failed" in text and "reading…" not in text
        assert "✓   1" in text and "✗   2" in text and "✓   3" in text
        assert "openstack stack delete" in text and "openstack server list" in text
        assert "exit 1" in text and "Keystone refused user demo" in text
        second = len(pieces[0].splitlines()) + 1
        assert f"lines {second}-{second + len(pieces[1].splitlines()) - 1}" in text
        await pilot.press("enter")  # the failed run is the one highlighted
        screen = app.main
        await wait_until(pilot, lambda: screen.state == "read")
        assert app.screen is screen
        await settle(pilot)
        text = screen_text(app)
        assert "run 2 of 3" in text
        assert "FAILURE  Keystone refused user demo" in text and "[osc.auth-refused]" in text
        # The timeline holds the failed run's requests only, at the log's own lines.
        assert screen.trace is not None and screen.trace.command == "openstack server list"
        lines = [ex.first_line for ex in screen.trace.exchanges]
        assert lines and min(lines) > second
        assert screen.query_one(Timeline).row_count == len(screen.trace.exchanges)
        await pilot.press("l")
        await wait_until(pilot, lambda: isinstance(app.screen, RunsScreen))


async def test_a_log_of_one_run_opens_as_before(tmp_path: Path) -> None:
    log = tmp_path / "one.log"
    log.write_bytes(_typed("generic.auth-no-role"))
    app = steady_app(log=log)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_until(pilot, lambda: app.main.state == "read")
        assert app.screen is app.main
        await settle(pilot)
        text = screen_text(app)
        assert "FAILURE  Keystone refused user demo" in text and " · run " not in text


async def test_a_run_opened_from_the_list_masks_what_the_runs_before_taught(
    tmp_path: Path,
) -> None:
    """The first run masks a credential's secret where its key names it; the
    second prints that value bare. Opened alone from the list, the second run
    still masks it: on screen and in every line its log pane can draw."""
    from osdoctor.intake import parsed_stream
    from osdoctor.parse.wraps import Widths

    first = _typed("generic.secret-credential-create")
    parser = parsed_stream(io.BytesIO(first), "first.log", Widths())
    value = max((f for f in parser.secrets.literals.forms() if f.encode() in first), key=len)
    log = tmp_path / "ticket.log"
    log.write_bytes(first + _typed("osc.auth.authenticated") + value.encode() + b"\n")
    app = steady_app(log=log)
    async with app.run_test(size=(160, 50)) as pilot:
        runs = await runs_listed(pilot, app)
        runs.query_one(OptionList).highlighted = 1
        await pilot.press("enter")
        screen = app.main
        await wait_until(pilot, lambda: screen.state == "read")
        await settle(pilot)
        assert "run 2 of 2" in screen_text(app)
        lines = screen.lines
        assert lines is not None and len(lines) > 0
        shown = [lines.text(n) for n in range(1, len(lines) + 1)]
        assert any("***" in text for text in shown)
        assert not any(value in text for text in shown)
        for key in ("1", "2", "3", "4", "5"):
            await pilot.press(key)
            await settle(pilot)
            assert value not in screen_text(app), key


async def test_a_run_without_exit_code_or_error_says_so_not_that_the_log_ends() -> None:
    """A pasted ``role add`` between the prompts of a session: nothing printed, then
    the next prompt. Opened from the list, the verdict says the outcome is unknown,
    and the next step does not call it a failure."""
    log = public_log("osc-2020-user-list-403-identity-list-users-non-admin-role")
    app = steady_app(log=log)
    async with app.run_test(size=(160, 50)) as pilot:
        await runs_listed(pilot, app)
        screen = app.screen
        assert isinstance(screen, RunsScreen)
        screen.query_one(OptionList).highlighted = 0
        await pilot.press("enter")
        main = app.main
        await wait_until(pilot, lambda: main.state == "read")
        await settle(pilot)
        text = screen_text(app)
        assert "run 1 of 3" in text
        assert "The log shows no exit code and no error: the outcome is unknown." in text
        assert "the log does not say how the command ended" in text
        assert "no rule explains this failure" not in text and "log ends" not in text


async def test_the_run_list_keeps_its_cursor_on_the_run_opened(tmp_path: Path) -> None:
    """Defect 14: after ``l`` the list came back with the cursor on the first failed
    run, not on the run the user had opened."""
    log = tmp_path / "ticket.log"
    log.write_bytes(b"".join(_typed(n) for n in RUNS))
    app = steady_app(log=log)
    async with app.run_test(size=(160, 50)) as pilot:
        await runs_listed(pilot, app)
        options = app.screen.query_one(OptionList)
        assert options.highlighted == 1  # the failed run
        await pilot.press("down", "enter")  # the third run
        await wait_until(pilot, lambda: app.main.state == "read")
        assert "run 3 of 3" in screen_text(app)
        await pilot.press("l")
        await wait_until(pilot, lambda: isinstance(app.screen, RunsScreen))
        await settle(pilot)
        assert app.screen.query_one(OptionList).highlighted == 2


async def test_a_pasted_session_opens_like_explain_and_cites_the_run_before() -> None:
    """Plain output of a session, as a ticket pastes it (a backup list, then the
    delete it explains): the TUI lists its runs, and the failed one, opened alone,
    cites the earlier list's row on the log's own line, as explain does."""
    log = LOGS / "generic.backup-delete-creating.plain.log"
    row = next(i for i, line in enumerate(log.read_text().splitlines(), 1) if "creating" in line)
    app = steady_app(log=log)
    async with app.run_test(size=(160, 50)) as pilot:
        await runs_listed(pilot, app)
        text = screen_text(app)
        assert f"{log}: 2 runs, 1 failed" in text
        assert "openstack volume backup list" in text and "Backup status must be" in text
        await pilot.press("enter")
        screen = app.main
        await wait_until(pilot, lambda: screen.state == "read")
        await settle(pilot)
        assert screen.report is not None
        first = screen.report.findings[0]
        assert first.id == "generic.bad-request"
        assert row in [e.line for e in first.evidence]
