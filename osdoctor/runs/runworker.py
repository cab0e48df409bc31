"""Diagnosing the runs of a log in a second process while this one reads on.

Reading a log is sequential: each run's redaction starts from what the runs
before it taught. Diagnosing a finished run is not: it needs only the run's
trace, already scrubbed, and the knowledge. On a machine of two cores or more,
a big log of many runs is therefore read here and diagnosed in a forked child.

The child is a fork taken in the middle of the log: it holds the receiver of
the runs (``osdoctor.runs.log_runs``' bookkeeping) exactly as it stood, so it carries on
where this process stopped, and gives back at the end the same result, byte
for byte, as if every run had been diagnosed here. Nothing is pickled but the
traces going one way and the result coming back.

The child never outlives osdoctor: it is a daemon, and it closes its copy of
this process's end of the pipe, so that it sees the end of its input, and
exits, when this process goes, however it goes.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import traceback
from typing import TYPE_CHECKING, Any, Protocol

from osdoctor.model import Trace
from osdoctor.secrets.secretstream import Taught

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

__all__ = ["RunReceiver", "RunWorker", "WorkerFailed", "can_fork"]


class RunReceiver(Protocol):
    """What receives the finished runs of a log, and holds the log's result."""

    @property
    def result(self) -> Any: ...

    def finished(self, trace: Trace, first: int, last: int, taught: Taught | None) -> None: ...


class WorkerFailed(RuntimeError):
    """The child stopped before it gave its result back."""


def can_fork() -> bool:
    """A second core, and a start method that shares the knowledge already loaded."""
    if "fork" not in multiprocessing.get_all_start_methods():
        return False
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return cores >= 2


class RunWorker:
    """Stands for ``receiver`` from now on: each finished run goes to the child.
    :meth:`close` waits for the child's result; what the runs taught stays
    here, so no chain of ``Taught`` ever crosses the pipe."""

    def __init__(self, receiver: RunReceiver) -> None:
        # What this process buffered must not be written a second time by the child.
        sys.stdout.flush()
        sys.stderr.flush()
        context = multiprocessing.get_context("fork")
        runs_in, self._runs_out = context.Pipe(duplex=False)
        self._result_in, result_out = context.Pipe(duplex=False)
        result = receiver.result
        # By run index: the summaries past the kept ones taught nothing to keep.
        taught = [s.taught for s in result.summaries]
        self._taught = taught + [None] * (result.runs - len(taught))
        self._process = context.Process(
            target=_serve,
            args=(receiver, runs_in, result_out, (self._runs_out, self._result_in)),
            name="osdoctor-diagnosis",
            daemon=True,
        )
        self._process.start()
        runs_in.close()
        result_out.close()

    def finished(self, trace: Trace, first: int, last: int, taught: Taught | None) -> None:
        self._taught.append(taught)
        try:
            self._runs_out.send((trace, first, last))
        except (BrokenPipeError, ConnectionResetError):
            raise self._failure() from None

    def close(self) -> Any:
        """The receiver's result, as the child holds it at the end of the log."""
        try:
            self._runs_out.send(None)
            kind, value = self._result_in.recv()
        except (BrokenPipeError, ConnectionResetError, EOFError):
            raise self._failure() from None
        finally:
            self._runs_out.close()
        self._process.join()
        self._result_in.close()
        if kind != "result":
            raise _failed(value)
        for summary in value.summaries:
            summary.taught = self._taught[summary.index]
        return value

    def stop(self) -> None:
        """End the child now (an interrupt, an error here)."""
        if self._process.is_alive():
            self._process.terminate()
        self._process.join()
        self._runs_out.close()
        self._result_in.close()

    def _failure(self) -> WorkerFailed:
        try:
            kind, value = self._result_in.recv()
            message = value if kind == "failed" else "it stopped"
        except (EOFError, OSError):
            message = f"it stopped (exit {self._process.exitcode})"
        self.stop()
        return _failed(message)


def _failed(message: str) -> WorkerFailed:
    return WorkerFailed(f"the diagnosis of the log's runs failed: {message}")


def _serve(
    receiver: RunReceiver,
    runs_in: Connection,
    result_out: Connection,
    parents: tuple[Connection, Connection],
) -> None:
    for end in parents:
        end.close()
    try:
        while (item := runs_in.recv()) is not None:
            trace, first, last = item
            receiver.finished(trace, first, last, None)
        result = receiver.result
        for summary in result.summaries:
            summary.taught = None  # this process keeps them: see RunWorker
        sys.stdout.flush()  # what the runs wrote (JSON Lines), before the reader goes on
        result_out.send(("result", result))
    except (KeyboardInterrupt, EOFError):
        pass  # the reader is gone or interrupted: it says so itself
    except Exception:  # noqa: BLE001 - handed to the reader, which reports it
        result_out.send(("failed", traceback.format_exc(limit=-3)))
