"""Messages the workers post to the screen.

Workers never touch widgets: they post these, and the screen updates itself
on the event loop. Progress messages can replace one another in the queue, so
a burst of output costs one redraw.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from textual.message import Message

from osdoctor.model import Report, Trace
from osdoctor.run.runner import Run, RunResult
from osdoctor.runs.log_runs import LogRuns, RunSummary
from osdoctor.tui.linestore import LineStore


@dataclass
class SourceOpened(Message):
    """A log or a run has begun: the trace and lines the panes will show."""

    trace: Trace
    lines: LineStore
    title: str
    path: Path | None = None
    """The session file (a run) or the log (an opened file)."""


@dataclass
class RunStarted(Message):
    """The command is running; ``run`` is what cancel acts on."""

    run: Run
    argv: list[str]


@dataclass
class TraceGrew(Message):
    """More lines were read and parsed (a batch, not one line)."""

    lines: int
    exchanges: int
    elapsed: float | None = None
    """Seconds since the command started, as the last line's time says."""

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, TraceGrew)


@dataclass
class ReportReady(Message):
    """A diagnosis of the trace so far (``final``: of the whole run or log)."""

    report: Report
    final: bool
    stdout: list[int]
    """Line numbers of what the command printed on stdout (its own output)."""
    decisive: int | None = None
    """The index of the exchange that decided a failed run (a final report's):
    found on the worker's thread, since on a long log it takes a while."""

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, ReportReady) and not message.final


@dataclass
class RunFinished(Message):
    """The command ended (``result``), or could not start (``error``)."""

    result: RunResult | None
    error: str | None = None


@dataclass
class LoadFinished(Message):
    """An opened log was read to its end (and is no longer followed)."""

    seconds: float
    """Time to read, parse and diagnose it."""


@dataclass
class SourceFailed(Message):
    """The log could not be read or the command could not start; one line."""

    error: str


@dataclass
class RunsOpened(Message):
    """The log holds several runs: the screen lists them as they are read, and
    the user picks one."""

    path: Path


@dataclass
class RunsRead(Message):
    """More of a log of several runs was read."""

    summaries: list[RunSummary]
    """The runs cut since the last message, in the log's order: only those the
    list shows (the first ``workers.LISTED``)."""
    runs: int
    failed: int
    """Runs read so far, and how many of them failed."""
    read: int
    """Bytes read so far."""
    owner: object = None
    """The list these runs are for (``RunLister.owner``)."""
    error: str | None = None
    """Why the reading stopped here, if it did before the end."""
    shown: threading.Event | None = None
    """Set once the rows are on the screen (the first batch's): the reader
    waits for it, so that the first screen does not share the CPU."""

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, RunsRead) and not self.summaries and self.error is None


@dataclass
class RunsFound(Message):
    """A log of several runs was read to its end: every run, counted."""

    path: Path
    runs: LogRuns
    seconds: float
    """Time to read, cut and diagnose every run."""
    owner: object = None
