"""Benchmark: what the services table (``knowledge/services.yaml``) costs at start-up.

Prints figures, asserts nothing (timing goals are not tests). Each figure is the
median over fresh processes, in which what ``osdoctor explain`` has imported by
the time it first needs the table (``typing``, ``json``, ``osdoctor.paths``) is
imported first, so that only the table's own cost is counted:

- importing ``osdoctor.servicetable``;
- ``table()`` with the parsed file in the cache folder (every start after the first);
- ``table()`` with no cache (the first start after an edit: PyYAML is imported);
- importing ``osdoctor.faultwords`` and ``words()``, the fault shapes and status words
  built from the same parsed file (cached runs).

    .venv/bin/python benchmarks/bench_service_table.py [--runs 20]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

_CODE = r"""
import json, re, typing, zlib, functools, time
import osdoctor.paths
t0 = time.perf_counter()
import osdoctor.servicetable as s
t1 = time.perf_counter()
s.table()
t2 = time.perf_counter()
import osdoctor.faultwords as f
t3 = time.perf_counter()
f.words()
t4 = time.perf_counter()
print((t1 - t0) * 1e3, (t2 - t1) * 1e3, (t3 - t2) * 1e3, (t4 - t3) * 1e3)
"""


def _runs(count: int, home: str, cold: bool) -> list[tuple[float, ...]]:
    out = []
    env = dict(os.environ, OSDOCTOR_HOME=home)
    for _ in range(count):
        if cold:
            for name in os.listdir(os.path.join(home, "cache")):
                if name.startswith("services-"):
                    os.unlink(os.path.join(home, "cache", name))
        text = subprocess.run(
            [sys.executable, "-c", _CODE], env=env, capture_output=True, text=True, check=True
        ).stdout.split()
        out.append(tuple(float(t) for t in text))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        os.makedirs(os.path.join(home, "cache"), mode=0o700)
        warm = _runs(args.runs, home, cold=False)
        cold = _runs(args.runs, home, cold=True)
    print(f"import servicetable      median {statistics.median(r[0] for r in warm):6.2f} ms")
    print(f"table(), cached          median {statistics.median(r[1] for r in warm):6.2f} ms")
    print(f"table(), parsing YAML    median {statistics.median(r[1] for r in cold):6.2f} ms")
    print(f"import faultwords        median {statistics.median(r[2] for r in warm):6.2f} ms")
    print(f"words(), cached          median {statistics.median(r[3] for r in warm):6.2f} ms")


if __name__ == "__main__":
    main()
