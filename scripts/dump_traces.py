"""Write a canonical text of what every fixture log parses to, for a refactor of
the parser to be checked against: dump before, change, dump again, ``diff -r``.

Each log under ``tests/fixtures`` is read through each way osdoctor reads a log:

- ``NAME.trace``: ``intake.parse_path``, the whole file at once (``explain``'s);
- ``NAME.tui``: the TUI's stepwise reader (``intake.open_log``), as its loader
  drives it: a first screenful line by line, then blocks, then what is left;
- ``NAME.runs``: the log split into runs (``runs.read_runs``), every run's trace
  and JSON report, and each run read again alone (``runs.parse_run``);
- ``NAME.json``: ``osdoctor explain NAME --format json``'s output, exit status
  and warnings.

A trace is written field by field (every dataclass field, private caches
left out), as sorted JSON: two dumps differ only where what was parsed differs.

    python scripts/dump_traces.py OUT [--only SUBSTRING]
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import json
import os
import sys
import tempfile
from collections import deque
from collections.abc import Iterator, MutableSequence
from enum import Enum
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"


def plain(value: Any) -> Any:
    """``value`` as JSON-ready data: dataclasses by field, containers in order,
    mappings and sets sorted."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            "@": type(value).__name__,
            **{
                f.name: plain(getattr(value, f.name))
                for f in dataclasses.fields(value)
                if not f.name.startswith("_")
            },
        }
    if isinstance(value, Enum):
        return f"{type(value).__name__}.{value.name}"
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (list, tuple, deque)):
        return [plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(plain(v) for v in value)
    if isinstance(value, float):
        return repr(value)
    if value is None or isinstance(value, (str, int, bool)):
        return value
    return repr(value)


def canonical(value: Any) -> str:
    return json.dumps(plain(value), sort_keys=True, indent=1, ensure_ascii=False) + "\n"


class _Index:
    """The line index the TUI's reader fills (``intake.LineIndex``), kept in a list."""

    def __init__(self) -> None:
        self.session = False
        self._offsets: list[int] = []
        self.end = 0

    @property
    def offsets(self) -> MutableSequence[int]:
        return self._offsets

    def add_offset(self, offset: int) -> None:
        self._offsets.append(offset)

    def set_end(self, offset: int) -> None:
        self.end = offset


def tui_trace(path: Path) -> str:
    """The trace as the TUI's loader reads it (``tui.workers.load_log``'s steps)."""
    from osdoctor.intake import open_log

    index = _Index()
    reader = open_log(path, index)
    try:
        reader.read_available(final=True, budget=2000)
        while True:
            if not reader.read_blocks(budget=50000):
                reader.settle()
                if not reader.read_available(final=True, budget=20000):
                    break
        reader.settle()
        trace = reader.parser.finish()
    finally:
        reader.close()
    return (
        canonical(trace)
        + f"lines {reader.number} offsets {len(index.offsets)} {sum(index.offsets)} "
        + f"end {index.end} stdout {reader.stdout}\n"
    )


def runs_text(path: Path) -> str:
    from osdoctor.console import load_kb
    from osdoctor.diagnose import diagnose
    from osdoctor.render.json_report import render_json
    from osdoctor.runs.log_runs import parse_run, read_runs_of_path

    kb = load_kb(None, user=False)
    out: list[str] = []

    def explain(trace: Any) -> Any:
        out.append("== run trace\n" + canonical(trace))
        report = diagnose(trace, kb)
        out.append("== run report\n" + render_json(report) + "\n")
        return report

    result = read_runs_of_path(path, explain, choice="none")
    out.append("== summaries\n" + canonical(result))
    if result.runs > 1:
        for summary in result.summaries:
            again = parse_run(path, summary.first, summary.last, summary)
            out.append(f"== run {summary.index} alone\n" + canonical(again))
    return "".join(out)


def explain_json(relative: str) -> str:
    from osdoctor.cli import main

    said, warned = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(said), contextlib.redirect_stderr(warned):
        code = main(["explain", relative, "--format", "json", "--no-user-kb", "--jobs", "1"])
    return said.getvalue() + f"exit {code}\n" + warned.getvalue()


def logs(only: str | None) -> Iterator[Path]:
    for path in sorted(FIXTURES.rglob("*.log")):
        if only is None or only in str(path):
            yield path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path, help="folder to write to (created)")
    ap.add_argument("--only", help="only the logs whose path holds this")
    args = ap.parse_args()
    out: Path = args.out.resolve()
    os.chdir(ROOT)  # reports name their log as given: relative, the same anywhere
    os.environ["NO_COLOR"] = "1"
    os.environ["OSDOCTOR_HOME"] = tempfile.mkdtemp(prefix="osdoctor-dump-")
    from osdoctor.intake import parse_path

    count = 0
    for path in logs(args.only):
        relative = path.relative_to(ROOT)
        target = out / path.relative_to(FIXTURES)
        target.parent.mkdir(parents=True, exist_ok=True)
        base = str(target)
        Path(base + ".trace").write_text(canonical(parse_path(path)), encoding="utf-8")
        Path(base + ".tui").write_text(tui_trace(path), encoding="utf-8")
        Path(base + ".runs").write_text(runs_text(path), encoding="utf-8")
        Path(base + ".json").write_text(explain_json(str(relative)), encoding="utf-8")
        count += 1
    print(f"{count} logs dumped to {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
