"""The work done off the event loop: running a command, reading a log.

Each function runs in a Textual thread worker (see ``screens.main``), owns
its parser alone, and reports through ``post``: the parser is fed and the
trace diagnosed on the same thread, so nothing is shared half-written except
the trace's lists, which the panes only read.
"""

from __future__ import annotations

import queue
import re
import threading
import time
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from itertools import accumulate, repeat
from operator import add
from pathlib import Path

from textual.message import Message

from osdoctor.diagnose import diagnose
from osdoctor.intake import BLOCK, LogInputError, LogReader, open_log, read_error
from osdoctor.kb.loader import KnowledgeBase, load_knowledge
from osdoctor.model import Report, Trace
from osdoctor.parse.lines import read_blocks
from osdoctor.parse.run_split import RunSplitter
from osdoctor.render.decisive_exchange import decisive_exchange
from osdoctor.run.cmdline import command_text
from osdoctor.run.live import LiveTrace
from osdoctor.run.runner import CommandError, OutputLine, Run, RunResult
from osdoctor.run.session import SessionFileError, redact_command, start_session
from osdoctor.run.sessionfile import exit_record, header_records, note_record, split_record
from osdoctor.runs.log_runs import RunSummary, read_runs_of_path, several_runs
from osdoctor.secrets.commandsecrets import known_secrets, prints_bare_secret
from osdoctor.servicelog.attach import ServiceLogs, worth_joining
from osdoctor.tui.linestore import FileLines, MemoryLines
from osdoctor.tui.worker_messages import (
    LoadFinished,
    ReportReady,
    RunFinished,
    RunsFound,
    RunsOpened,
    RunsRead,
    RunStarted,
    SourceFailed,
    SourceOpened,
    TraceGrew,
)

Post = Callable[[Message], object]
Stop = Callable[[], bool]

#: Seconds between progress messages, and between diagnoses of a growing trace.
PROGRESS_EVERY = 0.1
DIAGNOSE_EVERY = 0.5
#: Seconds between two batches of the run list: each costs the screen a redraw.
LIST_EVERY = 0.25
#: Runs the run list shows at most: a list of tens of thousands takes seconds to
#: lay out, and ``osdoctor explain --format jsonl`` is the tool for that many.
LISTED = 2000
#: Seconds the run list's reader waits, at most, for its first rows to be drawn
#: before it reads on: the first screen has the CPU to itself meanwhile.
FIRST_SCREEN = 1.0
#: How often a followed file is checked for new lines.
FOLLOW_POLL = 0.25

_kb_lock = threading.Lock()
_kb: KnowledgeBase | None = None


def knowledge() -> KnowledgeBase:
    """The knowledge base, loaded once per process by whichever worker needs it first."""
    global _kb
    with _kb_lock:
        if _kb is None:
            _kb = load_knowledge([], user=True)
        return _kb


#: Message kinds the client printed itself (as opposed to its debug records).
_PRINTED = frozenset({"output", "error", "warning", "text"})
#: Debug records that carry no logger prefix the parser knows, so that they
#: read as plain text: osc's command groups and SDK clients, the SDK's
#: catalog lookups, ironicclient's version choice, parameters, retries and waits.
_DEBUG_RECORD = re.compile(
    r"\S+ API version [\d.]+(?: \([\w ]+\))?, cmd group "
    r"|\w+ client initialized using OpenStack SDK"
    r"|params\(\{|Using bare metal API version |Baremetal API version: "
    r"|Error contacting Ironic server: .* Attempt \d+ of \d+"
    r"|Still waiting for nodes? |Node \S+ reached provision state "
    r"|Service '[\w-]+' is not present in the service catalog"
)


def output_lines(trace: Trace, stdout: Iterable[int] = ()) -> list[int]:
    """The lines that show what the client printed: everything on its stdout
    (``stdout``, when the streams are known) and every line of either stream
    that is not a debug record: a table, "Forbidden: app", the event log,
    "Unable to delete 2 of the 3 stacks." on stderr."""
    numbers = set(stdout)
    for message in trace.messages:
        if message.kind in _PRINTED and not _DEBUG_RECORD.match(message.text):
            if message.repeats > 1:  # the same line again, maybe past a traceback
                numbers.update((message.line, message.last_line))
            else:  # one line, or a wrapped one joined
                numbers.update(range(message.line, max(message.line, message.last_line) + 1))
    return sorted(numbers)


