"""An ordered map over worker processes forked from this one.

``osdoctor explain`` over many logs shares the logs among workers; each worker
is a fork of the process that loaded the knowledge, so nothing but the logs'
names goes to it and nothing but each log's part of the output comes back.
The function mapped is never pickled (a closure over the knowledge and the
command line's options is fine): the workers inherit it. Results come back in
the order of the items, so the output is the one a single process writes.

Only where ``fork`` is a start method (Linux, the BSDs, macOS by choice):
elsewhere ``map_in_order`` says so and the caller works alone.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

_T = TypeVar("_T")
_R = TypeVar("_R")

#: The function the workers apply: set before they are forked, inherited by them.
_work: Callable[[Any], Any] | None = None


def cpus() -> int:
    """The CPUs this process may run on: the default number of workers."""
    counted = getattr(os, "process_cpu_count", None)  # Python 3.13
    if counted is not None:
        return int(counted() or 1)
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def can_fork() -> bool:
    import multiprocessing  # only when there are workers to start

    return "fork" in multiprocessing.get_all_start_methods()


def map_in_order(work: Callable[[_T], _R], items: Sequence[_T], jobs: int) -> Iterator[_R] | None:
    """``map(work, items)`` done by up to ``jobs`` forked workers, each result as
    soon as it and those before it are done; None where this system cannot fork."""
    if not can_fork():
        return None
    return _mapped(work, items, max(1, min(jobs, len(items))))


def _mapped(work: Callable[[_T], _R], items: Sequence[_T], jobs: int) -> Iterator[_R]:
    import multiprocessing

    global _work
    # What this process buffered must not be written a second time by a worker.
    sys.stdout.flush()
    sys.stderr.flush()
    # What exists now lives on in every worker: kept out of the collector's sight, a
    # worker's collections do not write to (and so copy) the pages it shares.
    gc.freeze()
    _work = work
    pool = multiprocessing.get_context("fork").Pool(jobs)
    try:
        # Items a few at a time (each worker gets some eight turns): fewer round trips,
        # and a slow item still holds up only its share.
        chunk = max(1, len(items) // (jobs * 8))
        yield from pool.imap(_apply, items, chunksize=chunk)
        pool.close()
    finally:
        _work = None
        pool.terminate()
        pool.join()


def _apply(item: Any) -> Any:
    assert _work is not None  # forked after it was set
    return _work(item)
