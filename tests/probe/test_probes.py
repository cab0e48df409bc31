"""Each probe confirms on a stub that reproduces its fault and refutes on one that does not."""

from __future__ import annotations

from osdoctor.lab.stub import Stub
from osdoctor.probe.checks import CONFIRMED, COULD_NOT_CHECK, NOT_REPRODUCED

from .conftest import cloud_of, probe, stub_with, trace_of

HEAT = "/heat-api/v1/8c1e5f0a2b7d4e39a6f4c2d1b0e9a8f7"


def test_keystone_reachable_confirms_when_nothing_listens() -> None:
    stub = Stub()
    stub.start()
    trace, cloud = trace_of(stub), cloud_of(stub)
    stub.stop()
    outcome, ctx = probe("keystone-reachable", stub, trace, cloud)
    assert outcome.status == CONFIRMED, outcome
    assert "cannot be reached" in outcome.detail
    assert [s.method for s in ctx.sent] == ["GET"]


def test_keystone_reachable_refutes_and_sends_no_credentials() -> None:
    with Stub() as stub:
        outcome, _ = probe("keystone-reachable", stub, trace_of(stub), cloud_of(stub))
        assert outcome.status == NOT_REPRODUCED, outcome
        assert [(r.method, r.body) for r in stub.requests] == [("GET", b"")]


def test_keystone_credentials_confirms_a_refusal() -> None:
    with stub_with(auth="refuse") as stub:
        outcome, _ = probe("keystone-credentials", stub, trace_of(stub), cloud_of(stub))
        assert outcome.status == CONFIRMED, outcome
        assert "refused" in outcome.detail


def test_keystone_credentials_refutes_when_a_token_is_issued() -> None:
    with Stub() as stub:
        outcome, _ = probe("keystone-credentials", stub, trace_of(stub), cloud_of(stub))
        assert outcome.status == NOT_REPRODUCED, outcome
        assert "the OS_* environment variables" in outcome.detail


def test_catalog_endpoint_confirms_a_missing_service() -> None:
    with stub_with(services={"baremetal": None}) as stub:
        outcome, _ = probe(
            "catalog-endpoint",
            stub,
            trace_of(stub),
            cloud_of(stub),
            {"service": "baremetal", "interface": "public"},
        )
        assert outcome.status == CONFIRMED, outcome
        assert "still has no public baremetal endpoint" in outcome.detail


def test_catalog_endpoint_refutes_when_listed() -> None:
    with Stub() as stub:
        outcome, _ = probe(
            "catalog-endpoint",
            stub,
            trace_of(stub),
            cloud_of(stub),
            {"service": "baremetal", "interface": "public"},
        )
        assert outcome.status == NOT_REPRODUCED, outcome
        assert stub.url("baremetal") in outcome.detail


LOOKUP = ("GET", f"{HEAT}/stacks/web", 302, "orchestration", "/stacks/web")


def test_heat_redirect_confirms_a_302_without_location() -> None:
    route = {
        "service": "orchestration",
        "method": "GET",
        "path": "/stacks/web",
        "answers": [{"status": 302, "body": "<html>Found</html>"}],
    }
    with stub_with([route]) as stub:
        outcome, _ = probe("heat-redirect", stub, trace_of(stub, LOOKUP), cloud_of(stub))
        assert outcome.status == CONFIRMED, outcome
        assert "without a Location" in outcome.detail
        lookups = [r for r in stub.requests if r.path.endswith("/stacks/web")]
        assert [r.method for r in lookups] == ["GET"]
        assert lookups[0].header("X-Auth-Token")


def test_heat_redirect_refutes_a_302_with_location() -> None:
    route = {
        "service": "orchestration",
        "method": "GET",
        "path": "/stacks/web",
        "answers": [{"status": 302, "headers": {"Location": "{url.orchestration}/stacks/web/abc"}}],
    }
    with stub_with([route]) as stub:
        outcome, _ = probe("heat-redirect", stub, trace_of(stub, LOOKUP), cloud_of(stub))
        assert outcome.status == NOT_REPRODUCED, outcome
        assert "/stacks/web/abc" in outcome.detail
        assert not any("/stacks/web/abc" in r.path for r in stub.requests), "followed"


IRONIC = ("POST", "/baremetal/v1/nodes", 503, "baremetal", "/v1/nodes")


def test_ironic_version_headers_confirm_when_missing() -> None:
    with stub_with(ironic={"headers": False}) as stub:
        outcome, _ = probe("ironic-version-headers", stub, trace_of(stub, IRONIC), None)
        assert outcome.status == CONFIRMED, outcome
        assert "X-OpenStack-Ironic-API-Minimum-Version" in outcome.detail
        assert [(r.method, r.path) for r in stub.requests] == [("GET", "/baremetal/v1")]


def test_ironic_version_headers_refute_when_present() -> None:
    with Stub() as stub:
        outcome, _ = probe("ironic-version-headers", stub, trace_of(stub, IRONIC), None)
        assert outcome.status == NOT_REPRODUCED, outcome
        assert "1.1 to 1.115" in outcome.detail


def test_retry_after_confirms_a_503_with_retry_after() -> None:
    route = {
        "service": "baremetal",
        "method": "GET",
        "path": "/v1/nodes",
        "answers": [
            {
                "status": 503,
                "headers": {"Retry-After": "5"},
                "fault": {"style": "ironic", "message": "busy"},
            }
        ],
    }
    with stub_with([route]) as stub:
        trace = trace_of(stub, IRONIC, headers={1: "Retry-After: 5"})
        outcome, _ = probe("retry-after", stub, trace, cloud_of(stub))
        assert outcome.status == CONFIRMED, outcome
        assert "Retry-After: 5" in outcome.detail
        gets = [r for r in stub.requests if r.path == "/baremetal/v1/nodes"]
        assert [r.method for r in gets] == ["GET"], "the failing POST is never repeated"


def test_retry_after_refutes_when_the_service_answers() -> None:
    route = {
        "service": "baremetal",
        "method": "GET",
        "path": "/v1/nodes",
        "answers": [{"body": {"nodes": []}}],
    }
    with stub_with([route]) as stub:
        trace = trace_of(stub, IRONIC, headers={1: "Retry-After: 5"})
        outcome, _ = probe("retry-after", stub, trace, cloud_of(stub))
        assert outcome.status == NOT_REPRODUCED, outcome
        assert "answers 200" in outcome.detail


def test_a_probe_without_its_target_in_the_log_cannot_check() -> None:
    from osdoctor.probe.checks import plan_probe
    from osdoctor.probe.scope import Scope

    with Stub() as stub:
        trace = trace_of(stub)
        reason = plan_probe("heat-redirect", {}, trace, Scope.from_trace(trace), None)
        assert isinstance(reason, str) and "no Heat name lookup" in reason
        assert COULD_NOT_CHECK == "could-not-check"
        assert stub.requests == []
