"""No pane shows a secret: the log pane reads raw lines back from the file (or
keeps a live run's), so it redacts them itself, private key blocks included."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from textual.pilot import Pilot

from osdoctor.tui.app import OsdoctorApp
from osdoctor.tui.linestore import FileLines, MemoryLines
from tests.secret_corpus import ALL_SECRETS, CASES, fixture_leaks, secret_cases, secret_fixtures
from tests.secret_shapes import ShapedLog, shaped_logs
from tests.tui.conftest import runs_listed, steady_app, wait_until
from tests.tui.screen import screen_text

KEY_BODY = [
    "MIIEowIBAAKCAQEAfakeKeyBodyLineNumberOne0123456789abcdefghij",
    "fakeKeyBodyLineNumberTwo0123456789abcdefghijklmnopqrstuvwxyzAB",
    "fakeKeyBodyLineNumberThree0123456789abcdefghijklmnopqrstuv==",
]
LINES = [case.line for case in CASES] + [
    "+-------------+------------------------------------------+",
    "| private_key | -----BEGIN RSA PRIVATE KEY-----          |",
    *KEY_BODY,
    "-----END RSA PRIVATE KEY-----",
    "END return value: 0",
]
SECRETS = set(ALL_SECRETS) | set(KEY_BODY)


def leaks(text: str) -> list[str]:
    return [s for s in SECRETS if s in text]


def write_log(path: Path) -> Path:
    path.write_text("\n".join(LINES) + "\n")
    return path


def test_file_lines_are_redacted_when_drawn(tmp_path: Path) -> None:
    log = write_log(tmp_path / "secrets.log")
    store = FileLines(log)
    offset = 0
    for line in log.read_bytes().splitlines(keepends=True):
        store.add_offset(offset)
        offset += len(line)
    store.set_end(offset)
    shown = [store.text(n) for n in range(1, len(store) + 1)]
    assert len(shown) == len(LINES)
    for text in shown:
        assert leaks(text) == [], text
    assert shown[-2] == "-----END RSA PRIVATE KEY-----"


def test_live_lines_are_redacted_as_they_arrive() -> None:
    store = MemoryLines()
    for text in LINES:
        store.append(2, text)
    for n in range(1, len(store) + 1):
        assert leaks(store.text(n)) == []


@pytest.mark.anyio
async def test_opened_log_shows_no_secret_in_any_pane(tmp_path: Path) -> None:
    log = write_log(tmp_path / "secrets.log")
    app = steady_app(log=log)
    async with app.run_test(size=(160, 50)) as pilot:
        screen = app.main
        # The corpus holds several START lines: a log of several runs, which opens
        # on its run list; that list must not show a secret either.
        await runs_listed(pilot, app)
        assert "runs" in screen_text(app)
        assert leaks(app.export_screenshot()) == []
        await pilot.press("enter")
        await wait_until(pilot, lambda: screen.state == "read" and screen.final)
        for key in ("1", "2", "3", "4", "5"):
            await pilot.press(key)
            await pilot.pause()
            assert leaks(app.export_screenshot()) == []
        lines = screen.lines
        assert lines is not None
        for n in range(1, len(lines) + 1):
            assert leaks(lines.text(n)) == []


# --- the lab's secret cases, opened and run live ---------------------------------------


def screen_lines(app: OsdoctorApp) -> list[str]:
    """The screen's text, line by line, as the user reads it: every cell, as the
    terminal shows it (cheaper than a screenshot, which draws an SVG)."""
    return screen_text(app).splitlines()


async def _every_pane_and_the_export(pilot: Pilot[Any], app: OsdoctorApp, allowed: str) -> None:
    screen = app.main
    for key in ("1", "2", "3", "4", "5"):
        await pilot.press(key)
        await pilot.pause()
        text = "\n".join(screen_lines(app))
        assert fixture_leaks(text, allowed) == [], (key, text)
    lines = screen.lines
    assert lines is not None
    for n in range(1, len(lines) + 1):
        assert fixture_leaks(lines.text(n), allowed) == [], lines.text(n)
    await pilot.press("m")
    export = screen.export_path
    assert export is not None and export.stat().st_mode & 0o777 == 0o600
    assert fixture_leaks(export.read_text(), allowed) == []


#: The secret fixtures, a few to an app: each app opens its fixtures one after
#: another, as a user opens one log after the other, and every pane of each is
#: checked once it is read (an app's start costs more than a log's reading, and
#: a pane that kept a secret of the log before would show it too).
FIXTURE_SETS = 6
FIXTURES = secret_fixtures()


@pytest.mark.anyio
@pytest.mark.parametrize(
    "paths",
    [FIXTURES[start::FIXTURE_SETS] for start in range(FIXTURE_SETS)],
    ids=lambda paths: "+".join(path.stem.rpartition(".")[2] for path in paths),
)
async def test_the_secret_fixtures_opened_show_no_secret(paths: list[Path]) -> None:
    assert paths
    app = steady_app(log=paths[0])
    async with app.run_test(size=(160, 50)) as pilot:
        screen = app.main
        for path in paths:
            if path != paths[0]:
                screen.open_log(path)
            await wait_until(
                pilot, lambda: screen.state == "read" and screen.final and screen.lines is not None
            )
            assert screen.source_path == path  # the log opened last, not the one before
            await _every_pane_and_the_export(pilot, app, str(path))


#: Live runs in the TUI: the command line itself carries the secret here.
LIVE_CASES = [
    "generic.secret-os-password",
    "generic.secret-passphrase",
    "generic.secret-ec2-credentials-value",
    "generic.secret-swift-key",
    "heat.stack-create.secret-hidden-parameter",
]


@pytest.mark.anyio
@pytest.mark.parametrize("case_id", LIVE_CASES)
async def test_a_live_run_of_a_secret_case_shows_no_secret(
    case_id: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, osdoctor_home: Path
) -> None:
    from osdoctor.lab.capture import client_bin_dir, prepare_run
    from osdoctor.lab.stub import Stub

    (case,) = [c for c in secret_cases() if c.id == case_id]
    stub = Stub(case.stub)
    stub.start()
    try:
        args, env = prepare_run(case, stub.values, tmp_path, tmp_path)
        monkeypatch.chdir(tmp_path)  # where the case's files are
        for key in [k for k in os.environ if k.startswith("OS_")]:
            monkeypatch.delenv(key)
        for key, value in env.items():
            if key.startswith(("OS_", "PATH", "HOME")):
                monkeypatch.setenv(key, value)
        app = steady_app(command=[str(client_bin_dir() / case.command[0]), *args], assume_yes=True)
        async with app.run_test(size=(160, 50)) as pilot:
            screen = app.main
            await wait_until(pilot, lambda: screen.state == "finished", timeout=90)
            assert screen.result is not None and screen.result.exit_code == 0
            await _every_pane_and_the_export(pilot, app, str(osdoctor_home))
    finally:
        stub.stop()
    (session,) = (osdoctor_home / "data" / "sessions").glob("*.session.log")
    assert fixture_leaks(session.read_text(), session.name) == []


# --- random secrets in every shape, on the screen ---------------------------------------


async def _shaped_log_on_screen(path: Path, log: ShapedLog) -> None:
    app = steady_app(log=path)
    async with app.run_test(size=(160, 50)) as pilot:
        screen = app.main
        await wait_until(pilot, lambda: screen.state == "read" and screen.final)
        for key in ("1", "2", "3", "4", "5"):
            await pilot.press(key)
            await pilot.pause()
            shown = "\n".join(screen_lines(app))
            assert log.leaks(shown) == [], (key, shown)
        # The log pane, scrolled over every line, and the exchange pane of each request.
        await pilot.press("1")
        lines = screen.lines
        assert lines is not None
        assert log.leaks("\n".join(lines.text(n) for n in range(1, len(lines) + 1))) == []
        await pilot.press("m")
        export = screen.export_path
        assert export is not None and log.leaks(export.read_text()) == []


@settings(
    max_examples=3,
    derandomize=True,
    deadline=None,
    phases=[Phase.explicit, Phase.generate],  # a screen per example: no shrinking
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(log=shaped_logs())
def test_a_random_secret_in_any_shape_shows_on_no_pane(log: ShapedLog, tmp_path: Path) -> None:
    """Property: the screen of each pane, the log pane's every line and the
    Markdown export show none of the secrets a log holds in any shape."""
    path = tmp_path / "shaped.log"
    path.write_text(log.text)
    asyncio.run(_shaped_log_on_screen(path, log))
