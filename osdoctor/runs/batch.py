"""``osdoctor explain`` over the runs of a log and over many logs, in one process.

A support engineer answers many tickets a day, and a team wants every saved
log explained: ``osdoctor explain a.log b.log dir/ 'logs/*.log'`` loads the
knowledge once and reads each log once, run by run (``osdoctor.runs.log_runs``). A log
of one run reads exactly as it always did; a log of several gives a summary
first, then the runs that failed; many logs give one line per log (and per
run). A log that cannot be read is reported and the others go on.
"""

from __future__ import annotations

import dataclasses
import glob
import io
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from osdoctor.counts import counted
from osdoctor.intake import LogInputError, opened, read_error
from osdoctor.model import Report, Trace
from osdoctor.progress import Progress
from osdoctor.runs.log_runs import Choice, LogRuns, RunSummary, read_runs

#: Files of a folder given on the command line that are read as logs.
LOG_SUFFIXES = (".log", ".txt")


@dataclass(slots=True)
class Options:
    format: str = "text"
    """"text", "markdown", "json" or "jsonl"."""
    run: Choice = "failed"
    render: Callable[[Report], str] = lambda report: ""
    """How one run's full report is written (``osdoctor.cli`` gives its own)."""
    problem: Callable[[Report], str | None] = lambda report: None
    """Why a log of one run is not a client's log, or None (see ``osdoctor.cli``)."""
    fork: bool = False
    """Whether a big log's runs may be diagnosed in a second process: not when
    ``explain`` keeps state from run to run (``--anonymize``'s mapping)."""
    jobs: int = 1
    """Processes that explain (``--jobs``): many logs are shared among that many
    workers, and a big log of many runs is diagnosed in a second process while
    this one reads on, from 2 on; the output is the same for any number."""


def parse_choice(text: str) -> Choice:
    """``--run N`` (from 1, as the summary numbers runs), ``last`` or ``failed``."""
    if text in ("last", "failed"):
        return text  # type: ignore[return-value]
    if text.isdigit() and int(text) >= 1:
        return int(text) - 1
    raise ValueError(f"--run takes a run number (from 1), 'last' or 'failed', not {text!r}")


def expand(words: list[str]) -> tuple[list[str], list[str]]:
    """The logs the command line names, in order, and the words that named none:
    a folder gives its ``*.log`` and ``*.txt`` files, a quoted pattern its matches."""
    sources: list[str] = []
    problems: list[str] = []
    for word in words:
        path = Path(word)
        if word != "-" and path.is_dir():
            found = sorted(
                str(p)
                for p in path.iterdir()
                if p.suffix in LOG_SUFFIXES and not p.name.startswith(".") and p.is_file()
            )
            if not found:
                problems.append(f"{word} is a folder with no *.log or *.txt file in it")
            sources += found
        elif word != "-" and not path.exists() and glob.has_magic(word):
            found = sorted(p for p in glob.glob(word) if Path(p).is_file())
            if not found:
                problems.append(f"{word}: no file matches")
            sources += found
        else:
            sources.append(word)
    return sources, problems


def read_source(
    source: str,
    explain: Callable[[Trace], Report],
    choice: Choice,
    on_run: Callable[[RunSummary, Report], None] | None = None,
    progress: Callable[[int], None] | None = None,
    fork: bool = False,
    writes_out: bool = False,
) -> LogRuns:
    """Every run of one log; ``LogInputError`` when it cannot be read. What
    ``on_run`` fails to write (its reader went away: ``| head``) is the output's
    error, raised as it came: the log is not to blame. ``writes_out``: ``on_run``
    only writes to standard output (see ``runs.read_runs``)."""
    written = _Writer(on_run) if on_run is not None else None
    try:
        with opened(source) as stream:
            name = "-" if source == "-" else str(Path(source))
            return read_runs(stream, name, explain, choice, written, progress, fork, writes_out)
    except OSError as exc:
        if written is not None and exc is written.error:
            raise
        raise LogInputError(read_error(source, exc)) from None


class _Writer:
    """``on_run``, keeping the error it raised: the one error of a reading that
    comes from the output, not from the log."""

    __slots__ = ("on_run", "error")

    def __init__(self, on_run: Callable[[RunSummary, Report], None]) -> None:
        self.on_run = on_run
        self.error: OSError | None = None

    def __call__(self, summary: RunSummary, report: Report) -> None:
        try:
            self.on_run(summary, report)
        except OSError as exc:
            self.error = exc
            raise


