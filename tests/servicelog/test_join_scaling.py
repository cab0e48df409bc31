"""The join costs work linear in the run and its records, counted, not timed: a run
of many failed requests, each with its records by id and a record written near
its answer without one, costs four times the calls for four times the size."""

from __future__ import annotations

from benchmarks.bench_facts import calls_of
from osdoctor.lab.servicelogs import BASE
from osdoctor.model import Exchange, Request, Response, Trace
from osdoctor.servicelog.record import ServiceRecord

DATE = "Date: Sun, 01 Nov 2026 12:00:00 GMT"


def run_of(n: int) -> Trace:
    """``n`` failed requests to nova, each answered 500 with its request id and
    ``Date``; per request an ERROR of its own, and a warning without context."""
    exchanges = []
    records = []
    for i in range(n):
        rid = f"req-00000000-0000-4000-8000-{i:012x}"
        exchanges.append(
            Exchange(
                i,
                Request("GET", f"http://10.0.0.5:8774/v2.1/servers/{i}", 2 * i + 1),
                Response(500, 2 * i + 2, raw_headers=f"{DATE} x-openstack-request-id: {rid}"),
                service="compute",
                path=f"/servers/{i}",
            )
        )
        for level, request_id, line in (("ERROR", rid, 2 * i + 1), ("WARNING", "", 2 * i + 2)):
            records.append(
                ServiceRecord(
                    line=line,
                    last_line=line,
                    source="/var/log/nova/nova-api.log",
                    format="oslo",
                    level=level,  # type: ignore[arg-type]
                    logger="nova.api.openstack.wsgi",
                    service="nova-api",
                    message="Unexpected exception in API method",
                    text="...",
                    time=BASE + i * 0.001,
                    request_id=request_id,
                )
            )
    return Trace(exchanges=exchanges, service_records=records)


def test_the_join_grows_linearly_with_the_run() -> None:
    small, large = calls_of(run_of(500)), calls_of(run_of(2000))
    assert large <= 4 * small + 2000, (small, large)
