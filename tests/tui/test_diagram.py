"""The scenario drawing marks every step of the run's path, whatever its state."""

from __future__ import annotations

from pathlib import Path

import pytest

from osdoctor.diagnose import diagnose, parse_path
from osdoctor.kb.loader import KnowledgeBase, load_knowledge
from osdoctor.model import StepState
from osdoctor.tui.diagram import MARK, draw
from tests.helpers.explained import report_of

LOGS = Path(__file__).resolve().parents[1] / "fixtures" / "logs"
FIXTURES = sorted(p.name.removesuffix(".log") for p in LOGS.glob("*.log"))


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return load_knowledge(user=False)


def test_every_state_has_a_mark() -> None:
    assert set(MARK) == set(StepState)


@pytest.mark.parametrize("name", FIXTURES)
def test_each_step_of_the_path_is_marked(name: str, kb: KnowledgeBase) -> None:
    report = report_of(LOGS / f"{name}.log")
    match = report.scenario
    if match is None:
        return
    rows = draw(kb.scenarios[match.id], match).plain.splitlines()
    marked = [
        r
        for r in rows
        if r.startswith(tuple(word for word, _style in MARK.values()))
        and not r.startswith("✗ diverged:")
    ]
    assert [r.split("  ")[0] for r in marked] == [MARK[s.state][0] for s in match.steps]


def test_a_step_no_debug_log_can_show_is_marked_so(kb: KnowledgeBase) -> None:
    report = diagnose(parse_path(LOGS / "heat.stack-hook.poll-pending.log"), kb)
    assert report.scenario is not None
    rows = draw(kb.scenarios["heat.stack-hook"], report.scenario).plain.splitlines()
    (pending,) = [r for r in rows if "pending resources" in r]
    assert pending.startswith("○ not logged")


@pytest.mark.anyio
async def test_the_screen_marks_a_step_no_debug_log_can_show() -> None:
    """What the user sees: the scenario pane puts the "not logged" mark on the
    step the poll leaves no trace of, beside the steps it saw."""
    from tests.tui.conftest import steady_app, wait_until
    from tests.tui.screen import screen_text, settle

    app = steady_app(log=LOGS / "heat.stack-hook.poll-pending.log")
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_until(pilot, lambda: app.main.state == "read")
        await pilot.press("3")
        await settle(pilot)
        rows = screen_text(app).splitlines()
    (pending,) = [r for r in rows if "pending resources" in r]
    assert "○ not logged" in pending
    assert any("✓ seen" in r for r in rows)
    assert any("○ a step a debug log cannot show" in r for r in rows)  # the legend says so
