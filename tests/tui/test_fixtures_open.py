"""``osdoctor open`` shows, for every fixture log, what ``osdoctor explain`` says,
and opens a failed run on the exchange that decided it."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console
from textual.widgets import Static

from osdoctor.diagnose import diagnose, parse_path
from osdoctor.render.decisive import decisive_exchange
from osdoctor.tui.widgets.timeline import Timeline
from osdoctor.tui.workers import knowledge
from tests.tui.conftest import steady_app, wait_until
from tests.tui.logs import FIXTURES
from tests.tui.screen import screen_text, settle

pytestmark = pytest.mark.anyio

#: Every fixture of one command (a lab session of several opens on its list of
#: runs, as tests/tui/test_runs.py checks).
LOGS = sorted(
    log
    for log in FIXTURES.glob("*.log")
    if "\nthen:" not in log.with_name(log.name[:-4] + ".expected.yaml").read_text()
)


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
        elif expected.scenario is not None:  # a documented command, no known branch
            assert f"{expected.scenario.id} › " in verdict
        assert report.outcome.upper() in verdict
        decisive = decisive_exchange(expected)
        timeline = app.main.query_one(Timeline)
        await settle(pilot)
        text = screen_text(app)
        if decisive is None:
            assert timeline.cursor == max(0, timeline.row_count - 1)
            return
        row = timeline.builder.row_of(decisive.index)
        assert timeline.cursor == row
        shown = timeline.builder.rows[row]
        assert shown.first.index <= decisive.index <= shown.last.index
        # the exchange pane, under the timeline at this width, shows that request
        # (a redirect hop's row shows where it led)
        assert f"row {row + 1} {decisive.request.method}" in text
        assert f"request {shown.shown.index + 1} · service" in text