def joined(trace: Trace, service_logs: ServiceLogs | None) -> None:
    """Give a finished run the records of the services' logs, when some were given
    and it failed (a pass over gigabytes is for a run that needs it)."""
    if service_logs is not None and worth_joining(trace):
        service_logs.attach(trace)


def final_report(report: Report, stdout: list[int]) -> ReportReady:
    ex = decisive_exchange(report)
    return ReportReady(report, True, stdout, ex.index if ex is not None else None)


class LiveSource:
    """A running command's lines as the panes see them: parsed as they come,
    numbered as in its session file (three header lines first)."""

    def __init__(self, argv: list[str], source: str, started: datetime) -> None:
        self.live = LiveTrace(argv, source=source)
        self.store = MemoryLines(known_secrets(argv), prints_bare_secret(argv))
        self.stdout: list[int] = []
        self.elapsed = 0.0
        for record in header_records(redact_command(argv), started):
            self.store.append(0, record)

    @property
    def trace(self) -> Trace:
        return self.live.parser.trace

    def feed(self, batch: list[OutputLine]) -> None:
        store = self.store
        for out in batch:
            self.live.feed(out)
            store.append(out.fd, out.text)
            if out.fd == 1:
                self.stdout.append(len(store))
            if out.cut:
                store.append(0, split_record(out.fd))
            self.elapsed = out.time

    def opened(self, title: str, path: Path | None = None) -> SourceOpened:
        return SourceOpened(self.trace, self.store, title, path)

    def progress(self) -> TraceGrew:
        return TraceGrew(len(self.store), len(self.trace.exchanges), self.elapsed)

    def report(self, kb: KnowledgeBase, final: bool = False) -> ReportReady:
        return ReportReady(
            diagnose(self.trace, kb, live=not final), final, output_lines(self.trace, self.stdout)
        )

    def finish(
        self, result: RunResult, kb: KnowledgeBase, service_logs: ServiceLogs | None = None
    ) -> ReportReady:
        trace = self.live.finish(result)
        joined(trace, service_logs)
        for note in result.notes:
            self.store.append(0, note_record(note))
        self.store.append(0, exit_record(result.exit_code, result.duration))
        self.elapsed = result.duration
        return final_report(diagnose(trace, kb), output_lines(trace, self.stdout))


class Pacer:
    """At most one update every ``every`` seconds, and none lost: a change that
    comes sooner is posted at the first tick after the interval, even if
    nothing else comes (a client that prints a request and then waits on it
    must show that request, not the one before)."""

    def __init__(self, every: float) -> None:
        self.every = every
        self._last: float | None = None
        self._pending = False

    def due(self, now: float, changed: bool) -> bool:
        """Whether to post now, given the time and whether anything changed."""
        self._pending = self._pending or changed
        if not self._pending or (self._last is not None and now - self._last < self.every):
            return False
        self._last, self._pending = now, False
        return True


def run_command(
    argv: list[str],
    post: Post,
    stop: Stop,
    session_folder: Path | None = None,
    service_logs: ServiceLogs | None = None,
) -> None:
    """Run ``argv`` (``--debug`` already inserted), feeding the parser as lines come."""
    try:
        session = start_session(argv, session_folder)
    except SessionFileError as error:
        post(SourceFailed(str(error)))
        return
    lines: queue.SimpleQueue[OutputLine] = queue.SimpleQueue()
    run = Run(argv, on_line=lines.put, session=session)
    source = LiveSource(argv, str(session.path), datetime.now(UTC))
    post(source.opened(command_text(argv), session.path))
    try:
        run.start()
    except CommandError as error:
        post(SourceFailed(str(error)))
        post(RunFinished(None, str(error)))
        return
    post(RunStarted(run, argv))
    kb = knowledge()
    progress, diagnosis = Pacer(PROGRESS_EVERY), Pacer(DIAGNOSE_EVERY)
    while True:
        batch: list[OutputLine] = []
        try:
            batch.append(lines.get(timeout=PROGRESS_EVERY))
            while len(batch) < 5000:
                batch.append(lines.get_nowait())
        except queue.Empty:
            pass
        source.feed(batch)
        now = time.monotonic()
        if progress.due(now, bool(batch)):
            post(source.progress())
        if diagnosis.due(now, bool(batch)):
            post(source.report(kb))
        if stop() and not run.cancelling:
            # Once: each further cancel() would skip a grace period of the
            # SIGINT, SIGTERM, SIGKILL sequence.
            run.cancel()
        if run.done and lines.empty():
            break
    result = run.wait()
    final = source.finish(result, kb, service_logs)
    post(source.progress())
    post(final)
    post(RunFinished(result))


