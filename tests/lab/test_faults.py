"""Each fault style makes the body its service (or load balancer) really sends."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from osdoctor.lab import Stub
from osdoctor.lab.config import Fault
from osdoctor.lab.fault_bodies import fault_body, webob_body

from .test_stub import call

REQ = "req-00000000-0000-4000-8000-000000000001"


def body(style: str, status: int, message: str = "m", kind: str | None = None) -> Any:
    return fault_body(Fault(style=style, message=message, type=kind), status, REQ)[0]


def test_nova_and_cinder_key_follows_the_status() -> None:
    assert body("nova", 404) == {"itemNotFound": {"code": 404, "message": "m"}}
    assert body("nova", 400) == {"badRequest": {"code": 400, "message": "m"}}
    assert body("nova", 403) == {"forbidden": {"code": 403, "message": "m"}}
    assert body("nova", 413) == {"overLimit": {"code": 413, "message": "m"}}
    assert body("nova", 409) == {"conflictingRequest": {"code": 409, "message": "m"}}
    assert body("nova", 500) == {"computeFault": {"code": 500, "message": "m"}}
    assert body("nova", 406) == {"computeFault": {"code": 406, "message": "m"}}
    assert body("cinder", 413) == {"overLimit": {"code": 413, "message": "m"}}


def test_neutron_keystone_heat_ironic_shapes() -> None:
    assert body("neutron", 409, kind="OverQuota") == {
        "NeutronError": {"type": "OverQuota", "message": "m", "detail": ""}
    }
    assert body("keystone", 401) == {
        "error": {"code": 401, "message": "m", "title": "Unauthorized"}
    }
    heat = body("heat", 400, kind="StackValidationFailed")
    assert set(heat) == {"explanation", "code", "error", "title"}
    assert heat["error"] == {"message": "m", "traceback": None, "type": "StackValidationFailed"}
    inner = json.loads(body("ironic", 409)["error_message"])
    assert inner == {"faultstring": "m", "faultcode": "Client", "debuginfo": None}


def test_placement_errors_list_carries_the_request_id() -> None:
    errors = body("placement", 404, "No resource provider with uuid x found")["errors"]
    assert errors == [
        {
            "status": 404,
            "title": "Not Found",
            "detail": (
                "The resource could not be found.\n\n No resource provider with uuid x found  "
            ),
            "code": "placement.undefined_code",
            "request_id": REQ,
        }
    ]


def test_designate_barbican_octavia_shapes() -> None:
    assert body("designate", 404, "Could not find Zone", "zone_not_found") == {
        "code": 404, "type": "zone_not_found", "message": "Could not find Zone", "request_id": REQ,
    }  # fmt: skip
    assert body("barbican", 404, "Secret not found.") == {
        "code": 404, "title": "Not Found", "description": "Secret not found.",
    }  # fmt: skip
    assert body("octavia", 403, "Policy does not allow this request to be performed.") == {
        "faultcode": "Client",
        "faultstring": "Policy does not allow this request to be performed.",
        "debuginfo": None,
    }


def test_webob_picks_html_json_or_plain_from_accept() -> None:
    page, kind = webob_body(404, "No image found with ID x", "", "")
    assert kind.startswith("text/html")
    assert page == (
        "<html>\n <head>\n  <title>404 Not Found</title>\n </head>\n <body>\n"
        "  <h1>404 Not Found</h1>\n  No image found with ID x<br /><br />\n\n\n\n"
        " </body>\n</html>"
    )
    data, kind = webob_body(404, "No image found with ID x", "", "application/json")
    assert kind == "application/json"
    assert data == {
        "message": "No image found with ID x<br /><br />\n\n\n",
        "code": "404 Not Found",
        "title": "Not Found",
    }
    text, kind = webob_body(404, "No image found with ID x", "", "text/plain")
    assert kind.startswith("text/plain")
    assert text == "404 Not Found\n\nNo image found with ID x\n\n   "


@pytest.fixture
def stub() -> Iterator[Stub]:
    routes = [
        {"method": "GET", "path": f"/{style}/{status}", "answers": [
            {"status": status, "fault": {"style": style, "message": "m"}}
        ]}
        for style in ("haproxy", "nginx", "webob", "placement")
        for status in (502, 503, 504, 404)
    ]  # fmt: skip
    with Stub({"routes": routes}) as running:
        yield running


def test_haproxy_pages_are_byte_exact_without_openstack_headers(stub: Stub) -> None:
    status, headers, raw = call(stub, "GET", "/haproxy/503")
    assert status == 503
    assert raw == (
        b"<html><body><h1>503 Service Unavailable</h1>\n"
        b"No server is available to handle this request.\n</body></html>\n"
    )
    assert headers["Content-Type"] == "text/html"
    assert "x-openstack-request-id" not in headers
    assert "Server" not in headers
    assert len(call(stub, "GET", "/haproxy/503")[2]) == 107  # HAProxy's Content-length
    assert len(call(stub, "GET", "/haproxy/502")[2]) == 107
    assert call(stub, "GET", "/haproxy/504")[2].startswith(b"<html><body><h1>504 Gateway Time-out")
    assert len(call(stub, "GET", "/haproxy/504")[2]) == 92


def test_nginx_pages_name_nginx_with_its_reason_phrases(stub: Stub) -> None:
    status, headers, raw = call(stub, "GET", "/nginx/503")
    assert status == 503
    assert headers["Server"] == "nginx"
    assert "x-openstack-request-id" not in headers
    assert raw.startswith(b"<html>\r\n<head><title>503 Service Temporarily Unavailable</title>")
    assert raw.endswith(b"<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n")


def test_webob_negotiates_on_the_request_and_placement_repeats_its_request_id(stub: Stub) -> None:
    _, headers, raw = call(stub, "GET", "/webob/404", headers={"Accept": "application/json"})
    assert headers["Content-Type"] == "application/json"
    assert json.loads(raw)["code"] == "404 Not Found"
    _, headers, _ = call(stub, "GET", "/webob/404")
    assert headers["Content-Type"].startswith("text/html")
    _, headers, raw = call(stub, "GET", "/placement/404")
    assert json.loads(raw)["errors"][0]["request_id"] == headers["x-openstack-request-id"]
