"""``osdoctor open`` shows, for every fixture log, what ``osdoctor explain`` says,
and opens a failed run on the exchange that decided it.

For every fixture, without a screen: the TUI's own reader (``workers.load_log``,
as the app's worker runs it) gives explain's report; the verdict line names the
outcome, scenario and branch; ``opening_row`` (pure, from ``render.rows``) picks
the row that holds the decisive exchange, else the last; and that row's detail
names the request. Then a real pilot opens each log of a representative set (one
of every kind of opening) and the screen must show all of it.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from textual.message import Message
from textual.widgets import Static

from osdoctor.model import Report
from osdoctor.render.decisive_exchange import decisive_exchange
from osdoctor.render.rows import RowBuilder, opening_row
from osdoctor.tui.widgets.detail import describe
from osdoctor.tui.widgets.diagnosis import verdict
from osdoctor.tui.widgets.timeline import Timeline
from osdoctor.tui.worker_messages import ReportReady, RunsOpened, SourceFailed
from osdoctor.tui.workers import knowledge, load_log
from tests.helpers.explained import trace_of
from tests.tui.conftest import steady_app, wait_until
from tests.tui.logs import FIXTURES
from tests.tui.screen import screen_text, settle

#: Every fixture of one command (a lab session of several opens on its list of
#: runs, as tests/tui/test_runs.py checks).
LOGS = sorted(
    log
    for log in FIXTURES.glob("*.log")
    if "\nthen:" not in log.with_name(log.name[:-4] + ".expected.yaml").read_text()
)


def plain(renderable: Any) -> str:
    console = Console(width=400, record=True, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def explained(log: Path) -> Report:
    """explain's report, with the knowledge the TUI loads."""
    from osdoctor.diagnose import diagnose

    return diagnose(trace_of(log), knowledge())


def read_as_the_tui_does(log: Path) -> ReportReady:
    """The final report of the app's log reader, run on this thread with no screen."""
    posted: list[Message] = []
    load_log(log, posted.append, lambda: False)
    assert not [m for m in posted if isinstance(m, SourceFailed | RunsOpened)], log.name
    (final,) = [m for m in posted if isinstance(m, ReportReady) and m.final]
    return final


def rows(report: Report) -> RowBuilder:
    builder = RowBuilder()
    builder.update(report.trace.exchanges)
    return builder


def check_verdict(text: str, expected: Report) -> None:
    if expected.scenario is not None and expected.scenario.branch is not None:
        assert f"{expected.scenario.id} › {expected.scenario.branch}" in text
    elif expected.scenario is not None:  # a documented command, no known branch
        assert f"{expected.scenario.id} › " in text
    assert expected.outcome.upper() in text


@pytest.mark.parametrize("log", LOGS, ids=[p.stem for p in LOGS])
def test_the_tui_reads_each_fixture_as_explain_does_and_opens_on_its_decisive_row(
    log: Path,
) -> None:
    expected = explained(log)
    ready = read_as_the_tui_does(log)
    report = ready.report
    assert report.outcome == expected.outcome
    assert [f.id for f in report.findings] == [f.id for f in expected.findings]
    check_verdict(plain(verdict(report, True)), expected)
    decisive = decisive_exchange(expected)
    assert ready.decisive == (decisive.index if decisive is not None else None)
    builder = rows(report)
    row = opening_row(builder, ready.decisive)
    if decisive is None:
        assert row == max(0, len(builder.rows) - 1)
        return
    shown = builder.rows[row]
    assert shown.first.index <= decisive.index <= shown.last.index
    # the row's detail shows that request (a redirect hop's row shows where it led)
    detail = plain(describe(shown, None, row))
    assert f"row {row + 1} {decisive.request.method}" in detail
    assert f"request {shown.shown.index + 1} · service" in detail


def kind_of_opening(log: Path) -> tuple[Any, ...]:
    """What makes one opening unlike another: the outcome, whether a decisive
    exchange exists, and if so whether its row is a redirect or a fold of repeats,
    and whether a scenario and branch are named."""
    report = explained(log)
    decisive = decisive_exchange(report)
    builder = rows(report)
    shown = builder.rows[opening_row(builder, decisive.index)] if decisive else None
    return (
        report.outcome,
        decisive is not None,
        shown is not None and shown.redirect is not None,
        shown is not None and shown.count > 1,
        report.scenario is not None,
        report.scenario is not None and report.scenario.branch is not None,
    )


def representative(logs: list[Path]) -> list[Path]:
    """The first log of each kind of opening."""
    firsts: dict[tuple[Any, ...], Path] = {}
    for log in logs:
        firsts.setdefault(kind_of_opening(log), log)
    return sorted(firsts.values())


REPRESENTATIVE = representative(LOGS)


def test_the_representative_set_has_every_kind_of_opening() -> None:
    kinds = {kind_of_opening(log) for log in REPRESENTATIVE}
    assert kinds == {kind_of_opening(log) for log in LOGS}
    assert {k[1] for k in kinds} == {True, False}  # a decisive exchange, and none
    assert any(k[2] for k in kinds) and any(k[3] for k in kinds)  # a redirect, a fold
    assert len(REPRESENTATIVE) < len(LOGS) / 4


@pytest.mark.anyio
@pytest.mark.parametrize("log", REPRESENTATIVE, ids=[p.stem for p in REPRESENTATIVE])
async def test_open_shows_the_scenario_branch_and_findings(log: Path) -> None:
    expected = explained(log)
    app = steady_app(log=log)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_until(pilot, lambda: app.main.state == "read")
        report = app.main.report
        assert report is not None
        assert report.outcome == expected.outcome
        assert [f.id for f in report.findings] == [f.id for f in expected.findings]
        check_verdict(plain(app.main.query_one("#verdict", Static).content), expected)
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
