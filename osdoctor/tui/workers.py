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

from osdoctor.cmdline import command_text, known_secrets, prints_bare_secret
from osdoctor.diagnose import diagnose
from osdoctor.kb.loader import KnowledgeBase, load_knowledge
from osdoctor.live import LiveTrace
from osdoctor.model import Report, Trace
from osdoctor.parse.lines import MAX_LINE, clean
from osdoctor.parse.parser import Parser
from osdoctor.parse.wraps import widths_of_file
from osdoctor.paths import PrivateStorageError
from osdoctor.render.decisive import decisive_exchange
from osdoctor.runner import CommandError, OutputLine, Run, RunResult
from osdoctor.session import FORMAT_VERSION, MAGIC, SessionWriter, is_session, redact_command
from osdoctor.tui.linestore import FileLines, MemoryLines
from osdoctor.tui.messages import (
    LoadFinished,
    ReportReady,
    RunFinished,
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
#: Bytes read at once from a saved log (see ``_LogReader.read_blocks``).
_BLOCK = 1 << 20
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
        self.store.append(0, f"{MAGIC} {FORMAT_VERSION}")
        self.store.append(0, f"#command {redact_command(argv)}")
        self.store.append(0, f"#started {started:%Y-%m-%dT%H:%M:%SZ}")

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
                store.append(0, f"#split {out.fd}")
            self.elapsed = out.time

    def opened(self, title: str, path: Path | None = None) -> SourceOpened:
        return SourceOpened(self.trace, self.store, title, path)

    def progress(self) -> TraceGrew:
        return TraceGrew(len(self.store), len(self.trace.exchanges), self.elapsed)

    def report(self, kb: KnowledgeBase, final: bool = False) -> ReportReady:
        return ReportReady(
            diagnose(self.trace, kb, live=not final), final, output_lines(self.trace, self.stdout)
        )

    def finish(self, result: RunResult, kb: KnowledgeBase) -> ReportReady:
        trace = self.live.finish(result)
        for note in result.notes:
            self.store.append(0, f"#note {note}")
        self.store.append(0, f"#exit {result.exit_code} {result.duration:.3f}")
        self.elapsed = result.duration
        return final_report(diagnose(trace, kb), output_lines(trace, self.stdout))


def run_command(
    argv: list[str], post: Post, stop: Stop, session_folder: Path | None = None
) -> None:
    """Run ``argv`` (``--debug`` already inserted), feeding the parser as lines come."""
    try:
        session = SessionWriter.for_command(argv, session_folder)
    except (PrivateStorageError, OSError) as error:
        post(SourceFailed(f"cannot create the session file: {error}"))
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
    last_post = last_diagnosis = 0.0
    changed = False
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
        changed = changed or bool(batch)
        if batch and now - last_post >= PROGRESS_EVERY:
            post(source.progress())
            last_post = now
        if changed and now - last_diagnosis >= DIAGNOSE_EVERY:
            post(source.report(kb))
            last_diagnosis, changed = now, False
        if stop() and not run.cancelling:
            # Once: each further cancel() would skip a grace period of the
            # SIGINT, SIGTERM, SIGKILL sequence.
            run.cancel()
        if run.done and lines.empty():
            break
    result = run.wait()
    final = source.finish(result, kb)
    post(source.progress())
    post(final)
    post(RunFinished(result))


class _LogReader:
    """Reads a log's lines with their offsets; at the end of a followed file,
    keeps a partial last line back until its newline arrives."""

    def __init__(self, path: Path, store: FileLines, parser: Parser) -> None:
        self.handle = path.open("rb")
        self.store = store
        self.parser = parser
        self.number = 0
        self.stdout: list[int] = []
        self._held = b""  # whole lines the parser gave back (a round a block cut)

    def read_blocks(self, budget: int) -> int:
        """Feed whole blocks of lines through the parser's fast path (as explain
        does); returns how many lines, 0 at the end of what is there, at a line
        longer than a block, or for a session (whose lines are read one by one)."""
        if self.store.session:
            return 0
        handle, fed = self.handle, 0
        while fed < budget:
            start = handle.tell()
            chunk = handle.read(_BLOCK)
            last = chunk.rfind(b"\n")
            if last < 0:
                handle.seek(start)
                break
            if last + 1 < len(chunk):
                handle.seek(start + last + 1)
                chunk = chunk[: last + 1]
            lines = chunk.split(b"\n")
            lines.pop()
            # Each line's offset, for the log pane: all at C speed.
            self.store.offsets.extend(
                accumulate(map(add, map(len, lines[:-1]), repeat(1)), initial=start)
            )
            self.store.set_end(start + last + 1)
            self.number += len(lines)
            fed += len(lines)
            data = self._held + chunk if self._held else chunk
            self._held = self.parser.feed_block(data, more=True)
        return fed

    def settle(self) -> None:
        """Decide the lines held back: what follows is read line by line."""
        if self._held:
            self.parser.feed_block(self._held)
            self._held = b""

    def read_available(self, final: bool, budget: int = 1 << 62) -> int:
        """Feed the lines available now; returns how many."""
        handle, fed = self.handle, 0
        while fed < budget:
            start = handle.tell()
            raw = handle.readline(MAX_LINE)
            if not raw:
                break
            cut = 0
            if not raw.endswith(b"\n"):
                if len(raw) >= MAX_LINE:
                    cut = self._skip_rest()
                elif not final:
                    handle.seek(start)  # partial line: wait for the rest
                    break
            self.number += 1
            self.store.add_offset(start)
            text = clean(raw.decode("utf-8", "replace").rstrip("\n"))
            if self.number == 1 and is_session(text):
                self.store.session = True
            if self.store.session and text[:1].isdigit():
                space = text.find(" ", 0, 24)  # "<time> <fd> <text>"
                if (
                    space > 0
                    and text[space + 1 : space + 2] == "1"
                    and text[space + 2 : space + 3] in ("", " ")
                ):
                    self.stdout.append(self.number)
            self.parser.feed_text(self.number, text, cut)
            fed += 1
        self.store.set_end(handle.tell())
        return fed

    def _skip_rest(self) -> int:
        skipped = 0
        while True:
            more = self.handle.readline(1 << 16)
            if not more:
                return skipped
            skipped += len(more)
            if more.endswith(b"\n"):
                return skipped - 1

    def close(self) -> None:
        self.handle.close()


def load_log(
    path: Path,
    post: Post,
    stop: Stop,
    follow: bool = False,
    wake: threading.Event | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> None:
    """Read, parse and diagnose a saved log or session; with ``follow``, keep
    reading what another process appends, like ``tail -f``, until stopped.

    ``clock`` times the reading (the screen says how long it took): the
    screen's own, so that a test that freezes it sees no duration."""
    began = clock()
    try:
        if path.is_dir():
            raise IsADirectoryError(f"{path} is a folder, not a log file")
        store = FileLines(path)
        parser = Parser(str(path))
        store.memory = parser.secrets
        parser.set_widths(widths_of_file(path))
        reader = _LogReader(path, store, parser)
    except OSError as error:
        post(SourceFailed(_read_error(path, error)))
        return
    post(SourceOpened(parser.trace, store, str(path), path))
    kb = knowledge()
    try:
        # the first screenful at once, then the rest in batches
        reader.read_available(final=not follow, budget=2000)
        post(TraceGrew(reader.number, len(parser.trace.exchanges)))
        while not stop():
            if not reader.read_blocks(budget=50000):
                reader.settle()
                if not reader.read_available(final=not follow, budget=20000):
                    break
            post(TraceGrew(reader.number, len(parser.trace.exchanges)))
        reader.settle()
        if follow:
            _follow(reader, post, stop, kb, wake or threading.Event())
        trace = parser.finish()
        stdout = output_lines(trace, reader.stdout)
        post(TraceGrew(reader.number, len(trace.exchanges)))
        post(final_report(diagnose(trace, kb), stdout))
        post(LoadFinished(clock() - began))
    except OSError as error:
        post(SourceFailed(_read_error(path, error)))
    finally:
        reader.close()


def _follow(
    reader: _LogReader, post: Post, stop: Stop, kb: KnowledgeBase, wake: threading.Event
) -> None:
    parser = reader.parser
    last_diagnosis = 0.0
    changed = True
    while not stop():
        if reader.read_available(final=False):
            post(TraceGrew(reader.number, len(parser.trace.exchanges)))
            changed = True
        now = time.monotonic()
        if changed and now - last_diagnosis >= DIAGNOSE_EVERY:
            stdout = output_lines(parser.trace, reader.stdout)
            post(ReportReady(diagnose(parser.trace, kb, live=True), False, stdout))
            last_diagnosis, changed = now, False
        wake.wait(FOLLOW_POLL)
        wake.clear()


def _read_error(path: Path, error: OSError) -> str:
    if isinstance(error, FileNotFoundError):
        return f"{path}: no such file"
    if isinstance(error, PermissionError):
        return f"{path}: permission denied"
    if isinstance(error, IsADirectoryError):
        return f"{path} is a folder, not a log file"
    return f"{path}: cannot read ({error.strerror or error})"
