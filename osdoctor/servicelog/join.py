"""The join: which service records belong to which of the client's exchanges.

The strongest tie is the request id: the id a service returns in
``x-openstack-request-id`` is the one its log writes in the record's context,
and a service it called on the client's behalf (Glance for Nova, Neutron for
Nova) writes it as the *global* request id. A traceback the service sent as
its answer's body is its own words about that exchange. Without an id (a
paste of a TRACE line, keystonemiddleware's records, which precede the
request's context, HAProxy's lines) a record is tied by its service and its
time to a failed exchange, or by having been pasted beside the client's
output: weaker, and the report says so. A service that died before the
request (a ``CRITICAL`` at start-up) is tied by its last words before it.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal, get_args

from osdoctor import regex
from osdoctor.model import Exchange, Trace
from osdoctor.servicelog.pasted import answer_record, pasted_records
from osdoctor.servicelog.record import ServiceRecord, at_least
from osdoctor.servicelog.service_names import answers_for, family
from osdoctor.servicelog.shapes import epoch

JoinKind = Literal["request-id", "global-request-id", "answer", "time", "last-words", "pasted"]
"""How a record was tied to the run, strongest first (see the module's docstring)."""
JOIN_KINDS: tuple[JoinKind, ...] = get_args(JoinKind)
#: The kinds that name the request itself: the strongest evidence.
BY_ID: frozenset[JoinKind] = frozenset({"request-id", "global-request-id", "answer"})
_STRENGTH = {kind: rank for rank, kind in enumerate(JOIN_KINDS)}

#: Seconds before the answer's ``Date`` a record of the failed request may be
#: written (a slow request), and after it (clocks a little apart).
BEFORE, AFTER = 120.0, 3.0
#: After an earlier answer's ``Date``, for an answer that has none (a load
#: balancer's own page): the request came a little later.
LATER = 60.0
#: Joined records kept at most: the strongest, then the first ones.
MAX_JOINED = 400
#: Failed exchanges tied by time, at most (the last ones).
TIMED = 20
_HEADERS = ("x-openstack-request-id", "x-compute-request-id", "openstack-request-id")
_REQUEST_ID = regex.compile(r"\breq-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")
_PRINTED_ID = regex.compile(
    r"Request-ID: (req-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"
)
_HTTP_DATE = regex.compile(
    r"\w{3}, (\d\d) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (\d{4}) "
    r"(\d\d):(\d\d):(\d\d) GMT"
)
_MONTHS = {
    m: i
    for i, m in enumerate(
        ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), 1
    )
}
#: Offsets tried for a record whose zone is not known (the host's local time),
#: nearest first: whole and half hours up to 14 h either way.
_OFFSETS = sorted((h * 1800 for h in range(-28, 29)), key=abs)


@dataclass(slots=True)
class Joined:
    """A service record, tied to the run."""

    record: ServiceRecord
    kind: JoinKind
    exchange: int | None = None
    """``index`` of the exchange it belongs to, when one is known."""
    request_id: str = ""
    """The client's request id it was tied by, for the ``request-id`` kinds."""

    @property
    def by_id(self) -> bool:
        return self.kind in BY_ID

    @property
    def strength(self) -> int:
        """0 for the strongest tie, higher for weaker ones."""
        return _STRENGTH[self.kind]


def request_id_of(ex: Exchange) -> str:
    """The request id the answer names, "" when it names none."""
    resp = ex.response
    if resp is None:
        return ""
    if resp.request_id:
        return resp.request_id.strip()
    if "equest-id" not in resp.raw_headers and "EQUEST-ID" not in resp.raw_headers:
        return ""
    for name in _HEADERS:
        value = resp.header(name)
        if value:
            return value.strip()
    return ""


def answer_time(ex: Exchange) -> float | None:
    """Seconds since the epoch of the answer's ``Date`` header, when it has one."""
    resp = ex.response
    if resp is None or "GMT" not in resp.raw_headers:
        return None
    m = _HTTP_DATE.search(resp.raw_headers)
    if m is None:
        return None
    d, mon, y, h, mi, s = m.groups()
    return epoch(int(y), _MONTHS[mon], int(d), int(h), int(mi), int(s))


def answer_times(exchanges: list[Exchange]) -> dict[int, tuple[float, bool]]:
    """Per exchange index: when it was answered, and whether that is its own
    ``Date`` (True) or the last one before it (an answer without one)."""
    out: dict[int, tuple[float, bool]] = {}
    last: float | None = None
    for ex in exchanges:
        when = answer_time(ex)
        if when is not None:
            last = when
            out[ex.index] = (when, True)
        elif last is not None:
            out[ex.index] = (last, False)
    return out


