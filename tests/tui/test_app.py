"""The TUI driven by Textual's pilot, on real client output."""

from __future__ import annotations

import io
import os
import re
import stat
import sys
from pathlib import Path

import pytest
from rich.console import Console
from textual.message import Message
from textual.widgets import OptionList, Static, TabbedContent

from osdoctor.tui.app import OsdoctorApp
from osdoctor.tui.screens.dialogs import ConfirmRun
from osdoctor.tui.steps import step_command
from osdoctor.tui.widgets.rawlog import RawLog
from osdoctor.tui.widgets.timeline import Timeline
from osdoctor.tui.worker_messages import ReportReady, RunFinished, TraceGrew
from tests.helpers.children import child, gate
from tests.tui.conftest import steady_app, wait_until
from tests.tui.logs import HANGER, PRINTER, client, refused_env
from tests.tui.screen import screen_text, settle

pytestmark = pytest.mark.anyio

SIZE = (160, 50)


def shown(app: OsdoctorApp, selector: str) -> str:
    """The plain text a Static currently shows."""
    console = Console(width=400, record=True, file=io.StringIO())
    console.print(app.main.query_one(selector, Static).content)
    return console.export_text()


async def test_open_a_log_and_navigate_with_keys(refused_log: Path) -> None:
    app = steady_app(log=refused_log)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.main
        await wait_until(pilot, lambda: screen.state == "read")
        assert "osc.auth › keystone-unreachable" in shown(app, "#verdict")
        assert "Keystone could not be reached" in shown(app, "#diagnosis-body")
        timeline = screen.query_one(Timeline)
        assert timeline.row_count == 2
        await pilot.press("up", "down", "enter")
        # side by side, the exchange is under the timeline: enter goes there
        assert app.focused is not None and app.focused.id == "side-detail"
        await settle(pilot)
        text = screen_text(app)
        assert "POST http://127.0.0.1:9/v3/auth/tokens" in text
        assert "connection-refused" in text
        await pilot.press("3")
        scenario = shown(app, "#scenario-body")
        assert "✓ seen" in scenario and "✗ diverged" in scenario
        await pilot.press("e")
        log = screen.query_one(RawLog)
        assert screen.query_one(TabbedContent).active == "log"
        assert log.number_at(log.cursor) in log.evidence
        await pilot.press("slash", *"Traceback", "enter")
        assert "Traceback" in log.lines.text(log.number_at(log.cursor))  # type: ignore[union-attr]


async def test_copy_a_next_step_and_export_the_report(
    refused_log: Path, osdoctor_home: Path
) -> None:
    app = steady_app(log=refused_log)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.main.state == "read")
        await pilot.press("1", "c")
        report = app.main.report
        assert report is not None
        assert app.clipboard == step_command(report.findings[0].next_steps[0])
        assert app.clipboard.startswith("openstack configuration show")
        await pilot.press("m")
        export = app.main.export_path
        assert export is not None and export.parent == osdoctor_home / "data" / "exports"
        assert stat.S_IMODE(export.stat().st_mode) == 0o600
        assert "Keystone could not be reached" in export.read_text()


async def test_a_live_run_is_diagnosed_as_it_goes(refused_log: Path, osdoctor_home: Path) -> None:
    seen: list[Message] = []
    command = [sys.executable, "-c", PRINTER, str(refused_log), "0.01", "1"]
    app = steady_app(command=command)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        screen = app.main
        await wait_until(pilot, lambda: screen.state == "finished")
        assert screen.result is not None and screen.result.exit_code == 1
        assert screen.report is not None and screen.report.scenario is not None
        assert screen.report.scenario.branch == "keystone-unreachable"
        assert [f.id for f in screen.report.findings][:1] == ["osc.keystone-unreachable"]
        assert "exit 1" in shown(app, "#status")
        assert screen.query_one(Timeline).row_count == 2
    kinds = [type(m) for m in seen if isinstance(m, (TraceGrew, ReportReady, RunFinished))]
    first_final = next(i for i, m in enumerate(seen) if isinstance(m, ReportReady) and m.final)
    assert any(isinstance(m, ReportReady) and not m.final for m in seen[:first_final])
    assert kinds.index(TraceGrew) < kinds.index(RunFinished)
    sessions = list((osdoctor_home / "data" / "sessions").glob("*.session.log"))
    assert len(sessions) == 1
    assert stat.S_IMODE(sessions[0].stat().st_mode) == 0o600
    assert sessions[0].read_text().rstrip().splitlines()[-1].startswith("#exit 1 ")


