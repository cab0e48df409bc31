"""The exchange that decided a failed run: where a front end opens first.

In order: the exchange of the decisive failure the facts read (the last
answer the run did not recover from, or the one that showed the resource in
ERROR); else a failing exchange that the
headline finding's evidence points at; else the last failing exchange that is
not a name lookup (the clients ask for ``GET .../<name>`` first and take its
404 as "look it up by name", so those 404s are routine); else an exchange the
evidence points at (a 200 carrying an ERROR state); else nothing (a client
crash that no exchange explains).
"""

from __future__ import annotations

from bisect import bisect_right

from osdoctor.facts import report_facts
from osdoctor.model import Exchange, Report
from osdoctor.render.common import headline_finding
from osdoctor.render.polls import answer_state


def failed(ex: Exchange) -> bool:
    """No answer, or an error status (4xx, 5xx)."""
    return ex.error is not None or (ex.status is not None and ex.status >= 400)


def _lookup(ex: Exchange) -> bool:
    return ex.request.method == "GET" and ex.status == 404


def _last_line(ex: Exchange) -> int:
    last = ex.last_line
    if ex.error is not None:
        last = max(last, ex.error.line)
    return last


def _holding(exchanges: list[Exchange], line: int) -> Exchange | None:
    position = bisect_right(exchanges, line, key=lambda ex: ex.first_line) - 1
    if position >= 0 and exchanges[position].first_line <= line <= _last_line(exchanges[position]):
        return exchanges[position]
    return None


def decisive_exchange(report: Report) -> Exchange | None:
    """The exchange to open a failed report on, or None (a success, a failure
    that no exchange shows)."""
    if report.outcome != "failure":
        return None
    exchanges = sorted(report.trace.exchanges, key=lambda ex: ex.first_line)
    facts = report_facts(report)
    failure = facts.failure
    if failure is not None:
        # an answer or no answer; a client-only failure points at a printed line
        ex = _holding(exchanges, failure.line)
        if ex is not None:
            return ex
    gone_bad = facts.async_failure
    if gone_bad is not None:
        # the command succeeded, the resource it showed is in ERROR: the answer saying so
        for ex in reversed(exchanges):
            if (answer_state(ex) or "").startswith(gone_bad.status):
                return ex
    first = headline_finding(report)
    named = [
        ex
        for ev in (first.evidence if first else [])
        if ev.in_log and (ex := _holding(exchanges, ev.line)) is not None
    ]
    for ex in named:
        if failed(ex):
            return ex
    for ex in reversed(exchanges):
        if failed(ex) and not _lookup(ex):
            return ex
    return named[0] if named else None
