"""What is kept of a log that grows without bound, and the count of what is not.

A long wait repeats its round thousands of times and a ``--log-file`` kept for
days holds thousands of runs; memory must not grow with either. Three bounds:

- a run of repeating requests keeps its two ends (``FOLD_KEEP`` exchanges each)
  and folds its middle into one :class:`~osdoctor.model.Fold`, counted;
- exchanges, printed lines and tracebacks keep a window at the start and at the
  end of the log; those between are counted in one window fold and in the
  trace's problems;
- the fold key (:func:`fold_key`) says when two exchanges are the same request
  again: the timeline folds its rows by the very same key.

The limits are read when a parser is made (:class:`Limits`), so a test may
lower them for one parser.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from osdoctor.model import Exchange, Fold, Trace

#: Exchanges kept at each end of a run of repeating requests; the middle is folded.
FOLD_KEEP = 100
#: Longest period of a repeating run (a poll and its redirect hop: period two).
MAX_PERIOD = 8
#: Exchanges and messages kept at the start and at the end of a log; those between
#: are counted, not kept, so that memory does not grow with a log of many runs.
KEEP_FIRST = 1000
KEEP_LAST = 4000
KEEP_FIRST_MESSAGES = 2000
KEEP_LAST_MESSAGES = 8000
KEEP_FIRST_TRACEBACKS = 100
KEEP_LAST_TRACEBACKS = 400
DROP_AT_ONCE = 1000
WINDOW_PATTERN = "requests not kept (the log holds too many)"

FoldKey = tuple[str, str | None, str, int | None, str | None]


def fold_key(ex: Exchange) -> FoldKey:
    """What makes two exchanges the same request again (a poll, a retry)."""
    return (ex.request.method, ex.service, ex.path, ex.status, ex.error.kind if ex.error else None)


def describe(ex: Exchange) -> str:
    status = ex.error.kind if ex.error else str(ex.status)
    return f"{ex.request.method} {ex.path or ex.request.url} {status}"


def trim_middle(items: list[Any], first: int, last: int, chunk: int) -> int:
    """Bound a list that grows with the log: past ``first + last + chunk`` items,
    the ``chunk`` after the first ``first`` go. Returns how many went."""
    if len(items) <= first + last + chunk:
        return 0
    del items[first : first + chunk]
    return chunk


@dataclass(frozen=True)
class Limits:
    first: int = KEEP_FIRST
    last: int = KEEP_LAST
    first_messages: int = KEEP_FIRST_MESSAGES
    last_messages: int = KEEP_LAST_MESSAGES
    first_tracebacks: int = KEEP_FIRST_TRACEBACKS
    last_tracebacks: int = KEEP_LAST_TRACEBACKS
    chunk: int = DROP_AT_ONCE


class Retention:
    """The folds, windows and dropped counts of one trace as it is read."""

    def __init__(self, trace: Trace, limits: Limits) -> None:
        self.trace = trace
        self.limits = limits
        #: Period and length of the run of repeating requests at the end, and its fold.
        self.period = 0
        self.run = 0
        self.fold: Fold | None = None
        #: The one fold that counts the exchanges dropped between the two windows.
        self.window: Fold | None = None
        self.dropped_messages = 0
        self.dropped_tracebacks = 0

    def append(self, ex: Exchange) -> None:
        limits = self.limits
        exchanges = self.trace.exchanges
        exchanges.append(ex)
        if len(exchanges) > limits.first + limits.last + limits.chunk:
            self._count_dropped(exchanges[limits.first : limits.first + limits.chunk])
            trim_middle(exchanges, limits.first, limits.last, limits.chunk)

    def _count_dropped(self, gone: list[Exchange]) -> None:
        """Memory is bounded on a log of many runs (a ``--log-file`` kept for days):
        ``gone``, exchanges between the first and the last ones, are about to be
        dropped. Count them, with the runs folded among them, in one fold."""
        exchanges = self.trace.exchanges
        folds = self.trace.folds
        window = self.window
        if window is None:
            window = self.window = Fold(
                exchanges[self.limits.first - 1].index,
                0,
                gone[0].first_line,
                0,
                [WINDOW_PATTERN],
            )
        # Runs folded between the dropped exchanges are dropped with them.
        low, high = gone[0].index - 1, gone[-1].index
        kept_folds = []
        for fold in folds:
            if fold is not window and fold is not self.fold and low <= fold.after <= high:
                window.count += fold.count
                window.last_line = max(window.last_line, fold.last_line)
            else:
                kept_folds.append(fold)
        if not any(fold is window for fold in kept_folds):
            kept_folds.append(window)
            kept_folds.sort(key=lambda f: f.after)
        self.trace.folds = kept_folds
        window.count += len(gone)
        self.trace.dropped += len(gone)
        window.last_line = max(window.last_line, max(ex.last_line for ex in gone))

    def fold_repeats(self) -> bool:
        """Fold the middle of a run of repeating requests, keeping its two ends;
        False when the latest exchange broke the run (a new one may start).

        Called when a new request starts, so the latest exchange is complete.
        A run repeats with a period of up to eight requests (a poll and its
        redirect hop alternate with period two).
        """
        exchanges = self.trace.exchanges
        n = len(exchanges)
        last = fold_key(exchanges[-1])
        p = self.period
        if p and n > p and fold_key(exchanges[-1 - p]) == last:
            self.run += 1
        else:
            self.period = self.run = 0
            self.fold = None
            for p in range(1, min(MAX_PERIOD, n - 1) + 1):
                if fold_key(exchanges[-1 - p]) == last:
                    self.period, self.run = p, 1
                    break
            return False
        if self.run <= 2 * FOLD_KEEP:
            return True
        victim = exchanges.pop(n - 1 - FOLD_KEEP)
        fold = self.fold
        if fold is None:
            before = exchanges[n - 2 - FOLD_KEEP]
            fold = self.fold = Fold(
                before.index,
                0,
                victim.first_line,
                victim.last_line,
                [describe(e) for e in exchanges[-self.period :]],
            )
            self.trace.folds.append(fold)
        fold.count += 1
        fold.last_line = max(fold.last_line, victim.last_line)
        return True

    def trim_messages(self) -> None:
        limits = self.limits
        self.dropped_messages += trim_middle(
            self.trace.messages, limits.first_messages, limits.last_messages, limits.chunk
        )

    def trim_tracebacks(self) -> None:
        limits = self.limits
        self.dropped_tracebacks += trim_middle(
            self.trace.tracebacks, limits.first_tracebacks, limits.last_tracebacks, 100
        )

    def problems(self) -> list[str]:
        """What the trace says of what it did not keep."""
        limits = self.limits
        out = []
        if self.window is not None:
            out.append(
                f"the log holds more requests than are kept: the {self.window.count:,} "
                f"between the first {limits.first:,} and the last {limits.last:,} were "
                "counted, not kept"
            )
        if self.dropped_messages:
            out.append(
                f"{self.dropped_messages:,} printed lines between the first "
                f"{limits.first_messages:,} and the last {limits.last_messages:,} were not kept"
            )
        if self.dropped_tracebacks:
            out.append(
                f"{self.dropped_tracebacks:,} tracebacks between the first "
                f"{limits.first_tracebacks:,} and the last {limits.last_tracebacks:,} "
                "were not kept"
            )
        return out