async def test_the_real_client_runs_live(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in [k for k in os.environ if k.startswith("OS_")]:
        monkeypatch.delenv(key)
    for key, value in refused_env().items():
        monkeypatch.setenv(key, value)
    app = steady_app(command=[client(), "server", "show", "web-1"])
    async with app.run_test(size=SIZE) as pilot:
        screen = app.main
        await wait_until(pilot, lambda: screen.state == "finished", timeout=60)
        assert screen.run is not None and "--debug" in screen.run.argv
        assert screen.report is not None and screen.report.outcome == "failure"
        assert "keystone-unreachable" in shown(app, "#verdict")


async def test_cancel_stops_the_child_and_warns(osdoctor_home: Path) -> None:
    app = steady_app(command=[sys.executable, "-c", HANGER])
    async with app.run_test(size=SIZE) as pilot:
        screen = app.main
        await wait_until(pilot, lambda: screen.counts[0] >= 4)
        assert screen.run is not None and screen.run.pid is not None
        pid = screen.run.pid
        os.kill(pid, 0)  # running
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: screen.state == "cancelled")
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
        assert not Path(f"/proc/{pid}").exists()
        assert "server-side" in shown(app, "#status")


async def test_a_destructive_command_asks_first(refused_log: Path) -> None:
    command = [sys.executable, "-c", PRINTER, str(refused_log), "0", "0", "delete"]
    app = steady_app(command=command)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmRun))
        await pilot.press("n")
        assert app.main.run is None and app.main.trace is None
        app.main.start_command(command)
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmRun))
        await pilot.press("y")
        await wait_until(pilot, lambda: app.main.state == "finished")


async def test_the_empty_session_prompts_and_reopens_recent_runs(refused_log: Path) -> None:
    app = steady_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = app.main
        assert app.focused is not None and app.focused.id == "prompt"
        await pilot.press(*f"{sys.executable} -c 'print(1)'", "enter")
        await wait_until(pilot, lambda: screen.state == "finished")
        await pilot.press("o")
        options = app.screen.query_one("#session-list", OptionList)
        assert options.option_count == 1
        await pilot.press("enter")
        await wait_until(pilot, lambda: screen.state == "read")
        assert screen.trace is not None and screen.trace.format == "session"
        assert screen.query_one("#stdout", RawLog).row_count == 1


