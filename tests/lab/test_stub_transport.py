"""The stub's transport failures over real sockets on 127.0.0.1: TLS with a
self-signed certificate, a refusing proxy, delayed, held and reset answers."""

from __future__ import annotations

import functools
import http.client
import json
import os
import socket
import ssl
import sys
import threading
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from osdoctor.lab import Stub, fakes
from osdoctor.lab.capture import _run, interrupt_due, isolation_prefix
from osdoctor.lab.config import parse_stub_config
from osdoctor.lab.tls import COMMON_NAME, certificate_files

from .test_stub import call, password_auth


def route(path: str, **answer: Any) -> dict[str, Any]:
    return {"method": "GET", "path": path, "answers": [answer]}


def test_tls_listener_serves_a_self_signed_certificate_no_client_trusts(make_stub: Any) -> None:
    stub = make_stub({"stub": {"tls": True}})
    assert stub.base_url.startswith("https://127.0.0.1:")
    assert stub.values["auth_url"].startswith("https://")
    strict = http.client.HTTPSConnection("127.0.0.1", stub.port, timeout=10)
    with pytest.raises(ssl.SSLCertVerificationError, match="self.signed certificate"):
        strict.request("GET", "/identity")
    strict.close()
    trusting = ssl.create_default_context(cafile=str(certificate_files()[0]))
    connection = http.client.HTTPSConnection("127.0.0.1", stub.port, timeout=10, context=trusting)
    connection.request("GET", "/identity")
    assert connection.getresponse().status == 300
    assert connection.sock is not None
    peer = connection.sock.getpeercert()
    connection.close()
    assert peer is not None
    assert peer["subject"] == peer["issuer"] == ((("commonName", COMMON_NAME),),)


def test_refusing_proxy_answers_connect_with_403(make_stub: Any) -> None:
    stub = make_stub({"stub": {"proxy": "refuse", "tls": True}})
    proxy = urlsplit(stub.values["proxy_url"])
    assert proxy.hostname == "127.0.0.1"
    connection = http.client.HTTPSConnection(str(proxy.hostname), proxy.port, timeout=10)
    connection.set_tunnel("127.0.0.1", stub.port)
    with pytest.raises(OSError, match="Tunnel connection failed: 403 Forbidden"):
        connection.request("GET", "/identity/v3")
    connection.close()
    assert stub.proxy_requests == [("CONNECT", f"127.0.0.1:{stub.port}")]
    assert stub.requests == []  # nothing reached the cloud


def test_a_delayed_answer_outlasts_a_short_client_timeout(make_stub: Any) -> None:
    stub = make_stub({"routes": [route("/slow", delay=30, body={"ok": True})]})
    connection = http.client.HTTPConnection("127.0.0.1", stub.port, timeout=0.3)
    connection.request("GET", "/slow")
    with pytest.raises(TimeoutError):
        connection.getresponse()
    connection.close()
    assert [r.path for r in stub.requests] == ["/slow"]


def test_a_short_delay_is_answered(make_stub: Any) -> None:
    stub = make_stub({"routes": [route("/slow", delay=0.01, body={"ok": True})]})
    status, _, body = call(stub, "GET", "/slow")
    assert (status, json.loads(body)) == (200, {"ok": True})


def test_a_hung_request_is_never_answered_and_stop_frees_it(make_stub: Any) -> None:
    stub = make_stub({"routes": [route("/never", hang=True)]})
    connection = http.client.HTTPConnection("127.0.0.1", stub.port, timeout=0.3)
    connection.request("GET", "/never")
    with pytest.raises(TimeoutError):
        connection.getresponse()
    connection.close()
    assert stub.requests[-1].status is None
    stub.stop()  # returns although a handler is still waiting


def test_a_reset_answer_is_a_tcp_reset(make_stub: Any) -> None:
    stub = make_stub({"routes": [route("/reset", reset=True)]})
    with pytest.raises(ConnectionResetError):
        call(stub, "GET", "/reset")
    assert stub.requests[-1].status is None


def test_catalog_entries_can_move_lose_interfaces_and_change_region(make_stub: Any) -> None:
    catalog = {
        "network": {"url": "https://{host}:{port}/networking", "interfaces": ["public"]},
        "compute": {"region": "RegionTwo"},
    }
    stub = make_stub({"stub": {"catalog": catalog}})
    _, _, body = call(stub, "POST", "/identity/v3/auth/tokens", password_auth())
    entries = {e["type"]: e["endpoints"] for e in json.loads(body)["token"]["catalog"]}
    assert [(e["interface"], e["url"]) for e in entries["network"]] == [
        ("public", f"https://127.0.0.1:{stub.port}/networking")
    ]
    assert {e["region_id"] for e in entries["compute"]} == {"RegionTwo"}
    assert {e["region_id"] for e in entries["image"]} == {fakes.REGION}
    assert stub.values["url.network"] == f"https://127.0.0.1:{stub.port}/networking"


