"""The promises of ``osdoctor probe``, checked on the wire.

Read-only methods; hosts of the log only; no redirect followed, least of all
to a host outside the catalog; the credentials only in the token request to
the configured Keystone; the token only to hosts of the cloud's catalog.
"""

from __future__ import annotations

from typing import Any

import pytest

from osdoctor.lab import fakes
from osdoctor.lab.stub import RecordedRequest, Stub
from osdoctor.probe.checks import COULD_NOT_CHECK, NOT_REPRODUCED
from osdoctor.probe.guard import Blocked, Guard
from osdoctor.probe.scope import Scope, host_key, parse_maps

from .conftest import cloud_of, probe, stub_with, trace_of

HEAT = "/heat-api/v1/8c1e5f0a2b7d4e39a6f4c2d1b0e9a8f7"
LOOKUP = ("GET", f"{HEAT}/stacks/web", 302, "orchestration", "/stacks/web")
FAILED = ("POST", "/baremetal/v1/nodes", 503, "baremetal", "/v1/nodes")


def carries(request: RecordedRequest, secret: str) -> bool:
    text = request.body.decode("utf-8", "replace") + request.path + request.query
    return secret in text or any(secret in v for v in request.headers.values())


def test_a_heat_redirect_to_an_outside_host_is_not_followed(outside: Stub) -> None:
    route = {
        "service": "orchestration",
        "method": "GET",
        "path": "/stacks/web",
        "answers": [{"status": 302, "headers": {"Location": f"{outside.base_url}/x"}}],
    }
    with stub_with([route]) as stub:
        outcome, ctx = probe("heat-redirect", stub, trace_of(stub, LOOKUP), cloud_of(stub))
    assert outcome.status == NOT_REPRODUCED
    assert "not followed" in outcome.detail
    assert outside.requests == []
    assert all(host_key(s.url) == host_key(stub.base_url) for s in ctx.sent)


def test_a_retry_probe_redirected_outside_stays_put(outside: Stub) -> None:
    route = {
        "service": "baremetal",
        "method": "GET",
        "path": "/v1/nodes",
        "answers": [{"status": 307, "headers": {"Location": f"{outside.base_url}/v1/nodes"}}],
    }
    with stub_with([route]) as stub:
        outcome, _ = probe("retry-after", stub, trace_of(stub, FAILED), cloud_of(stub))
    assert outcome.status == NOT_REPRODUCED and "307" in outcome.detail
    assert outside.requests == []


def test_a_discovery_document_naming_another_host_moves_no_credentials(outside: Stub) -> None:
    version = {
        "id": "v3.14",
        "status": "stable",
        "updated": "2020-04-07T00:00:00Z",
        "links": [{"rel": "self", "href": f"{outside.base_url}/identity/v3/"}],
    }
    route = {
        "service": "identity",
        "method": "GET",
        "path": "/",
        "answers": [{"status": 300, "body": {"versions": {"values": [version]}}}],
    }
    with stub_with([route]) as stub:
        cloud = cloud_of(stub, OS_AUTH_URL=stub.url("identity"))
        probe("keystone-credentials", stub, trace_of(stub), cloud)
        with_password = [(r.method, r.path) for r in stub.requests if carries(r, fakes.PASSWORD)]
    assert outside.requests == []
    assert with_password in ([], [("POST", "/identity/v3/auth/tokens")])


def test_a_token_request_redirected_outside_is_not_followed(outside: Stub) -> None:
    route = {
        "service": "identity",
        "method": "POST",
        "path": "/v3/auth/tokens",
        "answers": [
            {"status": 307, "headers": {"Location": f"{outside.base_url}/identity/v3/auth/tokens"}}
        ],
    }
    with stub_with([route]) as stub:
        outcome, _ = probe("keystone-credentials", stub, trace_of(stub), cloud_of(stub))
    assert outcome.status == COULD_NOT_CHECK, outcome
    assert outside.requests == []


