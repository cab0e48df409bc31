"""What every report format shows the same way: the headline, grouped exchanges."""

from __future__ import annotations

from dataclasses import dataclass

from osdoctor.model import Exchange, Report


@dataclass(slots=True)
class Row:
    """A line of the request list: one exchange, or a run of identical polls."""

    first: Exchange
    last: Exchange
    count: int

    @property
    def status_text(self) -> str:
        ex = self.last
        if ex.error is not None:
            return ex.error.kind
        if ex.status is None:
            return "no answer"
        return str(ex.status)


def _key(ex: Exchange) -> tuple[str, str | None, str, int | None, str | None]:
    return (ex.request.method, ex.service, ex.path, ex.status,
            ex.error.kind if ex.error else None)


def group_exchanges(exchanges: list[Exchange]) -> list[Row]:
    """Fold consecutive identical requests (polls, retries) into one counted row."""
    rows: list[Row] = []
    for ex in exchanges:
        if rows and _key(rows[-1].last) == _key(ex) and ex.redirected_from is None:
            rows[-1].last = ex
            rows[-1].count += 1
        else:
            rows.append(Row(ex, ex, 1))
    return rows


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
