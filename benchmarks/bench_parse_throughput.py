"""Benchmark: the figures of "explain at line-scan speed", in one run.

Each is printed as a ratio to what it is measured against, with its goal
(timing goals are not tests, so nothing is asserted):

- a log of ``--size`` MB (200 by default) made by concatenating every real
  fixture again and again (no polling round, so no fast path): ``explain`` in
  text and in JSON against a plain Python loop that reads the same file and
  tests each line with ``startswith`` (goals: at most 12 and 15 times the loop);
- a log of the same size of long waits (polling rounds): explain in text
  against the loop (goal: at most 1.5 times);
- the parser alone on the first log, in this process (one trace, no diagnosis
  of its runs), which is what the line loop compares with most closely;
- ``lnav`` on the first file, when it is installed, for comparison;
- peak RSS of explain on the concatenation at 1/4, 1 and 2 times the size
  (50, 200 and 400 MB by default; goal: at most 100 MB, flat);
- explain of a small fixture, best of 10 wall times (goal: 0.12 s), against
  ``openstack --version`` (when the lab extra is installed) and ``python -c pass``;
- ``explain --jobs 2`` on 200 fixture logs against ``--jobs 1`` (goal: at
  least 1.7 times faster), with the CPUs this process may use.

    python benchmarks/bench_parse_throughput.py [--size 200] [--repeat 2] [--keep DIR]

``--size 20 --repeat 1`` gives a quick run of a few minutes. On a machine
others use at the same time every figure is slower, and the ratios noisier:
say so beside them.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_explain import (  # noqa: E402
    LOGS,
    SMALL,
    baseline,
    build_log,
    env_for_osdoctor,
    warm_up,
)

REPEAT = 2


def measured(argv: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds of it and the children it waited for, peak RSS in
    KiB) of a child process. On a machine others use, the CPU time says what the
    wall time would be on an idle one (for one process: not for --jobs)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _pid, _status, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def explain(log: Path, fmt: str, env: dict[str, str]) -> tuple[float, float, int]:
    """(best wall time, best CPU time, peak RSS in KiB) of ``REPEAT`` explains."""
    argv = [sys.executable, "-m", "osdoctor", "explain", str(log), "--format", fmt]
    runs = [measured(argv, env) for _ in range(REPEAT)]
    return min(r[0] for r in runs), min(r[1] for r in runs), max(r[2] for r in runs)


def best_time(argv: list[str], env: dict[str, str], runs: int) -> tuple[float, float]:
    """The best of ``runs`` wall times, and of their CPU times."""
    done = [measured(argv, env) for _ in range(runs)]
    return min(d[0] for d in done), min(d[1] for d in done)


def loop_times(path: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of the plain line loop, best of two."""
    walls, cpus = [], []
    for _ in range(2):
        cpu = time.process_time()
        walls.append(baseline(path))
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus)


def ratios(secs: float, cpu: float, loop: tuple[float, float]) -> str:
    return f"{secs / loop[0]:6.1f} x the loop (CPU time: {cpu / loop[1]:5.1f} x)"


def many_logs(env: dict[str, str]) -> None:
    """``--jobs 2`` against ``--jobs 1`` on 200 real logs, one call each."""
    logs = sorted(str(p) for p in LOGS.glob("*.log"))[:200]
    base = [sys.executable, "-m", "osdoctor", "explain", "--format", "jsonl", *logs]
    one, one_cpu = best_time([*base, "--jobs", "1"], env, REPEAT)
    two, two_cpu = best_time([*base, "--jobs", "2"], env, REPEAT)
    print(
        f"{len(logs)} logs: --jobs 1 {one:6.2f} s ({one_cpu:5.2f} s CPU), --jobs 2 {two:6.2f} s "
        f"({two_cpu:5.2f} s CPU in all) = {one / two:4.2f} x faster (goal 1.7; "
        f"{len(os.sched_getaffinity(0))} CPUs here)"
    )


