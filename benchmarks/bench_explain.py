"""Benchmark: osdoctor explain on large logs built from real fixtures.

Prints figures, asserts nothing (timing goals are not tests):

- explain end to end on logs of about 50, 200 and 400 MB: MB/s and peak RSS;
- the floor: a plain Python loop reading the same file line by line with
  ``startswith("REQ: ")``, and the ratio of the two;
- start-up: explain on a small fixture against ``openstack --version``;
- optionally (--tui) the time until the TUI's first screen for the 200 MB log.

The big logs repeat the polling round of a real ``stack create --wait`` log
(the events poll with its redirect, bodies and request ids), as a long wait
does, with a whole other real run inserted every 2,000 rounds.

    python benchmarks/bench_explain.py [--sizes 50,200,400] [--keep DIR] [--tui]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOGS = ROOT / "tests" / "fixtures" / "logs"
POLL_SOURCE = "heat.stack-create.create-complete"


def build_log(path: Path, megabytes: int) -> None:
    """A real ``stack create --wait`` whose polling round repeats, as in a long wait,
    with now and then a whole other real run (retries, 4xx, tracebacks)."""
    lines = (LOGS / f"{POLL_SOURCE}.log").read_bytes().splitlines(keepends=True)
    polls = [i for i, line in enumerate(lines)
             if line.startswith(b"REQ: curl") and b"/events" in line]
    head, middle, tail = lines[: polls[0]], lines[polls[0] : polls[1]], lines[polls[1] :]
    others = [p.read_bytes() for p in sorted(LOGS.glob("*.log")) if POLL_SOURCE not in p.name]
    block = b"".join(middle)
    target = megabytes * 1024 * 1024
    with path.open("wb") as out:
        out.writelines(head)
        written = 0
        n = 0
        while written < target:
            out.write(block)
            written += len(block)
            n += 1
            if others and n % 2000 == 0:
                extra = others[(n // 2000) % len(others)]
                out.write(extra)
                written += len(extra)
        out.writelines(tail)


def baseline(path: Path) -> float:
    start = time.perf_counter()
    count = 0
    with path.open(encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("REQ: "):
                count += 1
    return time.perf_counter() - start


def run_measured(argv: list[str], env: dict[str, str]) -> tuple[float, int, int]:
    """(seconds, peak RSS in KiB, exit status) of a child process."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _pid, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return elapsed, usage.ru_maxrss, proc.returncode


def env_for_osdoctor() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("OSDOCTOR_HOME", tempfile.mkdtemp(prefix="osdoctor-bench-home-"))
    return env


def median_time(argv: list[str], env: dict[str, str], runs: int = 7) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="50,200,400", help="log sizes in MB")
    parser.add_argument("--keep", help="keep the generated logs in this folder")
    parser.add_argument("--format", default="json", choices=("text", "json", "markdown"))
    parser.add_argument("--tui", action="store_true", help="also time the TUI's first screen")
    args = parser.parse_args()
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="osdoctor-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    env = env_for_osdoctor()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus")
    try:
        for size in [int(s) for s in args.sizes.split(",") if s]:
            log = folder / f"big-{size}mb.log"
            if not log.exists():
                build_log(log, size)
            mb = log.stat().st_size / 1e6
            base = min(baseline(log) for _ in range(2))
            secs, rss, code = run_measured(
                [sys.executable, "-m", "osdoctor", "explain", str(log), "--format", args.format],
                env)
            print(f"{mb:8.1f} MB  explain {secs:6.2f} s = {mb / secs:7.1f} MB/s  "
                  f"peak RSS {rss / 1024:6.1f} MiB  (exit {code})   "
                  f"baseline loop {base:5.2f} s = {mb / base:7.1f} MB/s   "
                  f"ratio {base / secs:5.2f}")
            if args.tui and size == 200:
                tui_first_screen(log, env)
        small = LOGS / "osc.find-by-name.not-found.log"
        t_explain = median_time([sys.executable, "-m", "osdoctor", "explain", str(small)], env)
        print(f"start-up: osdoctor explain on a small fixture {t_explain * 1000:6.0f} ms",
              end="")
        openstack = Path(sys.executable).parent / "openstack"
        if openstack.exists():
            t_osc = median_time([str(openstack), "--version"], env)
            print(f"   openstack --version {t_osc * 1000:6.0f} ms   ratio {t_explain / t_osc:4.2f}")
        else:
            print("   (openstack not installed: install the lab extra to compare)")
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
    return 0


def tui_first_screen(log: Path, env: dict[str, str]) -> None:
    """Seconds from creating the app until the timeline shows its first rows, and
    until the whole log is read and diagnosed."""
    code = (
        "import asyncio, time, sys\n"
        "from pathlib import Path\n"
        "from osdoctor.tui.app import OsdoctorApp\n"
        "from osdoctor.tui.widgets.timeline import Timeline\n"
        "async def main():\n"
        "    start = time.perf_counter()\n"
        "    app = OsdoctorApp(log=Path(sys.argv[1]))\n"
        "    async with app.run_test(size=(160, 50)) as pilot:\n"
        "        first = None\n"
        "        while app.main.state != 'read' or not app.main.final:\n"
        "            if first is None and app.main.query_one(Timeline).row_count:\n"
        "                first = time.perf_counter() - start\n"
        "            await pilot.pause(0.01)\n"
        "        done = time.perf_counter() - start\n"
        "        print(f'{first if first is not None else done:.2f} {done:.2f}')\n"
        "asyncio.run(main())\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, str(log)], capture_output=True, text=True,
                          env=env, timeout=600)
    if proc.returncode == 0:
        first, done = proc.stdout.split()
        print(f"          TUI on this log: first screen with rows {first} s, "
              f"fully read and diagnosed {done} s")
    else:
        print(f"          TUI first screen: could not measure ({proc.stderr.strip()[-300:]})")


if __name__ == "__main__":
    raise SystemExit(main())
