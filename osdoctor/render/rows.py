"""Request rows: exchanges folded into what a person reads as one step.

One grouping for every front end (the TUI's timeline, the text and Markdown
reports): a redirect followed to its target is one row, identical requests in
a row (polls, retries; their query, such as an events marker, may differ) are
counted on one row, and requests the parser folded away are counted too.
Grouping is incremental: a live run or a 50,000-exchange log adds exchanges in
batches, and only the tail of the row list is ever recomputed.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

from osdoctor import regex
from osdoctor.model import Exchange
from osdoctor.parse.retention import fold_key

_ID_SEGMENT = regex.compile(
    r"^(?:[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}"
    r"|[0-9a-fA-F]{32}|\d+)$"
)


def template_path(path: str) -> str:
    """The path with ids replaced by ``{id}``: the shape the API documents."""
    return "/".join("{id}" if _ID_SEGMENT.match(part) else part for part in path.split("/"))


def status_class(ex: Exchange) -> str:
    """ "2xx".."5xx", "error" (no answer: refused, timeout...) or "pending"."""
    if ex.error is not None:
        return "error"
    status = ex.status
    if status is None:
        return "pending"
    return f"{status // 100}xx" if 100 <= status < 600 else "error"


SHORT_ERRORS = {"connection-refused": "refused", "connection": "no-conn"}


def status_text(ex: Exchange, short: bool = False) -> str:
    """The status code, or what happened instead (``refused`` when ``short``)."""
    if ex.error is not None:
        return SHORT_ERRORS.get(ex.error.kind, ex.error.kind) if short else ex.error.kind
    return str(ex.status) if ex.status is not None else "…"


@dataclass(slots=True)
class TimelineRow:
    """One line of the timeline: an exchange, a redirect hop, or a run of repeats."""

    first: Exchange
    """The first exchange shown (the 3xx of a redirect hop)."""
    last: Exchange
    """The last exchange folded in (the hop's target, the last poll)."""
    count: int = 1
    """Identical requests folded into this row (polls, retries)."""
    redirect: Exchange | None = None
    """The 3xx exchange, when this row is a redirect followed to its target."""
    folded: int = 0
    """Requests of this run that the parser folded away (counted, not kept)."""
    not_kept: int = 0
    """Other requests after this row that the parser counted but did not keep (the
    middle of a log of many runs)."""

    @property
    def shown(self) -> Exchange:
        """The exchange whose answer the row shows (the target of a hop)."""
        return self.last


class RowBuilder:
    """Folds exchanges into rows as they arrive.

    New exchanges are found by their ``index``, not their position: the parser
    may fold the middle of a long run of repeats out of its list (a memory
    bound), so positions shift while indices only grow. A row whose last
    exchange was still waiting for its answer is redone on the next update;
    every other row is final.
    """

    def __init__(self) -> None:
        self.rows: list[TimelineRow] = []
        self._firsts: list[int] = []  # exchange index of each row's first exchange
        self._last_index = -1
        self._open = False
        """The last row's last exchange had no answer yet when it was folded in."""

    def update(self, exchanges: list[Exchange]) -> None:
        """Fold in whatever ``exchanges`` holds beyond what was seen."""
        after = self._last_index
        if self.rows and self._open:
            # its answer may have come since: redo that row
            after = self._firsts.pop() - 1
            self.rows.pop()
        # A parser on another thread may fold or drop exchanges meanwhile: work on a copy.
        exchanges = list(exchanges)
        for ex in exchanges[bisect_right(exchanges, after, key=_index) :]:
            self._add(ex)

    def _add(self, ex: Exchange) -> None:
        self._open = status_class(ex) == "pending"
        gap = ex.index - self._last_index - 1 if self._last_index >= 0 else 0
        self._last_index = ex.index
        rows = self.rows
        if gap > 0 and rows:
            last = rows[-1]
            if fold_key(ex) in (fold_key(last.last), fold_key(last.first)):
                # The parser folded the middle of a long run out: count it on its row.
                last.folded += gap
            else:
                last.not_kept += gap
        if rows:
            last = rows[-1]
            if (
                ex.redirected_from is not None
                and last.count == 1
                and last.redirect is None
                and last.last.index == ex.redirected_from
            ):
                last.redirect = last.first
                last.last = ex
                self._fold_hop()
                return
            if (
                ex.redirected_from is None
                and last.redirect is None
                and fold_key(last.last) == fold_key(ex)
            ):
                last.last = ex
                last.count += 1
                return
        rows.append(TimelineRow(ex, ex))
        self._firsts.append(ex.index)

    def _fold_hop(self) -> None:
        """A poll that is redirected each time: fold the new hop into the one before."""
        rows = self.rows
        if len(rows) < 2:
            return
        hop, before = rows[-1], rows[-2]
        if (
            before.redirect is not None
            and hop.redirect is not None
            and fold_key(before.redirect) == fold_key(hop.redirect)
            and fold_key(before.last) == fold_key(hop.last)
        ):
            before.last = hop.last
            before.count += 1
            rows.pop()
            self._firsts.pop()

    def row_of(self, exchange_index: int) -> int:
        """The row holding the exchange whose ``index`` is ``exchange_index``."""
        return max(0, bisect_right(self._firsts, exchange_index) - 1)


def opening_row(builder: RowBuilder, decisive: int | None) -> int:
    """The row a read or finished run opens on: the one holding the exchange that
    decided it (``decisive``, its index: ``render.decisive``), else the last, where
    a run ends. Pure, so that every fixture's choice is checked without a screen."""
    if decisive is not None:
        return builder.row_of(decisive)
    return max(0, len(builder.rows) - 1)


def _index(ex: Exchange) -> int:
    return ex.index
