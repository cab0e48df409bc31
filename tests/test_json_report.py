"""The JSON report: the catalogue's contract on every fixture, and the facts a
script reads without the text formats (the command typed, the decisive
failure with its service's words and request id, the transport's cause, where
a traceback shows in the client's code)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from osdoctor.kb.loader import KnowledgeBase, load_knowledge
from osdoctor.render.json_report import render_json
from tests.helpers.explained import report_of

LOGS = Path(__file__).resolve().parent / "fixtures" / "logs"
FIXTURES = sorted(p.name.removesuffix(".log") for p in LOGS.glob("*.log"))

#: The fields the scenario catalogue's contract says must be present.
CONTRACT: dict[str, type | tuple[type, ...]] = {
    "osdoctor": str,
    "source": str,
    "command": (str, type(None)),
    "client": str,
    "exit_code": (int, type(None)),
    "outcome": str,
    "scenario": (dict, type(None)),
    "exchanges": list,
    "findings": list,
}
SCENARIO = ("id", "title", "branch", "seed", "section", "divergence")
EXCHANGE = ("index", "method", "url", "status", "line", "service")
FINDING = ("id", "severity", "title", "explanation", "next_steps", "evidence", "references")


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return load_knowledge(user=False)


def _json(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(render_json(report_of(LOGS / f"{name}.log")))
    return data


@pytest.mark.parametrize("name", FIXTURES)
def test_the_catalogue_contract_holds_with_the_facts_added(name: str, kb: KnowledgeBase) -> None:
    data = _json(name)
    for key, kind in CONTRACT.items():
        assert isinstance(data[key], kind), key
    assert data["outcome"] in ("success", "failure", "unknown")
    if data["scenario"] is not None:
        assert set(SCENARIO) <= set(data["scenario"])
    for ex in data["exchanges"]:
        assert set(EXCHANGE) <= set(ex)
    for finding in data["findings"]:
        assert set(FINDING) <= set(finding)
        assert finding["severity"] in ("error", "warning", "info")
    facts = data["facts"]
    failure = facts["failure"]
    if failure is not None:
        assert {"status", "service", "request_id", "fault", "transport", "evidence"} <= set(failure)
        for ev in failure["evidence"]:
            assert ev["line"] >= 1
    for tb in data["tracebacks"]:
        assert tb["origin"] in ("client", "server")


def test_the_decisive_failure_names_status_service_words_and_request_id(
    kb: KnowledgeBase,
) -> None:
    data = _json("generic.osc-port-create-409-ip-allocated")
    assert data["commands"][0]["text"].startswith("openstack port create --network")
    assert data["commands"][0]["client"] == "openstackclient"
    failure = data["facts"]["failure"]
    assert (failure["status"], failure["service"], failure["service_name"]) == (
        409,
        "network",
        "Neutron",
    )
    assert failure["fault"]["message"].startswith("IP address 10.0.0.5 already allocated")
    assert (failure["fault"]["type"], failure["fault"]["shape"]) == (
        "IpAddressAlreadyAllocated",
        "neutron",
    )
    assert failure["request_id"].startswith("req-")
    assert (failure["method"], failure["path"], failure["resource"]) == (
        "POST",
        "/v2.0/ports",
        "port",
    )


def test_the_transport_failure_says_its_kind_host_and_the_library_words(
    kb: KnowledgeBase,
) -> None:
    transport = _json("osc.auth.keystone-unreachable-tls")["facts"]["failure"]["transport"]
    assert transport["kind"] == "tls-version"
    assert transport["host"] == "127.0.0.1"
    assert transport["detail"] == "wrong version number"
    assert transport["url"].startswith("https://127.0.0.1:")


def test_a_traceback_names_its_origin_and_the_frame_in_the_client(kb: KnowledgeBase) -> None:
    data = _json("heat.software-deployment.tempurl-attributeerror")
    last = data["tracebacks"][-1]
    assert (last["type"], last["origin"]) == ("AttributeError", "client")
    frame = last["client_frame"]
    assert frame["file"].endswith("heatclient/common/deployment_utils.py")
    assert frame["function"] == "create_swift_client" and frame["lineno"] > 0
    exc = data["facts"]["exception"]
    assert exc["package"] == "heatclient"
    assert exc["frame"].startswith("heatclient/common/deployment_utils.py:")


def test_retries_and_who_authenticated(kb: KnowledgeBase) -> None:
    data = _json("ironic.conflict-retry.exhausted-409")
    assert data["facts"]["attempts"] == "6 of 6"
    assert data["facts"]["auth"].get("user")
