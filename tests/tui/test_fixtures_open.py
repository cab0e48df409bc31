"""``osdoctor open`` shows, for every fixture log, what ``osdoctor explain`` says."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console
from textual.widgets import Static

from osdoctor.diagnose import diagnose, parse_path
from osdoctor.tui.workers import knowledge
from tests.tui.conftest import steady_app, wait_until
from tests.tui.logs import FIXTURES

pytestmark = pytest.mark.anyio

LOGS = sorted(FIXTURES.glob("*.log"))


@pytest.mark.parametrize("log", LOGS, ids=[p.stem for p in LOGS])
async def test_open_shows_the_scenario_branch_and_findings(log: Path) -> None:
    expected = diagnose(parse_path(log), knowledge())
    app = steady_app(log=log)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_until(pilot, lambda: app.main.state == "read")
        report = app.main.report
        assert report is not None
        assert report.outcome == expected.outcome
        assert [f.id for f in report.findings] == [f.id for f in expected.findings]
        console = Console(width=400, record=True, file=io.StringIO())
        console.print(app.main.query_one("#verdict", Static).content)
        verdict = console.export_text()
        if expected.scenario is not None and expected.scenario.branch is not None:
            assert f"{expected.scenario.id} › {expected.scenario.branch}" in verdict
        elif expected.scenario is not None:       # a documented command, no known branch
            assert f"{expected.scenario.id} › " in verdict
        assert report.outcome.upper() in verdict
