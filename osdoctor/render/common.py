"""What every report format shows the same way: the headline, grouped exchanges."""

from __future__ import annotations

from dataclasses import dataclass

from osdoctor.model import Exchange, Fold, Report


@dataclass(slots=True)
class Row:
    """A line of the request list: one request with its redirect hops, or a run of
    identical ones (polls, retries) counted in ``count``."""

    first: Exchange
    """The request as the client sent it."""
    last: Exchange
    """Where its redirects ended (``first`` itself when there was none)."""
    count: int
    fold: Fold | None = None
    """Set on the row that stands for the folded middle of a long run."""

    @property
    def status_text(self) -> str:
        def one(ex: Exchange) -> str:
            if ex.error is not None:
                return ex.error.kind
            return "no answer" if ex.status is None else str(ex.status)

        if self.last is self.first:
            return one(self.first)
        return f"{one(self.first)}→{one(self.last)}"


def _key(row: Row) -> tuple[object, ...]:
    f, last = row.first, row.last
    return (f.request.method, f.service, f.path, f.status, f.error.kind if f.error else None,
            last.path, last.status)


def group_exchanges(exchanges: list[Exchange], folds: list[Fold] | None = None) -> list[Row]:
    """One row per request with its redirect hops; consecutive identical rows (polls,
    retries) counted as one; the parser's folds (the middle of very long runs) as rows
    of their own."""
    after = {f.after: f for f in folds or []}
    rows: list[Row] = []
    for ex in exchanges:
        prev = rows[-1] if rows else None
        if prev is not None and prev.fold is None and ex.redirected_from == prev.last.index:
            prev.last = ex
        else:
            rows.append(Row(ex, ex, 1))
        fold = after.get(ex.index)
        if fold is not None:
            rows.append(Row(ex, ex, fold.count, fold))
    return _merge_runs(rows)


def _merge_runs(rows: list[Row]) -> list[Row]:
    merged: list[Row] = []
    for row in rows:
        last = merged[-1] if merged else None
        if (last is not None and row.fold is None and last.fold is None
                and _key(last) == _key(row)):
            last.count += row.count
            last.last = row.last
        else:
            merged.append(row)
    return merged


def fold_text(fold: Fold) -> str:
    return (f"… {fold.count} more requests repeating {' / '.join(fold.pattern)} "
            f"(lines {fold.first_line}-{fold.last_line}) …")


def headline(report: Report) -> str:
    t = report.trace
    exit_text = f"exit {t.exit_code}" if t.exit_code is not None else "exit code not in the log"
    return f"{t.command or '(command not in the log)'} — {report.outcome} ({exit_text})"


def short_path(ex: Exchange, width: int = 60) -> str:
    path = ex.path or ex.request.url
    if ex.query:
        path += "?" + ex.query
    return path if len(path) <= width else path[: width - 1] + "…"


def summary_line(report: Report) -> str:
    """One sentence on what happened, for the top of every format."""
    t = report.trace
    if not t.openstack_lines:
        return "Nothing from an OpenStack client was found in this input."
    errors = [f for f in report.findings if f.severity == "error"]
    if errors:
        return errors[0].title
    if report.outcome == "success":
        return "The command succeeded."
    if report.outcome == "unknown":
        return "The log ends before the command did: the outcome is unknown."
    return "The command failed; no rule explains it yet."
