"""The stub cloud over real HTTP on 127.0.0.1: what clients will meet."""

from __future__ import annotations

import http.client
import json
from typing import Any
from urllib.parse import urlsplit

import pytest

from osdoctor.lab import FAKE_SECRETS, Stub, fakes
from osdoctor.lab.config import ConfigError, parse_stub_config


def call(
    stub: Stub, method: str, url: str, body: Any = None, headers: dict[str, str] | None = None
) -> tuple[int, http.client.HTTPMessage, bytes]:
    """One request on its own connection; redirects are not followed."""
    parts = urlsplit(url if url.startswith("http") else stub.base_url + url)
    connection = http.client.HTTPConnection("127.0.0.1", parts.port, timeout=10)
    try:
        payload = None if body is None else json.dumps(body).encode()
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        connection.request(method, target, body=payload, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.headers, response.read()
    finally:
        connection.close()


def password_auth(user: str = fakes.USER_NAME, password: str = fakes.PASSWORD) -> dict[str, Any]:
    return {
        "auth": {
            "identity": {
                "methods": ["password"],
                "password": {
                    "user": {"name": user, "domain": {"name": "Default"}, "password": password}
                },
            },
            "scope": {"project": {"name": fakes.PROJECT_NAME, "domain": {"name": "Default"}}},
        }
    }


def test_token_and_catalog_point_every_service_at_the_stub(make_stub: Any) -> None:
    stub = make_stub()
    status, headers, body = call(stub, "POST", "/identity/v3/auth/tokens", password_auth())
    assert status == 201
    assert headers["X-Subject-Token"] == fakes.TOKEN
    catalog = {entry["type"]: entry for entry in json.loads(body)["token"]["catalog"]}
    assert set(catalog) == {
        "identity", "orchestration", "compute", "image", "network", "object-store", "baremetal",
    }  # fmt: skip
    heat = catalog["orchestration"]["endpoints"]
    assert {e["interface"] for e in heat} == {"public", "internal", "admin"}
    assert {e["url"] for e in heat} == {f"{stub.base_url}/heat-api/v1/{fakes.PROJECT_ID}"}
    assert stub.url("compute") == f"{stub.base_url}/compute/v2.1"


def test_catalog_prefixes_and_host_are_configurable(make_stub: Any) -> None:
    stub = make_stub(
        {
            "stub": {
                "host": "localhost",
                "services": {"orchestration": "/orchestration/v1/{project_id}", "image": None},
            }
        }
    )
    assert stub.base_url.startswith("http://localhost:")
    _, _, body = call(stub, "POST", "/identity/v3/auth/tokens", password_auth())
    catalog = {entry["type"]: entry for entry in json.loads(body)["token"]["catalog"]}
    assert "image" not in catalog
    urls = {e["url"] for e in catalog["orchestration"]["endpoints"]}
    assert urls == {f"{stub.base_url}/orchestration/v1/{fakes.PROJECT_ID}"}


def test_wrong_password_and_refusing_keystone_answer_401(make_stub: Any) -> None:
    stub = make_stub()
    status, _, body = call(stub, "POST", "/identity/v3/auth/tokens", password_auth(password="no"))
    assert status == 401
    assert json.loads(body)["error"]["title"] == "Unauthorized"
    refusing = make_stub({"stub": {"auth": "refuse"}})
    status, _, _ = call(refusing, "POST", "/identity/v3/auth/tokens", password_auth())
    assert status == 401


def test_version_documents_need_no_scripting(make_stub: Any) -> None:
    stub = make_stub()
    assert call(stub, "GET", "/identity")[0] == 300
    status, _, body = call(stub, "GET", "/compute/v2.1")
    assert status == 200
    assert json.loads(body)["version"]["version"] == "2.100"
    status, headers, _ = call(stub, "GET", "/baremetal/v1")
    assert status == 200
    assert headers["X-OpenStack-Ironic-API-Minimum-Version"] == "1.1"
    assert headers["X-OpenStack-Ironic-API-Maximum-Version"] == "1.115"


def test_ironic_refuses_a_version_above_its_maximum(make_stub: Any) -> None:
    stub = make_stub({"stub": {"ironic": {"max_version": "1.90"}}})
    too_new = {"X-OpenStack-Ironic-API-Version": "1.115"}
    status, headers, body = call(stub, "GET", "/baremetal/v1/nodes", headers=too_new)
    assert status == 406
    assert headers["X-OpenStack-Ironic-API-Maximum-Version"] == "1.90"
    assert "[1.1, 1.90]" in json.loads(json.loads(body)["error_message"])["faultstring"]


def test_queue_advances_and_its_last_answer_repeats(make_stub: Any) -> None:
    route = {
        "service": "orchestration",
        "method": "GET",
        "path": "/stacks/web/events",
        "answers": [{"body": {"events": []}, "times": 2}, {"status": 404}],
    }
    stub = make_stub({"routes": [route]})
    path = f"/heat-api/v1/{fakes.PROJECT_ID}/stacks/web/events"
    statuses = [call(stub, "GET", path)[0] for _ in range(4)]
    assert statuses == [200, 200, 404, 404]
    assert [r.answered_by for r in stub.requests] == ["scripted"] * 4


def test_an_exhausted_route_without_repeat_falls_through(make_stub: Any) -> None:
    route = {
        "method": "GET",
        "path": "/compute/v2.1/servers/x",
        "answers": [{"status": 500}],
        "repeat_last": False,
    }
    stub = make_stub({"routes": [route]})
    assert call(stub, "GET", "/compute/v2.1/servers/x")[0] == 500
    status, _, body = call(stub, "GET", "/compute/v2.1/servers/x")
    assert status == 404
    assert "itemNotFound" in json.loads(body)
    assert stub.unmatched()[0].path == "/compute/v2.1/servers/x"


def test_a_302_without_location_has_no_location(make_stub: Any) -> None:
    route = {
        "service": "orchestration",
        "method": "PUT",
        "path": "/stacks/web",
        "answers": [{"status": 302}],
    }
    stub = make_stub({"routes": [route]})
    status, headers, _ = call(stub, "PUT", f"/heat-api/v1/{fakes.PROJECT_ID}/stacks/web", {})
    assert status == 302
    assert "Location" not in headers
    assert headers["Date"] == fakes.FIXED_DATE


def test_placeholders_and_query_matching(make_stub: Any) -> None:
    routes = [
        {
            "service": "compute",
            "method": "GET",
            "path": "/servers/detail",
            "query": {"name": "{server}"},
            "answers": [
                {"status": 302, "headers": {"Location": "{url.compute}/elsewhere{request.query}"}}
            ],
        }
    ]
    stub = make_stub({"stub": {"vars": {"server": "db"}}, "routes": routes})
    status, headers, _ = call(stub, "GET", "/compute/v2.1/servers/detail?name=db&all=1")
    assert status == 302
    assert headers["Location"] == f"{stub.base_url}/compute/v2.1/elsewhere?name=db&all=1"
    assert call(stub, "GET", "/compute/v2.1/servers/detail?name=web")[0] == 404


def test_a_dropped_connection_gets_no_answer(make_stub: Any) -> None:
    route = {"method": "GET", "path": "/compute/v2.1/servers", "answers": [{"drop": True}]}
    stub = make_stub({"routes": [route]})
    with pytest.raises((http.client.RemoteDisconnected, ConnectionError)):
        call(stub, "GET", "/compute/v2.1/servers")
    assert stub.requests[-1].status is None


def test_requests_are_recorded_with_their_bodies(make_stub: Any) -> None:
    stub = make_stub()
    call(stub, "POST", "/identity/v3/auth/tokens", password_auth())
    recorded = stub.requests[-1]
    assert (recorded.method, recorded.status, recorded.answered_by) == ("POST", 201, "builtin")
    assert recorded.json()["auth"]["identity"]["methods"] == ["password"]


def test_fault_styles_shape_error_bodies(make_stub: Any) -> None:
    route = {
        "service": "orchestration",
        "method": "POST",
        "path": "/stacks",
        "answers": [
            {
                "status": 409,
                "fault": {"style": "heat", "message": "busy", "type": "ActionInProgress"},
            }
        ],
    }
    stub = make_stub({"routes": [route]})
    _, _, body = call(stub, "POST", f"/heat-api/v1/{fakes.PROJECT_ID}/stacks", {})
    fault = json.loads(body)
    assert fault["code"] == 409
    assert fault["title"] == "Conflict"
    assert fault["error"] == {"message": "busy", "traceback": None, "type": "ActionInProgress"}


def test_configuration_errors_name_the_key() -> None:
    with pytest.raises(ConfigError, match=r"routes\[0\]\.answers\[0\]: unknown key\(s\) stauts"):
        parse_stub_config({}, [{"method": "GET", "path": "/x", "answers": [{"stauts": 200}]}])
    with pytest.raises(ConfigError, match=r"stub\.auth"):
        parse_stub_config({"auth": "maybe"})


def test_fake_secrets_are_listed() -> None:
    assert fakes.PASSWORD in FAKE_SECRETS
    assert fakes.TOKEN in FAKE_SECRETS