def test_a_term_interrupt_ends_the_child_mid_wait_with_the_shell_status(tmp_path: Path) -> None:
    code = "import threading; print('REQ: waiting', flush=True); threading.Event().wait()"
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    exit_code, interrupted, output = _run(
        [sys.executable, "-c", code], env, tmp_path, 600, "term", until=lambda out: b"\n" in out
    )
    assert (exit_code, interrupted, output) == (143, True, b"REQ: waiting\n")


def test_a_client_that_ends_by_itself_is_not_interrupted(tmp_path: Path) -> None:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    code = "print('done')"
    result = _run([sys.executable, "-c", code], env, tmp_path, 600, until=lambda out: False)
    assert result == (0, False, b"done\n")


def interrupt_case(tmp_path: Path, answer: dict[str, Any]) -> tuple[Any, list[str]]:
    """A client that GETs /slow and prints what it read, under a case whose
    answer asks for the interrupt; a long timeout that must never be what ends it."""
    config = parse_stub_config({}, [route("/slow", **answer)])
    wake = threading.Event()
    stub = Stub(config, on_request=lambda request: wake.set())
    stub.start()
    code = (
        "import os, signal, sys, threading, urllib.request\n"
        "say = lambda text: os.write(1, text.encode() + b'\\n')\n"
        "signal.signal(signal.SIGINT, lambda *a: (say('interrupted'), os._exit(130)))\n"
        "say('REQ: GET /slow')\n"
        "with urllib.request.urlopen(sys.argv[1]) as answer:\n"
        "    rid = answer.headers['x-openstack-request-id']\n"
        "    say(answer.read().decode())\n"
        "say(f'GET call to test for /slow used request id {rid}')\n"
        "threading.Event().wait()\n"
    )
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    try:
        result = _run(
            [sys.executable, "-c", code, f"{stub.base_url}/slow"],
            env,
            tmp_path,
            600,
            until=functools.partial(interrupt_due, stub),
            wake=wake,
        )
    finally:
        stub.stop()
    return result, result[2].decode().splitlines()


def test_an_interrupt_answer_ends_the_client_once_it_has_logged_the_exchange(
    tmp_path: Path,
) -> None:
    (exit_code, interrupted, _), lines = interrupt_case(
        tmp_path, {"body": {"ok": True}, "interrupt": True}
    )
    assert (exit_code, interrupted) == (130, True)
    assert lines[1:] == [
        '{"ok": true}',
        "GET call to test for /slow used request id req-00000000-0000-4000-8000-000000000001",
        "interrupted",
    ]


def test_a_held_interrupt_answer_ends_the_client_as_soon_as_the_request_comes(
    tmp_path: Path,
) -> None:
    (exit_code, interrupted, _), lines = interrupt_case(tmp_path, {"hang": True, "interrupt": True})
    assert (exit_code, interrupted, lines) == (130, True, ["REQ: GET /slow", "interrupted"])


def test_a_server_socket_accepting_plain_http_is_not_tls(make_stub: Any) -> None:
    """What 'https against a plain-HTTP port' meets: the handshake fails at once."""
    stub = make_stub()
    context = ssl.create_default_context()
    with socket.create_connection(("127.0.0.1", stub.port), timeout=10) as raw:
        with pytest.raises(ssl.SSLError, match="WRONG_VERSION_NUMBER|wrong version number"):
            context.wrap_socket(raw, server_hostname="127.0.0.1")


def test_an_isolated_client_reaches_nothing_and_cannot_resolve_names(
    make_stub: Any, tmp_path: Path
) -> None:
    """What ``network: isolated`` promises: the stub on 127.0.0.1 is out of reach and
    a name lookup fails at once, so nothing the client sends leaves its namespace."""
    stub = make_stub()
    prefix = isolation_prefix()
    assert prefix, "unshare -rn must be available for the lab's isolated cases"
    code = (
        "import socket\n"
        f"for target in (('127.0.0.1', {stub.port}), ('controller', 5000)):\n"
        "    try:\n"
        "        socket.create_connection(target, timeout=5)\n"
        "        print('reached', target)\n"
        "    except OSError as error:\n"
        "        print(type(error).__name__, error.errno)\n"
    )
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    exit_code, _, output = _run([*prefix, sys.executable, "-c", code], env, tmp_path, 30)
    assert exit_code == 0
    lines = output.decode().splitlines()
    assert lines[0].startswith("OSError 101")  # network unreachable: lo is down
    assert lines[1] in ("gaierror -3", "gaierror -2")
    assert stub.requests == []
