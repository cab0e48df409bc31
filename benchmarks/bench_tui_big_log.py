"""Benchmark: a log of 50,000 distinct exchanges in the TUI.

The figures ``tests/tui/test_big_log.py`` used to bound, printed instead (a
timing goal is not a test): from creating the app to the timeline's first
rows, to the whole log read, the cost of one page-down key, of ``end``, and
of a search typed into the log pane. The log is made from a real client
log's exchanges, as the test makes it.

    python benchmarks/bench_tui_big_log.py [--exchanges 50000] [--screen 160x50]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


async def measure(log: Path, size: tuple[int, int]) -> None:
    from osdoctor.tui.widgets.rawlog import RawLog
    from osdoctor.tui.widgets.timeline import Timeline
    from tests.tui.conftest import steady_app, wait_until

    began = time.perf_counter()
    app = steady_app(log=log)
    async with app.run_test(size=size) as pilot:
        screen = app.main
        timeline = screen.query_one(Timeline)
        await wait_until(pilot, lambda: timeline.row_count > 0, timeout=600)
        first_rows = time.perf_counter() - began
        await wait_until(pilot, lambda: screen.state == "read", timeout=600)
        read_all = time.perf_counter() - began
        timeline.focus()
        await pilot.press("home")
        began = time.perf_counter()
        await pilot.press(*["pagedown"] * 20)
        page = (time.perf_counter() - began) / 20
        began = time.perf_counter()
        await pilot.press("end")
        to_end = time.perf_counter() - began
        await pilot.press("4", "end")
        screen.query_one(RawLog)
        began = time.perf_counter()
        await pilot.press("slash", *"START with", "enter")
        search = time.perf_counter() - began
    print(f"timeline rows:    {timeline.row_count}")
    print(f"first rows:       {first_rows:.2f} s")
    print(f"all read:         {read_all:.2f} s")
    print(f"page down:        {page * 1000:.0f} ms a key")
    print(f"end:              {to_end * 1000:.0f} ms")
    print(f"search:           {search:.2f} s (with typing)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exchanges", type=int, default=50_000)
    parser.add_argument("--screen", default="160x50")
    args = parser.parse_args()
    width, _, height = args.screen.partition("x")
    from tests.tui.logs import make_big_log, make_refused_log

    with tempfile.TemporaryDirectory() as folder:
        refused = make_refused_log(Path(folder) / "refused.log")
        log = make_big_log(refused, args.exchanges, Path(folder) / "big.log")
        print(f"log: {args.exchanges} exchanges, {log.stat().st_size / 1e6:.1f} MB")
        asyncio.run(measure(log, (int(width), int(height))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