def load_log(
    path: Path,
    post: Post,
    stop: Stop,
    follow: bool = False,
    wake: threading.Event | None = None,
    clock: Callable[[], float] = time.monotonic,
    window: tuple[int, int] | None = None,
    known: RunSummary | None = None,
    service_logs: ServiceLogs | None = None,
) -> None:
    """Read, parse and diagnose a saved log or session; with ``follow``, keep
    reading what another process appends, like ``tail -f``, until stopped.
    A log of several runs is not read here: ``RunsOpened`` asks the screen to
    list them (see :class:`RunLister`); ``window`` is the first and last line
    of the one run to show, ``known`` its summary: the secrets the runs before it
    taught are masked in it too, and what they showed may be cited.

    ``clock`` times the reading (the screen says how long it took): the
    screen's own, so that a test that freezes it sees no duration."""
    began = clock()
    store = FileLines(path)
    try:
        if not follow and window is None and path.is_file() and several_runs(path):
            post(RunsOpened(path))
            return
        reader = open_log(path, store)
    except OSError as error:
        post(SourceFailed(read_error(path, error)))
        return
    except LogInputError as error:
        post(SourceFailed(str(error)))
        return
    reader.window = window
    parser = reader.parser
    if known is not None:
        parser.secrets.recall(known.taught)
        if known.earlier is not None:  # what the runs before it showed, to cite
            parser.trace.earlier, parser.trace.earlier_resources = known.earlier
    store.memory = parser.secrets
    store.wrap_width = reader.lines.wrap_width
    post(SourceOpened(parser.trace, store, str(path), path))
    kb = knowledge()
    try:
        if window is not None:
            reader.read_available(final=True, budget=1)  # a session's header line
            _index_to(reader, window[0] - 1)
        # the first screenful at once, then the rest in batches
        reader.read_available(final=not follow, budget=2000)
        post(TraceGrew(reader.number, len(parser.trace.exchanges)))
        while not stop():
            if window is not None and reader.number >= window[1]:
                break  # the one run is read: the rest of the log is other runs
            if not reader.read_blocks(budget=50000):
                reader.settle()
                if not reader.read_available(final=not follow, budget=20000):
                    break
            post(TraceGrew(reader.number, len(parser.trace.exchanges)))
        reader.settle()
        if follow:
            _follow(reader, post, stop, kb, wake or threading.Event())
        trace = parser.finish()
        if window is not None:
            trace.followed = reader.more_after()
        stdout = output_lines(trace, reader.stdout)
        post(TraceGrew(reader.number, len(trace.exchanges)))
        joined(trace, service_logs)
        post(final_report(diagnose(trace, kb), stdout))
        post(LoadFinished(clock() - began))
    except OSError as error:
        post(SourceFailed(read_error(path, error)))
    finally:
        reader.close()


def _index_to(reader: LogReader, line: int) -> None:
    """Index the lines up to ``line`` without reading them one by one: those
    before the one run of a log of several to show (read line by line, the
    lines of a 200 MB log before its last run take a minute)."""
    handle, offsets = reader.handle, reader.index.offsets
    while reader.number < line:
        start = handle.tell()
        lines = handle.read(BLOCK).split(b"\n")[:-1]  # the whole lines of the block
        taken = lines[: line - reader.number]
        if not taken:  # the end, or a line longer than a block: read on one by one
            handle.seek(start)
            break
        offsets.extend(accumulate(map(add, map(len, taken[:-1]), repeat(1)), initial=start))
        handle.seek(start + sum(map(len, taken)) + len(taken))
        reader.number += len(taken)
    reader.index.set_end(handle.tell())