def test_credentials_and_token_go_only_where_they_belong() -> None:
    routes: list[dict[str, Any]] = [
        {
            "service": "orchestration",
            "method": "GET",
            "path": "/stacks/web",
            "answers": [{"status": 302}],
        },
        {
            "service": "baremetal",
            "method": "GET",
            "path": "/v1/nodes",
            "answers": [{"status": 503, "headers": {"Retry-After": "1"}}],
        },
    ]
    with stub_with(routes) as stub:
        trace = trace_of(stub, LOOKUP, FAILED)
        cloud = cloud_of(stub)
        for name in (
            "keystone-reachable",
            "keystone-credentials",
            "heat-redirect",
            "ironic-version-headers",
            "retry-after",
        ):
            probe(name, stub, trace, cloud)
        probe("catalog-endpoint", stub, trace, cloud, {"service": "compute"})
        seen = stub.requests
    assert {r.method for r in seen} <= {"GET", "HEAD", "POST"}
    for r in seen:
        is_token_url = r.method == "POST" and r.path == "/identity/v3/auth/tokens"
        assert r.method != "POST" or is_token_url, r
        assert is_token_url or not carries(r, fakes.PASSWORD), r
        assert not carries(r, fakes.TOKEN) or r.header("X-Auth-Token") == fakes.TOKEN
    assert sum(1 for r in seen if carries(r, fakes.PASSWORD)) >= 1
    assert any(r.header("X-Auth-Token") == fakes.TOKEN for r in seen)
    assert not any(r.header("X-Auth-Token") for r in seen if r.path.startswith("/identity"))


def test_the_token_is_not_sent_to_a_log_host_outside_the_catalog(outside: Stub) -> None:
    with Stub() as stub:
        trace = trace_of(stub)
        trace.exchanges[0].request.url = f"{outside.base_url}/heat-api/v1/p/stacks/web"
        trace.exchanges[0].service, trace.exchanges[0].path = "orchestration", "/stacks/web"
        trace.exchanges.append(trace_of(stub).exchanges[0])
        outcome, _ = probe("heat-redirect", stub, trace, cloud_of(stub))
    assert outcome.status == COULD_NOT_CHECK
    assert "not in the cloud's catalog" in outcome.detail
    assert outside.requests == []


def test_a_configured_keystone_the_log_does_not_name_is_never_contacted(outside: Stub) -> None:
    with Stub() as stub:
        outcome, ctx = probe("keystone-credentials", stub, trace_of(stub), cloud_of(outside))
        assert stub.requests == []
    assert outcome.status == COULD_NOT_CHECK and "not one the log names" in outcome.detail
    assert outside.requests == [] and ctx.sent == []


@pytest.mark.parametrize(
    "method,url,body,reason",
    [
        ("PUT", "http://h:80/stacks/x", b"", "not a read-only method"),
        ("DELETE", "http://h:80/stacks/x", b"", "not a read-only method"),
        ("POST", "http://h:80/v1/nodes", b"{}", "only request with a body"),
        ("GET", "http://other:80/", b"", "not a host the log names"),
        ("GET", "http://h:80/?password=SECRET", b"", "credentials go to Keystone"),
        ("POST", "http://h:80/identity/v3/auth/tokens", b"SECRET", None),
        ("GET", "http://h:80/x", b"", None),
    ],
)
def test_the_guard(method: str, url: str, body: bytes, reason: str | None) -> None:
    guard = Guard(Scope({"h:80"}), token_url_host="h:80", secrets=["SECRET"])
    if reason is None:
        guard.check(method, url, {}, body)
        assert guard.sent == []
    else:
        with pytest.raises(Blocked, match=reason):
            guard.check(method, url, {}, body)
        assert guard.sent[-1].blocked


def test_the_guard_keeps_the_token_to_catalog_hosts() -> None:
    guard = Guard(Scope({"h:80", "log-only:80"}), token="TOK", token_hosts={"h:80"})
    guard.check("GET", "http://h:80/x", {"X-Auth-Token": "TOK"}, b"")
    with pytest.raises(Blocked, match="catalog"):
        guard.check("GET", "http://log-only:80/x", {"X-Auth-Token": "TOK"}, b"")


def test_map_needs_explicit_ports() -> None:
    assert parse_maps(["127.0.0.1:47391=127.0.0.1:5000"]) == {"127.0.0.1:47391": "127.0.0.1:5000"}
    for bad in ("127.0.0.1=127.0.0.1:5000", "a:1", "http://a:1=b:2"):
        with pytest.raises(ValueError):
            parse_maps([bad])
