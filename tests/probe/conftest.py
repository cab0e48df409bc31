"""Shared pieces of the probe tests: the lab stub over real HTTP on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from osdoctor.lab import fakes
from osdoctor.lab.stub import Stub
from osdoctor.model import Trace
from osdoctor.probe.checks import Outcome, ProbeContext, plan_probe, run_probe
from osdoctor.probe.cloudconfig import CloudAuth, load_cloud_auth
from osdoctor.probe.scope import Scope
from tests.helpers.exchanges import make_exchange, make_trace


def stub_env(stub: Stub, password: str = fakes.PASSWORD) -> dict[str, str]:
    """The OS_* variables of an openrc for the stub, as the lab's clients get them."""
    return {
        "OS_AUTH_URL": stub.values["auth_url"],
        "OS_USERNAME": fakes.USER_NAME,
        "OS_PASSWORD": password,
        "OS_PROJECT_NAME": fakes.PROJECT_NAME,
        "OS_USER_DOMAIN_NAME": fakes.DOMAIN_NAME,
        "OS_PROJECT_DOMAIN_NAME": fakes.DOMAIN_NAME,
        "OS_REGION_NAME": fakes.REGION,
    }


def cloud_of(stub: Stub, **extra: str) -> CloudAuth:
    return load_cloud_auth(
        env={**stub_env(stub), **extra}, cwd=Path("/nonexistent"), home=Path("/nonexistent")
    )


def trace_of(
    stub: Stub,
    *exchanges: tuple[str, str, int | None, str | None, str],
    headers: Mapping[int, str] | None = None,
) -> Trace:
    """A parsed log of a run against ``stub``: (method, path under base, status, service,
    service path) per exchange; ``headers`` gives logged response headers by index."""
    auth = make_exchange(0, "/v3", url=stub.values["auth_url"], service="identity", line=1)
    return make_trace(
        auth,
        *(
            make_exchange(
                number,
                spath,
                status,
                method,
                url=stub.base_url + path,
                service=service,
                line=10 * number,
                headers=(headers or {}).get(number, ""),
            )
            for number, (method, path, status, service, spath) in enumerate(exchanges, start=1)
        ),
        catalog={s: [stub.url(s)] for s in stub.cloud.prefixes},
    )


def probe(
    name: str,
    stub: Stub,
    trace: Trace,
    cloud: CloudAuth | None,
    params: Mapping[str, str] | None = None,
) -> tuple[Outcome, ProbeContext]:
    scope = Scope.from_trace(trace)
    target = plan_probe(name, params or {}, trace, scope, cloud)
    assert not isinstance(target, str), target
    ctx = ProbeContext(trace, scope, cloud, None, timeout=5.0)
    try:
        return run_probe(name, ctx, target, params or {}), ctx
    finally:
        ctx.close()


@pytest.fixture
def outside() -> Iterator[Stub]:
    """A second listener that no log or catalog names: it must never get a request."""
    with Stub() as other:
        yield other


def stub_with(routes: list[dict[str, Any]] | None = None, **stub: Any) -> Stub:
    return Stub({"stub": stub, "routes": routes or []})