def _traceback_answer(ex: Exchange) -> bool:
    """A 5xx whose body is a Python traceback: the service's own words."""
    resp = ex.response
    if resp is None or resp.status is None or resp.status < 500 or resp.body is None:
        return False
    return "Traceback (most recent" in (resp.body.text or "")


def _failed(ex: Exchange) -> bool:
    return ex.error is not None or (ex.status is not None and ex.status >= 400) or in_error(ex)


def in_error(ex: Exchange) -> bool:
    """An answer showing its resource in ERROR (a server, a volume, a stack): the
    failure happened in the services behind the API, any of them."""
    resp = ex.response
    if resp is None or resp.status is None or resp.status >= 300 or resp.body is None:
        return False
    text = resp.body.text or ""
    return '"status": "ERROR"' in text or '"status": "error"' in text


def join(trace: Trace, records: Iterable[ServiceRecord] | None = None) -> list[Joined]:
    """The records of ``trace`` (those pasted in it, and ``trace.service_records``
    read from files) tied to its exchanges, strongest first."""
    pasted = pasted_records(trace)
    given = list(trace.service_records if records is None else records)
    exchanges = trace.exchanges
    answers = [ex for ex in exchanges if _traceback_answer(ex)]
    if not pasted and not given and not answers:
        return []
    by_id: dict[str, Exchange] = {}
    for ex in exchanges:
        rid = request_id_of(ex)
        if rid:
            by_id[rid] = ex
    printed = printed_ids(trace)
    failed = [ex for ex in exchanges if _failed(ex)]
    last_failed = failed[-1].index if failed else None
    starts = [ex.request.line for ex in exchanges]
    out: list[Joined] = []
    loose: list[ServiceRecord] = []
    for record in [*pasted, *given]:
        tie = _by_id(record, by_id, printed, last_failed)
        if tie is None and not record.source and record.format == "python":
            tie = _in_answer(record, exchanges, starts)
        if tie is not None:
            out.append(tie)
        else:
            loose.append(record)
    for ex in answers:
        assert ex.response is not None and ex.response.body is not None
        found = answer_record(ex.response.body, "")
        if found is not None:
            out.append(Joined(found, "answer", ex.index, request_id_of(ex)))
    timed = [r for r in loose if r.time is not None and at_least(r.level, "WARNING")]
    times = answer_times(exchanges) if timed else {}
    tied: set[int] = set()
    # The last failed exchanges only: a run of ten thousand retries is tied by
    # time to its records once, not ten thousand times.
    for ex in failed[-TIMED:] if timed else ():
        for record in _by_time(ex, timed, times.get(ex.index)):
            if id(record) not in tied:
                tied.add(id(record))
                out.append(Joined(record, "time", ex.index))
        last = _last_words(ex, timed, tied, times.get(ex.index))
        if last is not None:
            tied.add(id(last))
            out.append(Joined(last, "last-words", ex.index))
    for joined in _before_untimed(out, loose, tied):
        out.append(joined)
    ids = bool(by_id or printed)
    tied.update(id(j.record) for j in out)
    for record in pasted:
        if id(record) in tied:
            continue
        if record.request_id and ids:
            continue  # another request's record
        # Whatever its level: the poster chose the line (a scheduler's INFO
        # filter results, its DEBUG "Starting with 0 host(s)"); the rules say
        # which levels they read.
        out.append(Joined(record, "pasted", last_failed))
    out.sort(key=lambda j: (j.strength, j.record.source, j.record.line))
    return out[:MAX_JOINED]


def printed_ids(trace: Trace) -> set[str]:
    """Request ids the client printed without an exchange: the ``(Request-ID:
    req-...)`` of its error line, any id of an error it printed. Not the ids of a
    service's own lines pasted beside it: those are the records themselves."""
    found: set[str] = set()
    for m in trace.messages:
        if "req-" not in m.text:
            continue
        if m.kind in ("error", "clean_up"):
            found.update(_REQUEST_ID.findall(m.text))
        elif m.kind in ("text", "warning"):
            found.update(_PRINTED_ID.findall(m.text))
    return found


def _by_id(
    record: ServiceRecord, by_id: dict[str, Exchange], printed: set[str], last_failed: int | None
) -> Joined | None:
    """A record tied by its request id or global request id; one the client only
    printed (its error line's ``Request-ID``) is of the last failed exchange."""
    ties: tuple[tuple[str, JoinKind], ...] = (
        (record.request_id, "request-id"),
        (record.global_request_id, "global-request-id"),
    )
    for rid, kind in ties:
        if not rid:
            continue
        ex = by_id.get(rid)
        if ex is not None:
            return Joined(record, kind, ex.index, rid)
        if rid in printed:
            return Joined(record, kind, last_failed, rid)
    return None


