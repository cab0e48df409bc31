"""Benchmark: ``osdoctor explain`` over every fixture log in one call, against
one call per log.

Prints figures, asserts nothing (timing goals are not tests): the wall time of
the separate calls (all of them, or a sample with ``--sample N``, scaled to
all), of the one call, the ratio, and whether the per-log results agree (the
JSON Lines of each log, and each log's exit status folded into the call's).

    python benchmarks/bench_many_logs.py [--sample N] [--logs DIR]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _explain(paths: list[Path]) -> tuple[float, int, list[str]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    began = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "osdoctor", "explain", "--no-user-kb", "--format", "jsonl"]
        + [str(p) for p in paths],
        capture_output=True,
        env=env,
        check=False,
    )
    return time.perf_counter() - began, proc.returncode, proc.stdout.decode().splitlines()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sample", type=int, default=0, help="time N separate calls, scaled")
    parser.add_argument("--logs", default=str(ROOT / "tests" / "fixtures" / "logs"))
    args = parser.parse_args()
    logs = sorted(Path(args.logs).glob("*.log"))
    chosen = logs
    if args.sample and args.sample < len(logs):
        chosen = sorted(random.Random(1).sample(logs, args.sample))
    separate_time = 0.0
    separate_lines: dict[Path, list[str]] = {}
    codes: list[int] = []
    for path in chosen:
        seconds, code, lines = _explain([path])
        separate_time += seconds
        separate_lines[path] = lines
        codes.append(code)
    scaled = separate_time * len(logs) / len(chosen)
    together_time, together_code, together = _explain(logs)
    by_source: dict[str, list[str]] = {}
    for line in together:
        source = line.split('"source": ', 1)[1].split('"', 2)[1]
        by_source.setdefault(source, []).append(line)
    agree = all(by_source.get(str(p)) == separate_lines[p] for p in chosen)
    expected_code = 1 if 1 in codes else (2 if 2 in codes else 0)
    print(f"logs: {len(logs)}, separate calls timed: {len(chosen)}")
    print(f"separate calls: {separate_time:.1f} s for {len(chosen)}, {scaled:.1f} s for all")
    print(f"one call:       {together_time:.1f} s ({len(together)} runs)")
    print(f"speed-up:       {scaled / together_time:.1f}x")
    print(f"same per-log results: {'yes' if agree else 'NO'}")
    if len(chosen) == len(logs):
        print(f"exit status: one call {together_code}, from the separate calls {expected_code}")


if __name__ == "__main__":
    main()
