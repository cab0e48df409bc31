"""JSON Lines for a log store: one object per run, one run per line.

Each object is the JSON report's contract (``render.json_report``) plus where
the run is (``source``, ``run``, ``lines``) and the ``fingerprint`` of its
headline cause, so that a team can load every saved log into OpenSearch or
Elasticsearch and count how often each cause occurs. The objects follow the
JSON Schema ``osdoctor/schemas/run.schema.json``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, TextIO

from osdoctor import __version__
from osdoctor.model import Report
from osdoctor.render.json_report import report_dict
from osdoctor.runs.log_runs import LogRuns, RunSummary


def run_dict(summary: RunSummary, report: Report, source: str) -> dict[str, Any]:
    data = report_dict(report)
    data["source"] = source
    data["run"] = summary.index
    data["lines"] = [summary.first, summary.last]
    data["fingerprint"] = summary.fingerprint
    return data


def run_line(summary: RunSummary, report: Report, source: str) -> str:
    """One run as one line of JSON (no newline inside: text is escaped)."""
    return json.dumps(run_dict(summary, report, source), ensure_ascii=False) + "\n"


def unreadable_line(source: str, error: str) -> str:
    """A log that could not be read, as a line of its own, so that a loader sees it."""
    return json.dumps({"source": source, "error": error}, ensure_ascii=False) + "\n"


def summary_dict(s: RunSummary) -> dict[str, Any]:
    return {
        "run": s.index,
        "lines": [s.first, s.last],
        "command": s.command,
        "client": s.client,
        "exit_code": s.exit_code,
        "outcome": s.outcome,
        "scenario": s.scenario,
        "branch": s.branch,
        "headline": s.headline_id,
        "headline_title": s.headline,
        "fingerprint": s.fingerprint,
    }


def runs_document(result: LogRuns) -> dict[str, Any]:
    """``--format json`` on a log of several runs: the summary of every run and
    the full report of those kept (a single run keeps the plain contract)."""
    return {key: list(value) if key in _STREAMED else value for key, value in _fields(result)}


def write_runs_json(result: LogRuns, out: TextIO) -> None:
    """:func:`runs_document` as ``json.dumps(..., indent=2)`` writes it, byte for
    byte, but written as it is made: a log of a hundred thousand runs would
    otherwise hold every run's dict and the whole text (several times the
    summaries' own size) at once."""
    out.write("{")
    for number, (key, value) in enumerate(_fields(result)):
        out.write(f"{',' if number else ''}\n  {json.dumps(key)}: ")
        if key not in _STREAMED:
            out.write(_nested(value))
            continue
        empty = True
        for item in value:
            out.write(f"{'[' if empty else ','}\n    {_nested(item, 2)}")
            empty = False
        out.write("[]" if empty else "\n  ]")
    out.write("\n}\n")


#: The document's lists written one item at a time.
_STREAMED = frozenset({"runs", "reports"})


def _nested(value: object, depth: int = 1) -> str:
    """``value`` as ``json.dumps(..., indent=2)`` writes it ``depth`` levels deep.
    A JSON text has no raw newline inside a string, so every newline is indentation."""
    text = json.dumps(value, indent=2, ensure_ascii=False)
    return text.replace("\n", "\n" + "  " * depth)


def _fields(result: LogRuns) -> Iterator[tuple[str, Any]]:
    """The document's keys in order; ``runs`` and ``reports`` as iterators."""
    outcomes = {s.outcome for s in result.summaries}
    overall = "failure" if result.failed else ("success" if outcomes == {"success"} else "unknown")
    yield "osdoctor", __version__
    yield "source", result.source
    yield "outcome", overall
    yield "runs", (summary_dict(s) for s in result.summaries)
    yield "runs_counted", result.runs
    yield "failed", result.failed
    yield "reports", _reports(result)


def _reports(result: LogRuns) -> Iterator[dict[str, Any]]:
    summaries = {s.index: s for s in result.summaries if s.index in result.reports}
    for index in sorted(result.reports):
        data = report_dict(result.reports[index])
        s = summaries.get(index)
        if s is not None:
            data.update(run=index, lines=[s.first, s.last], fingerprint=s.fingerprint)
        yield data


def schema() -> dict[str, Any]:
    """The JSON Schema every line of ``--format jsonl`` follows."""
    from importlib import resources

    text = resources.files("osdoctor").joinpath("schemas/run.schema.json").read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded
