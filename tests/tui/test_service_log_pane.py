"""The service-log pane: for the exchange under the timeline's cursor, the records
the services wrote for it (``osdoctor open LOG --service-log DIR``), read off
the screen; and no secret a service logged is shown there."""

from __future__ import annotations

from pathlib import Path

import pytest

from osdoctor.servicelog.attach import ServiceLogs
from osdoctor.tui.widgets.timeline import Timeline
from tests.helpers.public_logs import FIXTURES
from tests.secret_corpus import fixture_leaks
from tests.tui.conftest import steady_app, wait_until
from tests.tui.screen import screen_text, settle

pytestmark = pytest.mark.anyio

LOGS = FIXTURES / "logs"
SIZE = (160, 50)


def opened(name: str, with_logs: bool = True) -> object:
    folder = LOGS / f"{name}.service"
    services = ServiceLogs.of([str(folder)]) if with_logs else None
    return steady_app(log=LOGS / f"{name}.log", service_logs=services)


async def test_the_pane_shows_the_failed_requests_records() -> None:
    app = opened("generic.server-nova-db-unreachable")
    async with app.run_test(size=SIZE) as pilot:  # type: ignore[attr-defined]
        screen = app.main  # type: ignore[attr-defined]
        await wait_until(pilot, lambda: screen.state == "read")
        assert "Database unreachable from nova-api" in screen_text(app)  # type: ignore[arg-type]
        await pilot.press("6")
        await settle(pilot)
        text = screen_text(app)  # type: ignore[arg-type]
        # The cursor opens on the 500: its records, with their file and line.
        assert "service record(s) of this request" in text
        assert "nova-api.log:3" in text and "ERROR nova-api" in text
        assert "oslo_db.exception.DBConnectionError" in text
        assert "tied by its request id" in text
        # Another exchange, another request: its own record (the access line) only.
        await pilot.press("up")
        await settle(pilot)
        moved = screen_text(app)  # type: ignore[arg-type]
        assert "nova-api.log:3" not in moved  # the headline above still names the cause
        assert "service record(s) of this request" in moved
        timeline = screen.query_one(Timeline)
        assert timeline.cursor < timeline.row_count - 1


async def test_without_service_logs_the_pane_says_how_to_give_them() -> None:
    app = opened("generic.server-nova-db-unreachable", with_logs=False)
    async with app.run_test(size=SIZE) as pilot:  # type: ignore[attr-defined]
        await wait_until(pilot, lambda: app.main.state == "read")  # type: ignore[attr-defined]
        await pilot.press("6")
        await settle(pilot)
        text = screen_text(app)  # type: ignore[arg-type]
        assert "No service log was given" in text
        assert "--service-log DIR" in text


async def test_the_pane_shows_no_secret_a_service_logged() -> None:
    app = opened("generic.server-secrets-in-service-log")
    async with app.run_test(size=SIZE) as pilot:  # type: ignore[attr-defined]
        screen = app.main  # type: ignore[attr-defined]
        await wait_until(pilot, lambda: screen.state == "read")
        seen = []
        for key in ("1", "6"):
            await pilot.press(key)
            await settle(pilot)
            seen.append(screen_text(app))  # type: ignore[arg-type]
        timeline = screen.query_one(Timeline)
        for _ in range(timeline.row_count):
            await pilot.press("up")
            await settle(pilot)
            seen.append(screen_text(app))  # type: ignore[arg-type]
        shown = "\n".join(seen)
        assert "Could not parse SQLAlchemy URL" in shown
        assert "mysql+pymysql://nova:***@" in shown
        assert fixture_leaks(shown, "generic.server-secrets-in-service-log") == []


def test_the_fixtures_are_there() -> None:
    assert isinstance(LOGS, Path) and (LOGS / "generic.server-nova-db-unreachable.service").is_dir()
