"""How the facts of a run scale with its failed requests.

The facts layer judges every failed exchange once, from the end of the run
(was it recovered from: a retry that worked, a fresh token, the search by name
after an ID lookup?), so its time must grow linearly with the number of
failed requests. This prints the time of ``facts_of`` and the Python calls it
makes, per request, for runs of 10,000, 50,000 and 100,000 requests of four
kinds: ID lookups answered 404 then found by name, a 409 retried until it
worked, refused connections to one endpoint each, and a mix of all of them
with a fresh token after a 401 and a last request that never got an answer.

    PYTHONPATH=. python benchmarks/bench_facts.py [--sizes 10000,50000,100000]

A parsed log keeps the first and last exchanges of a long run and counts the
middle, so these traces are built directly, as a parser with no bound would
give them. Figures only; tests/test_facts_scaling.py checks the growth by
counting calls.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from osdoctor.facts import facts_of  # noqa: E402
from osdoctor.model import Exchange, Request, Response, Trace, TransportError  # noqa: E402

NOVA = "http://10.0.0.5:8774/v2.1"
IRONIC = "http://10.0.0.6:6385/v1"


def _answered(i: int, method: str, url: str, status: int, service: str, path: str) -> Exchange:
    return Exchange(
        i,
        Request(method, url, 2 * i + 1),
        Response(status, 2 * i + 2, last_line=2 * i + 2),
        service=service,
        path=path,
    )


def _lookup(i: int) -> list[Exchange]:
    sid = f"{i:08d}-0000-4000-8000-000000000000"
    return [
        _answered(i, "GET", f"{NOVA}/servers/{sid}", 404, "compute", f"/servers/{sid}"),
        _answered(i + 1, "GET", f"{NOVA}/servers?name=web-{i}", 200, "compute", "/servers"),
    ]


def _retry(i: int) -> list[Exchange]:
    url = f"{IRONIC}/nodes/node-{i // 2}"
    status = 409 if i % 2 == 0 else 200
    return [_answered(i, "PATCH", url, status, "baremetal", f"/nodes/node-{i // 2}")]


def _refused(i: int) -> list[Exchange]:
    ex = Exchange(i, Request("GET", f"http://10.1.{i // 250 % 250}.{i % 250}:8774/", 2 * i + 1))
    ex.error = TransportError("connection-refused", "[Errno 111] Connection refused", 2 * i + 2)
    ex.service, ex.path = "compute", "/"
    return [ex]


def _token(i: int) -> list[Exchange]:
    return [
        _answered(i, "GET", f"{NOVA}/flavors", 401, "compute", "/flavors"),
        _answered(i + 1, "POST", "http://10.0.0.4:5000/v3/auth/tokens", 201, "identity", "/"),
    ]


def _mixed(i: int) -> list[Exchange]:
    return [_lookup, _retry, _refused, _token][i % 4](i)


KINDS: dict[str, Callable[[int], list[Exchange]]] = {
    "lookups": _lookup,
    "retries": _retry,
    "refused": _refused,
    "mixed": _mixed,
}


def run_of(kind: str, requests: int) -> Trace:
    """A run of about ``requests`` exchanges of one kind, ending in a failure it
    did not recover from."""
    trace = Trace("bench")
    make = KINDS[kind]
    while len(trace.exchanges) < requests:
        trace.exchanges.extend(make(len(trace.exchanges)))
    last = len(trace.exchanges)
    if kind == "mixed":  # the log ends inside a request: the client hung
        trace.exchanges.append(Exchange(last, Request("GET", f"{NOVA}/servers", 2 * last + 1)))
    else:  # the one failure the run did not get past
        url = f"{NOVA}/flavors/missing"
        trace.exchanges.append(_answered(last, "GET", url, 404, "compute", "/flavors/missing"))
        trace.exit_code = 1
    return trace


def calls_of(trace: Trace) -> int:
    """How many Python and builtin calls ``facts_of`` makes on ``trace``: work
    counted, with no clock."""
    count = 0

    def tally(_frame: FrameType, event: str, _arg: Any) -> None:
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    sys.setprofile(tally)
    try:
        facts_of(trace)
    finally:
        sys.setprofile(None)
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,50000,100000")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"{'kind':8} {'requests':>9} {'seconds':>8} {'us/req':>7} {'calls/req':>9}")
    for kind in KINDS:
        for n in sizes:
            trace = run_of(kind, n)
            best = float("inf")
            for _ in range(3):
                start = time.perf_counter()
                facts_of(trace)
                best = min(best, time.perf_counter() - start)
            calls = calls_of(run_of(kind, min(n, 20_000)))
            per = calls / min(n, 20_000)
            print(f"{kind:8} {n:>9} {best:>8.3f} {best / n * 1e6:>7.1f} {per:>9.1f}")


if __name__ == "__main__":
    main()