def _in_answer(
    record: ServiceRecord, exchanges: list[Exchange], starts: list[int]
) -> Joined | None:
    """A traceback the parser read just after a 5xx answer's line, before the next
    request: the answer's body (``RESP BODY: Traceback ...``). ``starts``: each
    exchange's request line, in order."""
    at = bisect_left(starts, record.line)
    if at == 0:
        return None
    ex = exchanges[at - 1]
    if ex.status is None or ex.status < 500 or ex.response is None:
        return None
    if record.line - max(ex.response.line, ex.response.last_line) > 2:
        return None
    return Joined(record, "answer", ex.index, request_id_of(ex))


def _same_service(record: ServiceRecord, ex: Exchange) -> bool:
    """Whether the record is of the service that answered the exchange (a record
    whose writer is unknown is of none; HAProxy's lines name the request)."""
    if record.format in ("haproxy", "nginx", "uwsgi") and record.path:
        return ex.request.url.split("?")[0].endswith(record.path.split("?")[0])
    if not record.service or not family(record.service):
        return False
    if in_error(ex):
        return True  # the resource failed somewhere behind the API
    return answers_for(record.service, ex.service) if ex.service else True


def _candidates(record: ServiceRecord, when: float) -> list[float]:
    """The record's time as the answer's clock may read it: as written when its
    zone is known, else at each whole or half hour away (the host's zone)."""
    t = record.time
    assert t is not None
    if record.yearless:
        # A syslog time, read in 2000: the same day and time in the answer's year.
        moved = _in_year(t, when)
        if moved is None:
            return []
        t = moved
    if record.utc:
        return [t]
    return [t - offset for offset in _OFFSETS]


def _in_year(t: float, when: float) -> float | None:
    """``t`` (read in 2000) on the same day and time of ``when``'s year; None for a
    29 February that year has not."""
    stamp = datetime.fromtimestamp(t, UTC)
    try:
        moved = stamp.replace(year=datetime.fromtimestamp(when, UTC).year)
    except ValueError:
        return None
    return moved.timestamp()


def _by_time(
    ex: Exchange, records: list[ServiceRecord], answered: tuple[float, bool] | None
) -> list[ServiceRecord]:
    """Records of the exchange's service written while it was answered: at the
    offset nearest to none that gives any (one zone for all of them)."""
    if answered is None:
        return []
    when, own = answered
    after = AFTER if own else LATER
    mine = [r for r in records if _same_service(r, ex)]
    if not mine:
        return []
    if ex.status is not None:
        mine = [r for r in mine if r.status is None or r.status == ex.status]
    for index in range(len(_OFFSETS)):
        hits = []
        for record in mine:
            candidates = _candidates(record, when)
            t = candidates[min(index, len(candidates) - 1)]
            if when - BEFORE <= t <= when + after:
                hits.append(record)
        if hits:
            return hits
        if all(r.utc for r in mine):
            break
    return []


#: Records without a time tied to a time-tied one of the same file, at most.
UNTIMED = 5


def _before_untimed(out: list[Joined], loose: list[ServiceRecord], tied: set[int]) -> list[Joined]:
    """Records a file holds without a time (a bare traceback, uWSGI's "unable to
    load app") just before a record tied by time: what the program printed
    before it served the request. Tied as weakly as that record."""
    untimed: dict[str, list[ServiceRecord]] = {}
    for record in loose:
        if record.time is None and record.source and at_least(record.level, "ERROR"):
            untimed.setdefault(record.source, []).append(record)
    if not untimed:
        return []
    found: list[Joined] = []
    for joined in list(out):
        if joined.kind != "time":
            continue
        before = [
            r
            for r in untimed.get(joined.record.source, [])
            if r.line < joined.record.line and id(r) not in tied
        ]
        for record in before[-UNTIMED:]:
            tied.add(id(record))
            found.append(Joined(record, "time", joined.exchange))
    return found


def _last_words(
    ex: Exchange,
    records: list[ServiceRecord],
    tied: set[int],
    answered: tuple[float, bool] | None,
) -> ServiceRecord | None:
    """The service's last CRITICAL before a request it did not answer (refused, or
    a load balancer's 502/503): it had stopped, and said why."""
    if not (ex.error is not None or ex.status in (502, 503, 504)):
        return None
    when = answered[0] + LATER if answered is not None else None
    found: ServiceRecord | None = None
    for record in records:
        if record.level != "CRITICAL" or id(record) in tied or not _same_service(record, ex):
            continue
        if when is not None and record.utc and record.time is not None and record.time > when:
            continue
        if found is None or (record.time or 0) >= (found.time or 0):
            found = record
    return found