def _size(source: str) -> int:
    try:
        return Path(source).stat().st_size if source != "-" else 0
    except OSError:
        return 0


class _Bar:
    """One progress line over all the logs, on a terminal only."""

    def __init__(
        self, err: TextIO, sources: list[str], clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.err = err
        self.progress: Progress | None = None
        self.done = 0
        self.count = len(sources)
        if err.isatty():
            total = sum(_size(s) for s in sources) or None
            self.progress = Progress(err, "osdoctor: reading", total, clock)

    def start(self, number: int, source: str) -> Callable[[int], None] | None:
        progress = self.progress
        if progress is None:
            return None
        name = "standard input" if source == "-" else Path(source).name
        progress.label = (
            f"osdoctor: reading {name}"
            if self.count == 1
            else f"osdoctor: log {number} of {self.count} ({name})"
        )
        base = self.done

        def seen(done: int) -> None:
            progress(base + done)

        return seen

    def finish(self, source: str) -> None:
        self.done += _size(source)

    def close(self) -> None:
        if self.progress is not None:
            self.progress.close()


def explain_logs(
    words: list[str],
    explain: Callable[[Trace], Report],
    options: Options,
    out: TextIO,
    err: TextIO,
    clock: Callable[[], float] = time.monotonic,
) -> int:
    """Explain every log the words name; returns the exit status: 1 when a run
    failed, else 2 when a log was unreadable or not a client's log, else 0.
    ``clock`` times the progress line (a test's own makes it appear at once)."""
    sources, problems = expand(words or ["-"])
    for problem in problems:
        print(f"osdoctor: {problem}", file=err)
    many = len(sources) > 1 or any(w != s for w, s in zip(words, sources, strict=False))
    if not sources:
        return 2
    if not many:
        return _one(sources[0], explain, options, out, _Bar(err, sources, clock))
    return _many(sources, explain, options, out, _Bar(err, sources, clock)) or (
        2 if problems else 0
    )


def _one(
    source: str, explain: Callable[[Trace], Report], options: Options, out: TextIO, bar: _Bar
) -> int:
    from osdoctor.render import jsonl
    from osdoctor.render import runs_report as runs

    err = bar.err
    jsonl_out = options.format == "jsonl"

    def stream_run(summary: RunSummary, report: Report) -> None:
        out.write(jsonl.run_line(summary, report, source))

    try:
        result = read_source(
            source,
            explain,
            "none" if jsonl_out else options.run,
            stream_run if jsonl_out else None,
            bar.start(1, source),
            options.fork and options.jobs >= 2,
            writes_out=_a_file(out),
        )
    except LogInputError as exc:
        print(f"osdoctor: {exc}", file=err)
        return 2
    finally:
        bar.close()
    single = result.single
    if single is not None and (jsonl_out or options.run in ("failed", "last", 0)):
        if not jsonl_out:
            out.write(options.render(single))
        problem = options.problem(single)
        if problem is not None:
            print(f"osdoctor: {problem}", file=err)
            return 2
        return 1 if single.outcome == "failure" else 0
    if jsonl_out:
        return 1 if result.any_failed else 0
    if isinstance(options.run, int) and options.run >= result.runs:
        print(
            f"osdoctor: {source} holds {counted(result.runs, 'run')}: "
            f"there is no run {options.run + 1}",
            file=err,
        )
        return 2
    if options.format == "json":
        jsonl.write_runs_json(result, out)
    elif options.format == "markdown":
        runs.write_runs_markdown(result, options.render, out)
    else:
        runs.write_runs_text(result, options.render, out)
    return 1 if result.any_failed else 0


def _a_file(out: object) -> bool:
    """Whether ``out`` writes to a file descriptor, which a forked child writes to as
    well (not an in-memory stream, whose copy in the child nobody reads)."""
    try:
        return isinstance(out, io.TextIOBase) and out.fileno() >= 0
    except (OSError, ValueError):
        return False


@dataclass(slots=True)
class _LogDone:
    """What one of many logs gives the output: written in the logs' order."""

    out: str = ""
    """Its lines of standard output (none for JSON, which is written at the end)."""
    err: str = ""
    document: object | None = None
    """Its JSON document (``--format json``)."""
    failed: int = 0
    any_failed: bool = False
    unreadable: bool = False


def _explain_log(
    source: str,
    explain: Callable[[Trace], Report],
    options: Options,
    emit: Callable[[str], object],
    progress: Callable[[int], None] | None,
) -> _LogDone:
    """One of many logs: its runs' JSON Lines go to ``emit`` as they are diagnosed
    (standard output, or the worker's answer), the rest comes back."""
    from osdoctor.render import jsonl
    from osdoctor.render import runs_report as runs
    from osdoctor.render.json_report import report_dict

    def stream_run(summary: RunSummary, report: Report) -> None:
        emit(jsonl.run_line(summary, report, source))

    done = _LogDone()
    jsonl_out = options.format == "jsonl"
    try:
        result = read_source(
            source,
            explain,
            "none" if jsonl_out or options.format != "json" else options.run,
            stream_run if jsonl_out else None,
            progress,
            options.fork and options.jobs >= 2,
            writes_out=_a_file(getattr(emit, "__self__", None)),
        )
    except LogInputError as exc:
        done.unreadable = True
        done.err = f"osdoctor: {exc}\n"
        if jsonl_out:
            emit(jsonl.unreadable_line(source, str(exc)))
        elif options.format == "json":
            done.document = {"source": source, "error": str(exc)}
        return done
    done.failed, done.any_failed = result.failed, result.any_failed
    single = result.single
    not_a_log = single is not None and options.problem(single) is not None
    done.unreadable = not_a_log
    if jsonl_out:
        return done
    if options.format == "json":
        done.document = report_dict(single) if single is not None else jsonl.runs_document(result)
        return done
    lines = runs.log_lines(result)
    if not_a_log:
        lines = [f"! {source}: nothing from an OpenStack client was found"]
    prefix = "- " if options.format == "markdown" else ""
    emit("".join(f"{prefix}{line}\n" for line in lines))
    return done


def _many(
    sources: list[str],
    explain: Callable[[Trace], Report],
    options: Options,
    out: TextIO,
    bar: _Bar,
) -> int:
    import json

    err = bar.err
    failed = unreadable = logs_failed = 0
    documents: list[object] = []
    try:
        for done in _each_log(sources, explain, options, out, bar):
            if done.err:
                err.write(done.err)
            out.write(done.out)
            failed += done.failed
            logs_failed += done.any_failed
            unreadable += done.unreadable
            if options.format == "json" and done.document is not None:
                documents.append(done.document)
    finally:
        bar.close()
    if options.format == "json":
        out.write(json.dumps(documents, indent=2, ensure_ascii=False) + "\n")
    elif options.format != "jsonl":
        tail = f", {unreadable} unreadable or not a client log" if unreadable else ""
        out.write(
            f"\n{counted(len(sources), 'log')}: {logs_failed} with a failed run "
            f"({counted(failed, 'run')}){tail}\n"
        )
    if failed:
        return 1
    return 2 if unreadable else 0


def _each_log(
    sources: list[str],
    explain: Callable[[Trace], Report],
    options: Options,
    out: TextIO,
    bar: _Bar,
) -> Iterator[_LogDone]:
    """Every log's part of the output, in the order given: read here one after the
    other, or by ``options.jobs`` worker processes (``osdoctor.runs.forkmap``)."""
    first = 0
    if options.jobs >= 2 and len(sources) >= 3:
        from osdoctor.runs.forkmap import can_fork, map_in_order

        alone = dataclasses.replace(options, jobs=1)  # a worker forks no child of its own

        def explain_one(source: str) -> _LogDone:
            parts: list[str] = []
            done = _explain_log(source, explain, alone, parts.append, None)
            done.out = "".join(parts)
            return done

        if can_fork():
            # The first log here: what it makes once (the regexes a log uses, compiled
            # on first use) the workers then inherit instead of each making it again.
            yield _explain_log(sources[0], explain, alone, out.write, bar.start(1, sources[0]))
            bar.finish(sources[0])
            pooled = map_in_order(explain_one, sources[1:], options.jobs)
            if pooled is not None:
                for source, done in zip(sources[1:], pooled, strict=True):
                    yield done
                    bar.finish(source)
                return
            first = 1
    for number, source in enumerate(sources[first:], first + 1):
        try:
            done = _explain_log(source, explain, options, out.write, bar.start(number, source))
        finally:
            bar.finish(source)
        yield done