async def test_follow_reads_what_another_process_appends(refused_log: Path, tmp_path: Path) -> None:
    lines = refused_log.read_bytes().splitlines(keepends=True)
    growing = tmp_path / "growing.log"
    growing.write_bytes(b"".join(lines[:30]))
    app = steady_app(log=growing, follow=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.main
        await wait_until(pilot, lambda: screen.counts[0] == 30)
        with growing.open("ab") as handle:
            handle.write(b"".join(lines[30:]))
        screen.follow_wake.set()
        await wait_until(
            pilot,
            lambda: (
                screen.counts[0] == len(lines)
                and screen.report is not None
                and screen.report.scenario is not None
                and screen.report.scenario.branch == "keystone-unreachable"
            ),
        )
        await pilot.press("x")
        await wait_until(pilot, lambda: screen.state == "read")
        assert screen.final


async def test_probe_key_asks_first_then_marks_the_finding(
    refused_log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The refused log names Keystone on 127.0.0.1:9, where nothing listens: with the
    same OS_* settings the client had, the live check reaches only that loopback port
    and confirms it is still unreachable."""
    from osdoctor.tui.screens.dialogs import ConfirmProbe
    from osdoctor.tui.widgets.diagnosis import DiagnosisView

    for key in [k for k in os.environ if k.startswith("OS_")]:
        monkeypatch.delenv(key)
    for key, value in refused_env().items():
        if key.startswith("OS_") and value:
            monkeypatch.setenv(key, value)

    app = steady_app(log=refused_log)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.main
        await wait_until(pilot, lambda: screen.state == "read" and screen.final)
        await pilot.press("p")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmProbe))
        dialog = app.screen
        assert isinstance(dialog, ConfirmProbe)
        assert any(host.startswith("127.0.0.1:9") for host in dialog.hosts)
        await pilot.press("n")
        view = screen.query_one(DiagnosisView)
        assert view.probed is None
        await pilot.press("p")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmProbe))
        await pilot.press("y")
        await wait_until(pilot, lambda: view.probed is screen.report, timeout=30)
        statuses = {status for _name, status, _detail in view.probes.values()}
        assert statuses == {"confirmed"}
        assert "Live check CONFIRMED" in shown(app, "#diagnosis-body")


async def test_the_reading_time_comes_from_the_injected_clock(refused_log: Path) -> None:
    """The status bar's "read in 1.4s" follows the screen's clock, not the machine's:
    a slow clock shows it however fast the read, a frozen one never does."""
    ticks = iter(range(0, 10_000, 7))
    slow = steady_app(log=refused_log)
    slow.main.clock = lambda: float(next(ticks))
    async with slow.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: slow.main.state == "read")
        assert re.search(r"read in \d+\.\ds", shown(slow, "#status"))
    frozen = steady_app(log=refused_log)
    async with frozen.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: frozen.main.state == "read")
        assert "read in" not in shown(frozen, "#status")


async def test_a_steady_cursor_does_not_blink() -> None:
    """The prompt's cursor is drawn the same whatever the moment of the snapshot."""
    from textual.widgets import Input

    app = steady_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        prompt = app.main.query_one("#prompt", Input)
        assert app.focused is prompt
        assert prompt.cursor_blink is False
        assert prompt._blink_timer is not None and prompt._blink_timer._active.is_set() is False
        assert prompt._cursor_visible


async def test_the_output_pane_shows_everything_the_client_printed() -> None:
    """stdout and stderr alike, debug records aside: the per-stack lines and the
    summary of a partial stack delete, not only its one ERROR line."""
    log = (
        Path(__file__).resolve().parents[1] / "fixtures" / "logs" / "heat.stack-delete.partial.log"
    )
    app = steady_app(log=log)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.main.state == "read")
        await pilot.press("5")
        pane = app.main.query_one("#stdout", RawLog)
        assert pane.lines is not None
        shown_lines = [pane.lines.text(pane.number_at(row)) for row in range(pane.row_count)]
        assert shown_lines[:3] == [
            "Unable to delete 2 of the 3 stacks.",
            "ERROR: The Stack (db) could not be found.",
            "Forbidden: app",
        ]
        assert [line.split("]: ")[-1] for line in shown_lines[3:]] == [
            "DELETE_IN_PROGRESS  Stack DELETE started",
            "DELETE_COMPLETE  Stack DELETE completed successfully",
        ]


async def test_a_live_run_s_output_pane_holds_its_printed_stderr_lines() -> None:
    """A client prints its summary on stderr, among the debug records."""
    log = (
        Path(__file__).resolve().parents[1] / "fixtures" / "logs" / "heat.stack-delete.partial.log"
    )
    app = steady_app(command=[sys.executable, "-c", PRINTER, str(log), "0", "1"], assume_yes=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.main.state == "finished")
        pane = app.main.query_one("#stdout", RawLog)
        assert pane.lines is not None
        shown_lines = [pane.lines.text(pane.number_at(row)) for row in range(pane.row_count)]
        assert "Unable to delete 2 of the 3 stacks." in shown_lines
        assert "Forbidden: app" in shown_lines
        assert not any("cmd group" in line or line.startswith("REQ:") for line in shown_lines)


async def test_a_live_wait_raises_no_alarm_before_its_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three seconds into a stack create --poll 1, two empty rounds of events are
    normal: nothing says the run ended, nor names an exit code, nor is an
    error, until the client really exits (here 130, interrupted)."""
    log = (
        Path(__file__).resolve().parents[1] / "fixtures" / "logs" / "heat.stack-create.stalled.log"
    )
    seen: list[Message] = []
    with gate(tmp_path) as (step, fd):
        # An "openstack" that replays the real client's output of that create.
        fake = tmp_path / "bin" / "openstack"
        fake.parent.mkdir()
        replay = child("replay", str(log), "70", step, "130")
        fake.write_text(f"#!{sys.executable}\nimport os\nos.execv({replay[0]!r}, {replay!r})\n")
        fake.chmod(0o755)
        monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
        app = steady_app(
            command=[
                "openstack",
                "stack",
                "create",
                "--wait",
                "--poll",
                "1",
                "-t",
                "template.yaml",
                "web",
            ],
            assume_yes=True,
        )
        async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
            screen = app.main

            def diagnosed_so_far() -> bool:
                grown = [
                    i for i, m in enumerate(seen) if isinstance(m, TraceGrew) and m.lines >= 3 + 70
                ]
                return bool(grown) and any(isinstance(m, ReportReady) for m in seen[grown[0] :])

            await wait_until(pilot, diagnosed_so_far)
            await pilot.pause()
            assert screen.report is not None and screen.report.scenario is not None
            await pilot.press("1")
            said = " ".join(shown(app, s) for s in ("#status", "#verdict", "#diagnosis-body"))
            assert "exit" not in said and "ended" not in said
            assert " ERROR " not in said and "saw no progress" not in said
            await pilot.press("3")
            drawn = shown(app, "#scenario-body")
            assert "exit None" not in drawn and "run ended" not in drawn
            os.write(fd, b"x")
            await wait_until(pilot, lambda: screen.state == "finished")
            assert screen.result is not None and screen.result.exit_code == 130
            assert "heat.wait-stalled" in [f.id for f in screen.report.findings]
