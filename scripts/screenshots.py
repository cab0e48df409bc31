"""Regenerate screenshots/*.svg: the TUI on a real client log.

    PYTHONPATH=. .venv/bin/python scripts/screenshots.py [OUT_DIR]

The log is a committed fixture (tests/fixtures/logs) when one of PREFERRED
exists, otherwise the real ``openstack`` client's output against a closed
port on 127.0.0.1, made on the spot. A run is replayed through the same
``LiveSource`` the run worker uses, with fixed times, so that the pictures
change only when the screen does (tests/tui/test_screenshots.py checks that).
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from osdoctor.diagnose import parse_path  # noqa: E402
from osdoctor.run.runner import OutputLine, Run, RunResult  # noqa: E402
from osdoctor.tui.app import OsdoctorApp  # noqa: E402
from osdoctor.tui.widgets.timeline import Timeline  # noqa: E402
from osdoctor.tui.worker_messages import RunFinished, RunStarted  # noqa: E402
from osdoctor.tui.workers import LiveSource, knowledge  # noqa: E402
from tests.tui.screen import settle  # noqa: E402

#: The sizes people use: a default terminal, a laptop's half screen, a wide one.
SIZES = ((80, 24), (120, 36), (160, 45))
#: Pictures taken at every size; then those taken at one size only (after "failing-run").
EVERY_SIZE = ("live-run", "failing-run")
ONE_SIZE = {(80, 24): ("exchange", "2"), (120, 36): ("scenario", "3")}
#: Committed fixture logs to show, best first (a failing run with findings):
#: a stack delete --wait that exits 1 although the stack IS deleted.
PREFERRED: tuple[str, ...] = ("heat.stack-delete.gone-but-error.log",)
#: Seconds between replayed lines, and where the "in progress" picture is taken.
LINE_GAP = 0.012
IN_PROGRESS = 0.6
STARTED = datetime(2026, 11, 1, 12, 0, 0, tzinfo=UTC)


def choose_log(workdir: Path) -> Path:
    for name in PREFERRED:
        candidate = ROOT / "tests" / "fixtures" / "logs" / name
        if candidate.exists():
            return candidate
    sys.path.insert(0, str(ROOT))
    from tests.tui.logs import make_refused_log

    return make_refused_log(workdir / "refused.log")


def _argv(log: Path) -> list[str]:
    command = parse_path(log).command or "openstack"
    words = command.split()
    return [words[0], "--debug", *words[1:]]


def names() -> list[str]:
    """The files ``build`` writes, sorted."""
    every = [f"{shot}-{w}x{h}.svg" for shot in EVERY_SIZE for w, h in SIZES]
    return sorted(every + [f"{shot}-{w}x{h}.svg" for (w, h), (shot, _key) in ONE_SIZE.items()])


async def _shoot(log: Path, out_dir: Path, size: tuple[int, int]) -> list[Path]:
    lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    argv = _argv(log)
    outputs = [OutputLine(i * LINE_GAP, 2, text) for i, text in enumerate(lines)]
    cut = max(1, int(len(outputs) * IN_PROGRESS))
    kb = knowledge()
    app = OsdoctorApp(command=None, clock=lambda: 100.0)
    app.main.initial_command = None
    written: list[Path] = []
    suffix = f"-{size[0]}x{size[1]}.svg"

    app.animation_level = "none"  # the tab underline must not be caught mid-slide

    async def save(shot: str) -> None:
        await settle(pilot)
        path = out_dir / (shot + suffix)
        path.write_text(
            app.export_screenshot(title=f"osdoctor: {shot} at {size[0]}x{size[1]}"),
            encoding="utf-8",
        )
        written.append(path)

    async with app.run_test(size=size) as pilot:
        screen = app.main
        screen.state = "starting"
        source = LiveSource(argv, "replay", STARTED)
        screen.post_message(source.opened(" ".join(argv)))
        screen.post_message(RunStarted(Run(argv), argv))
        await pilot.pause()
        screen.started = 100.0 - outputs[cut - 1].time
        source.feed(outputs[:cut])
        screen.post_message(source.progress())
        screen.post_message(source.report(kb))
        await pilot.pause()
        screen.query_one(Timeline).focus()
        await pilot.pause()
        await save("live-run")

        source.feed(outputs[cut:])
        duration = round(len(outputs) * LINE_GAP, 3)
        result = RunResult(tuple(argv), 1, None, duration, False)
        final = source.finish(result, kb)
        screen.post_message(source.progress())
        screen.post_message(final)
        screen.post_message(RunFinished(result))
        await pilot.pause()
        await pilot.press("1")
        await pilot.wait_for_scheduled_animations()
        await save("failing-run")

        if size in ONE_SIZE:
            shot, key = ONE_SIZE[size]
            await pilot.press(key)
            await pilot.wait_for_scheduled_animations()
            await save(shot)
    return written


def build(out_dir: Path, log: Path | None = None) -> list[Path]:
    """Write the screenshots into ``out_dir``; returns their paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        chosen = log if log is not None else choose_log(Path(work))
        return [path for size in SIZES for path in asyncio.run(_shoot(chosen, out_dir, size))]


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "screenshots"
    for written in build(target):
        print(written)
