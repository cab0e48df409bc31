"""Benchmark: reading logs that a terminal or a ticket folded or cut.

Prints figures, asserts nothing (timing goals are not tests):

- an access log whose lines all have one length (the worst case of a
  fixed-width wrap) of 1,000, 2,000 and 4,000 lines: parse time, through the
  path ``osdoctor explain`` takes and through the line-by-line parser;
- real fixtures folded at 80, 100, 132 and 200 columns and cut at 200
  characters: parse-and-diagnose time, and whether the verdict (scenario,
  branch, findings) is that of the fixture as captured.

It uses only ``parse_stream``, ``Parser`` and ``diagnose``, so that it runs
against an older checkout too (``PYTHONPATH=<checkout> python
benchmarks/bench_wraps.py``) for before/after figures.

    python benchmarks/bench_wraps.py [--fixtures NAME,NAME]
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from osdoctor.diagnose import diagnose, parse_stream  # noqa: E402 - after the path is set
from osdoctor.intake import parsed_lines  # noqa: E402 - after the path is set
from osdoctor.kb.loader import load_knowledge  # noqa: E402 - after the path is set
from osdoctor.parse.lines import read_lines  # noqa: E402 - after the path is set
from osdoctor.parse.wraps import Widths  # noqa: E402 - after the path is set
from tests.helpers.pastes import cut, fold, one_length_log  # noqa: E402 - after the path is set

LOGS = ROOT / "tests" / "fixtures" / "logs"
DEFAULT = "osc.server-create.error,heat.stack-update.redirect-missing,osc.find-by-name.not-found"


def timed(func: object, *args: object) -> tuple[float, object]:
    began = time.perf_counter()
    result = func(*args)  # type: ignore[operator]
    return time.perf_counter() - began, result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fixtures", default=DEFAULT)
    args = ap.parse_args()
    print("one-length access log   explain path   line path")
    for lines in (1000, 2000, 4000):
        data = one_length_log(lines)
        a, _ = timed(lambda d: parse_stream(io.BytesIO(d), "nginx.log"), data)
        b, _ = timed(lambda d: parsed_lines(read_lines(io.BytesIO(d)), "nginx.log", Widths()), data)
        print(f"{lines:>7} lines          {a:9.3f} s   {b:9.3f} s")
    kb = load_knowledge(user=False)

    def verdict(text: str) -> tuple[object, ...]:
        report = diagnose(parse_stream(io.BytesIO(text.encode()), "pasted.log"), kb)
        s = report.scenario
        return (s.id if s else None, s.branch if s else None, [f.id for f in report.findings])

    print("\nfixture                                   variant    time    verdict")
    for name in args.fixtures.split(","):
        text = (LOGS / f"{name}.log").read_text(encoding="utf-8")
        base_time, expected = timed(verdict, text)
        print(f"{name:<42}{'as is':<9}{base_time:6.2f} s  {expected}")
        variants = [(f"fold {w}", fold(text, w)) for w in (80, 100, 132, 200)]
        variants.append(("cut 200", cut(text, 200)))
        for label, variant in variants:
            spent, got = timed(verdict, variant)
            print(f"{'':<42}{label:<9}{spent:6.2f} s  {'same' if got == expected else got}")


if __name__ == "__main__":
    main()