def runs_ahead(path: Path) -> bool:
    """Whether a second run begins in the log's first block (1 MiB): the app
    then opens on the list of its runs at once, before anything else is laid
    out. A second run further in is found by ``load_log`` (``several_runs``)."""
    splitter = RunSplitter()
    try:
        with path.open("rb") as stream:
            for data, cut, _head in read_blocks(stream):
                return not cut and bool(splitter.cuts(data))
    except OSError:
        pass  # said by the reader
    return False


class _Stopped(Exception):
    """The list is no longer wanted (the app quits, another log is opened)."""


class RunLister:
    """Reads a log of several runs for the run list: each run is cut, parsed
    and diagnosed in turn (``runs.read_runs``), and its summary posted as soon
    as it is known, so that the list shows its first rows at once and fills
    while the rest is read (a log of ten thousand runs takes minutes).

    The first run's summary goes at once, and the reader waits (at most
    ``FIRST_SCREEN``) until it is drawn; then summaries go in batches, at most
    one every ``every`` seconds, with the counts and the bytes read so far
    (``RunsRead``; a long run alone still moves the bytes on). Only the first
    ``listed`` summaries are posted, the others counted. The whole result
    comes last (``RunsFound``). The reader stops within a block (1 MiB) once
    ``stop`` says so: quitting never waits for the end of the log."""

    every = LIST_EVERY

    def __init__(
        self,
        path: Path,
        post: Post,
        stop: Stop,
        clock: Callable[[], float] = time.monotonic,
        listed: int = LISTED,
    ) -> None:
        self.path, self.post, self.stop, self.clock, self.listed = path, post, stop, clock, listed
        self.owner: object = None
        """Passed back in every message: which list they are for."""
        self.pending: list[RunSummary] = []
        self.runs = self.failed = self.read_bytes = self.posted = 0
        self.pacer = Pacer(self.every)
        self.began = 0.0

    def hold(self, runs: int) -> None:
        """Called after each run, once what is due is posted: tests hold the
        reader here to see the list half read."""

    def read(self) -> None:
        began, self.began = self.clock(), time.monotonic()
        kb = knowledge()
        try:
            result = read_runs_of_path(
                self.path, lambda t: diagnose(t, kb), "none", self._run, self._progress
            )
        except _Stopped:
            return
        except OSError as error:
            reason = read_error(self.path, error)
            self._post(reason)
            self.post(SourceFailed(reason))
            return
        self._post()
        self.post(RunsFound(self.path, result, self.clock() - began, self.owner))

    def _progress(self, done: int) -> None:
        self.read_bytes = done
        if self.stop():
            raise _Stopped
        now = time.monotonic()
        # a long run: the bytes move on (the first run's summary, if it is short, first)
        if (self.posted or now - self.began > FIRST_SCREEN) and self.pacer.due(now, True):
            self._post()

    def _run(self, summary: RunSummary, _report: Report) -> None:
        self.runs += 1
        self.failed += summary.outcome == "failure"
        if summary.index < self.listed:
            self.pending.append(summary)
        if self.pacer.due(time.monotonic(), True) or not self.posted:
            self._post()
        if self.stop():
            raise _Stopped
        self.hold(self.runs)

    def _post(self, error: str | None = None) -> None:
        first = self.posted == 0
        shown = threading.Event() if first else None
        self.post(
            RunsRead(
                self.pending, self.runs, self.failed, self.read_bytes, self.owner, error, shown
            )
        )
        self.pending = []
        self.posted += 1
        if shown is not None:
            shown.wait(FIRST_SCREEN)


def _follow(
    reader: LogReader, post: Post, stop: Stop, kb: KnowledgeBase, wake: threading.Event
) -> None:
    parser = reader.parser
    diagnosis = Pacer(DIAGNOSE_EVERY)
    changed = True  # the first diagnosis of what is there
    while not stop():
        if reader.read_available(final=False):
            post(TraceGrew(reader.number, len(parser.trace.exchanges)))
            changed = True
        if diagnosis.due(time.monotonic(), changed):
            stdout = output_lines(parser.trace, reader.stdout)
            post(ReportReady(diagnose(parser.trace, kb, live=True), False, stdout))
        changed = False
        wake.wait(FOLLOW_POLL)
        wake.clear()
