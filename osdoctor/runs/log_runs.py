"""A log of many runs: each client invocation parsed and diagnosed on its own.

The log is read once, in blocks, through the parser's fast path; where
``parse.run_split`` sees a new invocation begin, the run under way is finished and
diagnosed, and a new parser (numbering on from the log's own line numbers)
takes the rest. Nothing of one run can reach another's evidence: each has its
own parser. Only what was learnt about secrets carries over, so a value masked
in one run stays masked in the next.

Memory stays bounded however many runs: a short summary of every run is kept
(up to ``KEEP_SUMMARIES``), the full report only of the runs that will be
shown (the failed ones, up to ``KEEP_REPORTS``, or the one asked for); the
rest are counted, and the result says so.
"""

from __future__ import annotations

import sys
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Literal, cast

from osdoctor.intake import new_parser
from osdoctor.model import Command, Report, Resource, Trace
from osdoctor.parse.line_source import LineSource
from osdoctor.parse.lines import read_blocks
from osdoctor.parse.run_split import RunSplitter
from osdoctor.parse.wraps import sniff
from osdoctor.progress import CountingReader
from osdoctor.runs.fingerprint import fingerprint, headline
from osdoctor.secrets.secretstream import Taught

if TYPE_CHECKING:
    from osdoctor.runs.runworker import RunWorker

#: Full reports kept at most (failed runs); others are summarised and counted.
KEEP_REPORTS = 20
#: Run summaries kept at most; runs past these are counted.
KEEP_SUMMARIES = 100_000
#: Failed runs whose summary keeps what the runs before them showed (``History``).
KEEP_EARLIER = 100
#: Bytes read before the runs of a log are diagnosed in a second process
#: (``read_runs(..., fork=True)``): below, a fork would cost more than it saves.
FORK_AFTER = 1 << 20

Choice = Literal["failed", "last", "none"] | int
"""Which runs' full reports to keep: the failed ones, the last, none (summaries
only), or the one of that index (from 0)."""


@dataclass(slots=True)
class RunSummary:
    """One line of a multi-run report: enough to list the run and find it again."""

    index: int
    """From 0, in the order of the log."""
    first: int
    last: int
    """The run's first and last lines in the log (1-based, inclusive)."""
    command: str | None
    client: str
    exit_code: int | None
    outcome: str
    scenario: str | None
    branch: str | None
    headline_id: str | None
    headline: str | None
    """The title of the finding a user reads first."""
    fingerprint: str | None
    taught: Taught | None = field(default=None, repr=False, compare=False)
    """What the runs before this one taught of secrets: a run read again alone
    (``parse_run``, a screen that opens one run) masks it too. Never rendered:
    no report shows it."""
    earlier: tuple[list[Command], list[Resource]] | None = field(
        default=None, repr=False, compare=False
    )
    """The runs before a failed one, as its failure may cite them (``History``), so
    that the run read again alone cites them too; kept for the first
    ``KEEP_EARLIER`` failed runs only."""


@dataclass(slots=True)
class LogRuns:
    """Every run of one log: summaries, the reports kept, what was only counted."""

    source: str
    summaries: list[RunSummary] = field(default_factory=list)
    reports: dict[int, Report] = field(default_factory=dict)
    runs: int = 0
    failed: int = 0
    failed_not_kept: int = 0
    """Failed runs whose full report was not kept (past ``KEEP_REPORTS``)."""
    summaries_not_kept: int = 0
    lines: int = 0

    @property
    def single(self) -> Report | None:
        """The report of a log of one run, which reads exactly as it always did."""
        return self.reports.get(0) if self.runs == 1 else None

    @property
    def any_failed(self) -> bool:
        return self.failed > 0