def start_up(env: dict[str, str]) -> None:
    t_explain, c_explain = best_time(
        [sys.executable, "-m", "osdoctor", "explain", str(SMALL)], env, 10
    )
    t_python, _ = best_time([sys.executable, "-c", "pass"], env, 10)
    line = (
        f"start-up: explain of {SMALL.name} {t_explain * 1000:5.0f} ms wall, "
        f"{c_explain * 1000:5.0f} ms CPU, best of 10 (goal 120), "
        f"python -c pass {t_python * 1000:5.0f} ms"
    )
    openstack = Path(sys.executable).parent / "openstack"
    if openstack.exists():
        t_osc, _ = best_time([str(openstack), "--version"], env, 5)
        line += f", openstack --version {t_osc * 1000:5.0f} ms (ratio {t_explain / t_osc:4.2f})"
    print(line)


def parse_only(log: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of the parser alone, in this process."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from osdoctor.diagnose import parse_path

    start, cpu = time.perf_counter(), time.process_time()
    parse_path(log)
    return time.perf_counter() - start, time.process_time() - cpu


def lnav_time(log: Path) -> float | None:
    lnav = shutil.which("lnav")
    if lnav is None:
        return None
    start = time.perf_counter()
    subprocess.run(
        [lnav, "-n", "-c", ";SELECT count(*) FROM all_logs", str(log)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    return time.perf_counter() - start


def built(folder: Path, size: int, mix: str) -> Path:
    log = folder / f"{mix}-{size}mb.log"
    if not log.exists():
        build_log(log, size, mix)
    return log


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size", type=int, default=200, help="the main logs' size in MB")
    parser.add_argument("--keep", help="keep the generated logs in this folder")
    parser.add_argument("--no-rss", action="store_true", help="skip the peak RSS series")
    parser.add_argument("--repeat", type=int, default=2, help="runs of each big explain")
    args = parser.parse_args()
    global REPEAT
    REPEAT = max(1, args.repeat)
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="osdoctor-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    env = env_for_osdoctor()
    warm_up(env)
    print(
        f"python {sys.version.split()[0]}, {len(os.sched_getaffinity(0))} CPUs, "
        f"load average {os.getloadavg()[0]:.1f} at the start"
    )
    try:
        runs = built(folder, args.size, "runs")
        mb = runs.stat().st_size / 1e6
        loop = loop_times(runs)
        print(f"concatenated real runs, {mb:.1f} MB: line loop {loop[0]:6.2f} s")
        for fmt, goal in (("text", 12), ("json", 15)):
            secs, cpu, rss = explain(runs, fmt, env)
            print(
                f"  explain {fmt:4}  {secs:6.2f} s = {mb / secs:6.1f} MB/s  "
                f"{ratios(secs, cpu, loop)} (goal {goal})  peak RSS {rss / 1024:6.1f} MiB"
            )
        secs, cpu = min(parse_only(runs) for _ in range(REPEAT))
        print(
            f"  parser alone  {secs:6.2f} s = {mb / secs:6.1f} MB/s  "
            f"{ratios(secs, cpu, loop)} (in this process: one trace, no diagnosis)"
        )
        lnav = lnav_time(runs)
        print(f"  lnav           {lnav:6.2f} s" if lnav is not None else "  lnav: not installed")
        waits = built(folder, args.size, "waits")
        mb = waits.stat().st_size / 1e6
        loop = loop_times(waits)
        secs, cpu, rss = explain(waits, "text", env)
        print(
            f"long waits, {mb:.1f} MB: line loop {loop[0]:6.2f} s\n"
            f"  explain text  {secs:6.2f} s = {mb / secs:6.1f} MB/s  "
            f"{ratios(secs, cpu, loop)} (goal 1.5)  peak RSS {rss / 1024:6.1f} MiB"
        )
        if not args.no_rss:
            for size in (args.size // 4, args.size * 2):
                log = built(folder, size, "runs")
                secs, _cpu, rss = explain(log, "text", env)
                print(
                    f"concatenated real runs, {log.stat().st_size / 1e6:6.1f} MB: "
                    f"explain text {secs:6.2f} s  peak RSS {rss / 1024:6.1f} MiB"
                )
                log.unlink()
        start_up(env)
        many_logs(env)
        print(f"load average {os.getloadavg()[0]:.1f} at the end")
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
