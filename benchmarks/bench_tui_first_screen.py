"""Benchmark: the TUI's first screen of a big log of many runs.

``osdoctor open LOG`` on a log that concatenates thousands of real client
runs (``bench_explain.build_log``, mix ``runs``: nothing repeats) opens on
the list of its runs. This prints, in one process, driven by Textual's
``App.run_test()`` pilot:

- how long importing the TUI takes (``osdoctor.tui.app``), for reference;
- the time from creating the app until the run list shows its first row on
  the screen (the goal: under 1 s on 200 MB), wall and CPU (the process's:
  this machine is shared), and what that screen says;
- how long a key takes to move the list's cursor while the runs are read;
- with ``--full``, the time until every run is read and diagnosed.

Prints figures, asserts nothing (timing goals are not tests).

    python benchmarks/bench_tui_first_screen.py [--size 200] [--log FILE]
                                                [--screen 160x45] [--full]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for folder in (ROOT, ROOT / "benchmarks"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from bench_explain import build_log  # noqa: E402


async def first_screen(log: Path, size: tuple[int, int], full: bool) -> None:
    from textual import events
    from textual.widgets import OptionList

    from osdoctor.tui.app import OsdoctorApp
    from osdoctor.tui.screens.runs_list import RunsScreen
    from tests.tui.screen import screen_text

    began, cpu_began = time.perf_counter(), time.process_time()
    app = OsdoctorApp(log=log)
    app.animation_level = "none"
    async with app.run_test(size=size) as pilot:
        shown = None
        while shown is None:
            await pilot.pause(0.005)
            screen = app.screen
            if isinstance(screen, RunsScreen) and screen.query_one(OptionList).option_count:
                text = screen_text(app)
                if "lines 1-" in text:
                    shown = time.perf_counter() - began
                    cpu = time.process_time() - cpu_began
        print(f"first row of the run list on screen: {shown:.2f} s wall, {cpu:.2f} s CPU")
        print("the screen then:")
        print("\n".join("    " + line.rstrip() for line in text.splitlines()[:12]))
        options = app.screen.query_one(OptionList)
        await pilot.pause(0.5)  # rows coming in
        keys = 10
        pressed = time.perf_counter()
        for _ in range(keys):
            # as a terminal sends it: pilot.press() would wait for the process
            # to be idle, which it is not while the runs are read
            before = options.highlighted
            app.post_message(events.Key("down", None))
            while options.highlighted == before:
                await asyncio.sleep(0.001)
        each = (time.perf_counter() - pressed) / keys
        print(f"while reading, a key (down) moves the cursor in {each * 1000:.0f} ms")
        if full:
            runs = app.run_list
            while runs is None or runs.done is None:
                await pilot.pause(0.5)
                runs = app.run_list
            done, cpu = time.perf_counter() - began, time.process_time() - cpu_began
            print(
                f"every run read and diagnosed: {done:.1f} s wall, {cpu:.1f} s CPU "
                f"({runs.runs} runs, {runs.runs / done:.0f} runs/s)"
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=200, help="MB of log to build")
    parser.add_argument("--log", type=Path, help="use this log instead of building one")
    parser.add_argument("--screen", default="160x45", help="terminal size, COLSxROWS")
    parser.add_argument("--full", action="store_true", help="also time reading every run")
    args = parser.parse_args()
    width, height = (int(n) for n in args.screen.split("x"))
    with tempfile.TemporaryDirectory(prefix="osdoctor-bench-") as folder:
        log = args.log
        if log is None:
            log = Path(folder) / f"runs-{args.size}.log"
            build_log(log, args.size, "runs")
        print(f"log: {log} ({log.stat().st_size / 1e6:.0f} MB), screen {width}x{height}")
        began = time.perf_counter()
        import osdoctor.tui.app  # noqa: F401

        print(f"import osdoctor.tui.app: {time.perf_counter() - began:.2f} s")
        asyncio.run(first_screen(log, (width, height), args.full))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