def summarise(index: int, first: int, last: int, report: Report) -> RunSummary:
    t = report.trace
    lead = headline(report)
    # Up to KEEP_SUMMARIES are kept, and a log of many runs repeats its commands
    # and its findings: each of these words is held once, however many runs say it.
    return RunSummary(
        index=index,
        first=first,
        last=last,
        command=_once(t.command),
        client=sys.intern(t.client),
        exit_code=t.exit_code,
        outcome=sys.intern(report.outcome),
        scenario=_once(report.scenario.id) if report.scenario else None,
        branch=_once(report.scenario.branch) if report.scenario else None,
        headline_id=_once(lead.id) if lead else None,
        headline=_once(lead.title) if lead else None,
        fingerprint=_once(fingerprint(report)),
    )


def _once(text: str | None) -> str | None:
    return None if text is None else sys.intern(text)


class _Runs:
    """Receives each finished run: diagnoses it, keeps what the choice asks for."""

    def __init__(
        self,
        source: str,
        explain: Callable[[Trace], Report],
        choice: Choice,
        on_run: Callable[[RunSummary, Report], None] | None,
    ) -> None:
        self.result = LogRuns(source)
        self.explain = explain
        self.choice = choice
        self.on_run = on_run

    def finished(
        self,
        trace: Trace,
        first: int,
        last: int,
        taught: Taught | None = None,
    ) -> None:
        result = self.result
        index = result.runs
        result.runs += 1
        result.lines = last
        report = self.explain(trace)
        summary = summarise(index, first, last, report)
        summary.taught = taught
        if report.outcome == "failure" and result.failed < KEEP_EARLIER:
            summary.earlier = (trace.earlier, trace.earlier_resources)
        if self.on_run is not None:
            self.on_run(summary, report)
        failed = report.outcome == "failure"
        result.failed += failed
        if len(result.summaries) < KEEP_SUMMARIES:
            result.summaries.append(summary)
        else:
            result.summaries_not_kept += 1
        if index == 1 and not self._wanted(0, result.summaries[0].outcome == "failure"):
            result.reports.pop(0, None)  # a second run: the first is no longer the only one
        if self.choice == "last":
            result.reports.clear()
        if index == 0 or self._wanted(index, failed):
            if self.choice == "failed" and failed and len(result.reports) >= KEEP_REPORTS:
                result.failed_not_kept += 1
            else:
                result.reports[index] = report

    def _wanted(self, index: int, failed: bool) -> bool:
        choice = self.choice
        if choice == "failed":
            return failed
        if choice == "last":
            return True
        if choice == "none":
            return False
        return index == choice


#: What the runs before one are remembered by, for its failure to cite: the last
#: command lines and the last resources they printed.
HISTORY_COMMANDS = 20
HISTORY_RESOURCES = 20
#: The fields a remembered resource keeps: what names it and what says its state
#: (a show's other fields are not cited, and every run's trace carries these).
_REMEMBERED = frozenset(
    {
        "name",
        "id",
        "uuid",
        "stack_name",
        "resource_name",
        "binary",
        "host",
        "status",
        "state",
        "stack_status",
        "resource_status",
        "provision_state",
        "provisioning_status",
        "vm_state",
        "task_state",
        "locked",
        "fault",
        "last_error",
        "status_reason",
        "stack_status_reason",
        "resource_status_reason",
    }
)


@dataclass(slots=True)
class History:
    """The runs before the current one, as far as a failure may cite them: a
    ``source openrc`` typed, a ``server lock`` run, a list showing a state."""

    commands: deque[Command] = field(default_factory=lambda: deque(maxlen=HISTORY_COMMANDS))
    resources: deque[Resource] = field(default_factory=lambda: deque(maxlen=HISTORY_RESOURCES))

    def add(self, trace: Trace) -> None:
        self.commands.extend(trace.commands[-HISTORY_COMMANDS:])
        for r in trace.resources[-HISTORY_RESOURCES:]:
            kept = [f for f in r.fields if f.key in _REMEMBERED]
            self.resources.append(Resource(r.line, r.form, kept, r.type, r.command))

    def give(self, trace: Trace) -> None:
        trace.earlier = list(self.commands)
        trace.earlier_resources = list(self.resources)


