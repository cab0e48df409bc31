"""A 50,000-exchange log opens at once and scrolls without lag.

The log repeats a real client log's exchanges (made at test time, never
committed). The parser keeps the first and the last exchanges of so long a
log and counts the ones between (a memory bound): the timeline shows every
kept one, and says on the row before the gap how many were not kept. How
fast it opens and scrolls is a benchmark's (benchmarks/bench_tui_big_log.py),
never a bound here: a loaded machine must not fail it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from osdoctor.parse.parser import KEEP_FIRST, KEEP_LAST
from osdoctor.render.common import row_count
from osdoctor.tui.widgets.rawlog import RawLog
from osdoctor.tui.widgets.timeline import Timeline
from tests.tui.conftest import steady_app, wait_until
from tests.tui.logs import make_big_log

pytestmark = pytest.mark.anyio

EXCHANGES = 50_000


@pytest.fixture(scope="module")
def big_log(refused_log: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_big_log(refused_log, EXCHANGES, tmp_path_factory.mktemp("big") / "big.log")


async def test_fifty_thousand_exchanges_open_and_scroll(big_log: Path) -> None:
    app = steady_app(log=big_log)
    async with app.run_test(size=(160, 50)) as pilot:
        screen = app.main
        timeline = screen.query_one(Timeline)
        await wait_until(pilot, lambda: timeline.row_count > 0, timeout=600)
        await wait_until(pilot, lambda: screen.state == "read", timeout=600)
        assert screen.trace is not None
        kept = screen.trace.exchanges
        assert timeline.row_count == len(kept) <= KEEP_FIRST + KEEP_LAST + 1000
        gap = timeline.builder.rows[KEEP_FIRST - 1]
        assert len(kept) + gap.not_kept == EXCHANGES
        assert f"then {gap.not_kept:,} requests not kept" in row_count(gap)
        timeline.focus()
        await pilot.press("home")  # it opened on the failing request, at the end
        await pilot.press(*["pagedown"] * 20)
        page = timeline.scrollable_content_region.height - 1
        assert timeline.cursor == 20 * page
        await pilot.press("end")
        assert timeline.cursor == len(kept) - 1
        assert timeline.scroll_offset.y > len(kept) - 60
        await pilot.press("4", "end")
        log = screen.query_one(RawLog)
        assert log.number_at(log.cursor) == len(big_log.read_bytes().splitlines())
        await pilot.press("slash", *"START with", "enter")
        assert log.number_at(log.cursor) == 1  # wrapped around to the top
