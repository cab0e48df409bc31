"""The report of a log of several runs, and of several logs: a summary first,
one line per run, then the full report of the runs that failed (or of the one
asked for). A single run reads as it always did (``render.text``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

from osdoctor.counts import counted
from osdoctor.model import Report
from osdoctor.render.common import NO_COMMAND
from osdoctor.runs.log_runs import KEEP_REPORTS, KEEP_SUMMARIES, LogRuns, RunSummary

#: Widest command shown on a summary line.
_COMMAND = 48
_MARK = {"failure": "✗", "success": "✓", "unknown": "?"}


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def run_line(s: RunSummary) -> str:
    """``✗ run 2  lines 60-144  exit 1  failure  openstack server show web-1 — cause``."""
    exit_code = "-" if s.exit_code is None else str(s.exit_code)
    command = _short(s.command or NO_COMMAND, _COMMAND)
    lines = f"{s.first}-{s.last}"
    line = (
        f"{_MARK.get(s.outcome, '?')} run {s.index + 1:<3} lines {lines:<13} "
        f"exit {exit_code:<3} {s.outcome:<8} {command}"
    )
    if s.headline:
        line += f" — {s.headline}"
        if s.headline_id:
            line += f"  [{s.headline_id}]"
    return line


def runs_heading(result: LogRuns) -> str:
    what = "standard input" if result.source == "-" else result.source
    counts = f"{result.failed} failed" if result.failed else "none failed"
    return f"{what}: {counted(result.runs, 'run')}, {counts}"


def counted_notes(result: LogRuns, how: str = " (give --run N for another)") -> list[str]:
    """What was counted rather than kept, in plain words; ``how`` says how to see
    another run."""
    notes: list[str] = []
    if result.summaries_not_kept:
        notes.append(
            f"{result.summaries_not_kept:,} runs past the first {KEEP_SUMMARIES:,} were "
            "counted, not listed"
        )
    if result.failed_not_kept:
        notes.append(
            f"{result.failed_not_kept:,} more failed runs were counted, not kept: the first "
            f"{KEEP_REPORTS} are shown{how}"
        )
    return notes


def run_heading(result: LogRuns, index: int) -> str:
    s = next((s for s in result.summaries if s.index == index), None)
    lines = f", lines {s.first}-{s.last}" if s is not None else ""
    return f"── run {index + 1} of {result.runs}{lines} " + "─" * 40


def write_runs_text(result: LogRuns, render: Callable[[Report], str], out: TextIO) -> None:
    """The summary of every run, then each kept run's full report under its
    heading, written line by line: a log of a hundred thousand runs would
    otherwise hold its whole report at once."""
    out.write(runs_heading(result) + "\n")
    for s in result.summaries:
        out.write(run_line(s) + "\n")
    _write_lines(out, counted_notes(result))
    for index in sorted(result.reports):
        _write_lines(out, ["", run_heading(result, index), ""])
        out.write(render(result.reports[index]).rstrip("\n") + "\n")


def write_runs_markdown(result: LogRuns, render: Callable[[Report], str], out: TextIO) -> None:
    _write_lines(
        out,
        [
            f"# {runs_heading(result)}",
            "",
            "| run | lines | exit | outcome | command | headline |",
            "|---|---|---|---|---|---|",
        ],
    )
    for s in result.summaries:
        exit_code = "" if s.exit_code is None else str(s.exit_code)
        command = (s.command or "").replace("|", "\\|")
        lead = (s.headline or "").replace("|", "\\|")
        mark = "**failure**" if s.outcome == "failure" else s.outcome
        lines = f"{s.first}-{s.last}"
        out.write(f"| {s.index + 1} | {lines} | {exit_code} | {mark} | `{command}` | {lead} |\n")
    _write_lines(out, ["", *counted_notes(result)])
    for index in sorted(result.reports):
        heading = run_heading(result, index).strip("─ ").capitalize()
        _write_lines(out, ["", "---", "", f"**{heading}**", ""])
        out.write(render(result.reports[index]).rstrip("\n") + "\n")


def _write_lines(out: TextIO, lines: list[str]) -> None:
    out.write("".join(line + "\n" for line in lines))


def log_lines(result: LogRuns) -> list[str]:
    """The lines of one log in a report of many: one for a log of one run, a
    heading and one per run otherwise."""
    what = "standard input" if result.source == "-" else result.source
    if result.runs == 1 and result.summaries:
        s = result.summaries[0]
        exit_code = "-" if s.exit_code is None else str(s.exit_code)
        line = f"{_MARK.get(s.outcome, '?')} {what}  exit {exit_code:<3} {s.outcome:<8}"
        line += f" {_short(s.command or NO_COMMAND, _COMMAND)}"
        if s.headline:
            line += f" — {s.headline}"
        return [line]
    mark = _MARK["failure"] if result.failed else _MARK["success"]
    return [f"{mark} {runs_heading(result)}"] + ["    " + run_line(s) for s in result.summaries]