def read_runs(
    stream: BinaryIO,
    source: str,
    explain: Callable[[Trace], Report],
    choice: Choice = "failed",
    on_run: Callable[[RunSummary, Report], None] | None = None,
    progress: Callable[[int], None] | None = None,
    fork: bool = False,
    writes_out: bool = False,
) -> LogRuns:
    """Split a log into runs and diagnose each with ``explain`` as it ends;
    ``on_run`` sees every run's summary and report (a JSON Lines writer streams
    them), ``progress`` how many bytes were read. ``fork``: once a log of many
    runs proves big, its runs are diagnosed in a child while this process reads
    on (``osdoctor.runs.runworker``; a caller with threads must not fork). With an
    ``on_run``, only if ``writes_out``: it does nothing but write to standard
    output, which the child then does in its place, in the same order."""
    if progress is not None:
        stream = cast(BinaryIO, CountingReader(stream, progress))
    stream, widths = sniff(stream)
    runs = _Runs(source, explain, choice, on_run)
    worker: RunWorker | None = None
    # Forked at a run's end once this much is read: a small log costs no fork.
    fork_at = FORK_AFTER if fork and (on_run is None or writes_out) else -1
    splitter = RunSplitter()
    history = History()
    parser = new_parser(source, widths, 0, None)
    lines = LineSource(parser, widths.fold)
    taught = None  # what the runs before the current one taught
    first = 1

    def at_run(line: int, read: int) -> None:
        """A run begins on ``line``: the one before it is finished and diagnosed."""
        nonlocal worker, fork_at, parser, taught, first
        if line <= first:
            return
        if worker is None and 0 <= fork_at <= read:
            worker, fork_at = _fork(runs), -1
        trace = parser.finish()
        trace.followed = True
        # Given once the run is read: the runs before were scrubbed already.
        history.give(trace)
        history.add(trace)
        (worker or runs).finished(trace, first, line - 1, taught)
        taught = parser.secrets.taught(taught)
        parser = lines.parser = new_parser(source, widths, line - 1, parser)
        lines.number = line - 1
        first = line

    try:
        seen = lines.read(stream, splitter.cuts, at_run)
        trace = parser.finish()
        history.give(trace)
        (worker or runs).finished(trace, first if seen else 0, seen, taught)
        if worker is None:
            return runs.result
        result: LogRuns = worker.close()
        return result
    except BaseException:
        if worker is not None:
            worker.stop()
        raise


def _fork(runs: _Runs) -> RunWorker | None:
    """A child that diagnoses the rest of the runs, if this machine can give it a
    core; imported only here, so that a small log's start-up never pays for it."""
    from osdoctor.runs.runworker import RunWorker, can_fork

    return RunWorker(runs) if can_fork() else None


def read_runs_of_path(
    path: Path,
    explain: Callable[[Trace], Report],
    choice: Choice = "failed",
    on_run: Callable[[RunSummary, Report], None] | None = None,
    progress: Callable[[int], None] | None = None,
) -> LogRuns:
    with path.open("rb") as stream:
        return read_runs(stream, str(path), explain, choice, on_run, progress)


def several_runs(path: Path) -> bool:
    """Whether the log holds more than one run: a scan for where runs start,
    without parsing (a log of one run then costs a few regular expressions)."""
    splitter = RunSplitter()
    with path.open("rb") as stream:
        return any(not cut and splitter.cuts(data) for data, cut, _head in read_blocks(stream))


def parse_run(path: Path, first: int, last: int, known: RunSummary | None = None) -> Trace:
    """The trace of lines ``first`` to ``last`` of a log alone, numbered as in the
    log: one run of a multi-run log, read again to be shown in full. ``known``,
    the run's summary, brings what the runs before it taught of secrets, and what
    they showed that its failure may cite."""
    with path.open("rb") as handle:
        stream, widths = sniff(handle)
        parser = new_parser(str(path), widths, first - 1, None)
        if known is not None:
            parser.secrets.recall(known.taught)
            if known.earlier is not None:
                parser.trace.earlier, parser.trace.earlier_resources = known.earlier
        followed = LineSource(parser, widths.fold, first - 1).read_window(stream, first, last)
        trace = parser.finish()
        trace.followed = followed
        return trace
