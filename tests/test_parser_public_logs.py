"""The parser reads the real logs people posted in public threads into exchanges,
commands, messages and tracebacks, whatever their age, client and paste damage.

The logs are the project's copies in ``tests/fixtures/public``; each is read
as ``osdoctor explain`` reads a file. What is asserted is what each log
plainly shows: the requests and what came back (a status, or the kind of
transport failure), the command typed and its client, the client's error
lines and exceptions, the service's own log lines kept apart.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import pytest

from osdoctor.diagnose import parse_path
from osdoctor.model import Trace
from tests.helpers.public_logs import public_log, public_logs


@dataclass
class Expected:
    client: str
    command: str | None
    """The start of ``Trace.command``."""
    exchanges: list[tuple[str, str, int | str]]
    """(method, end of the URL path, status or transport-error kind); the method is
    empty when the log names none (a transport error quotes only the URL)."""
    messages: list[tuple[str, str]] = field(default_factory=list)
    """(kind, regular expression) that some message must match."""
    tracebacks: list[tuple[str, str, str]] = field(default_factory=list)
    """(origin, exception type, the client frame's function) of each traceback."""
    detail: str | None = None
    """The transport error's detail, when there is one."""


EXPECTED: dict[str, Expected] = {
    "nova-2013-flavor-list-401-no-admin-role": Expected(
        "novaclient",
        "nova flavor-list",
        [("POST", "/v2.0/tokens", 401)],
        [("error", r"^ERROR: Invalid OpenStack Nova credentials\.$"), ("command", "flavor-list")],
        [("client", "CommandError", "main")],
    ),
    "nova-2013-list-hang-unreachable-publicurl": Expected(
        "novaclient",
        "nova list",
        [("POST", "/v2.0/tokens", 200), ("GET", "/servers/detail", "no-answer")],
        detail="240.0.1.5",
    ),
    "nova-2014-volume-list-endpointnotfound-jumpgate": Expected(
        "novaclient",
        "nova volume-list",
        [],
        [("error", r"^ERROR \(EndpointNotFound\):")],
        [("client", "EndpointNotFound", "url_for")],
    ),
    "nova-2016-list-connectfailure-timeout-py2-nohandlers": Expected(
        "novaclient",
        "nova --insecure list",
        [("", "/v3/auth/tokens", "timeout")],
        [
            ("error", r"^ERROR \(ConnectFailure\): Unable to establish connection"),
            ("text", r"^No handlers could be found for logger"),
        ],
    ),
    "heatclient-2016-stack-create-resource-type-not-found": Expected(
        "heatclient",
        "heat stack-create my-openshift",
        [],
        [("error", r"The Resource Type +\(OOShift::ContainerPort\) could not be found")],
    ),
    "gnocchi-2017-resource-list-401": Expected(
        "gnocchiclient", "gnocchi resource list", [("GET", "/v1/resource/generic", 401)]
    ),
    "osc-2017-user-list-typeerror-app_name-lib-conflict": Expected(
        "openstackclient",
        "openstack user list",
        [],
        [
            ("clean_up", r"^clean_up ListUser: __init__\(\) got an unexpected keyword argument"),
            ("end", "^END return value: 1$"),
            ("elision", r"^\.{6}$"),
        ],
        [("client", "TypeError", "__init__"), ("client", "TypeError", "__init__")],
    ),
    "osc-2017-image-create-from-volume-nonetype-subscriptable": Expected(
        "openstackclient",
        "openstack image create --volume",
        [],
        [("text", r"^'NoneType' object is not subscriptable$")],
        [("client", "TypeError", "take_action")],
    ),
    "osc-2018-server-add-volume-benign-404-success": Expected(
        "openstackclient",
        "openstack server add volume vm-ml-1 liangr",
        [
            ("GET", "/identity", 300),
            ("POST", "/v3/auth/tokens", 201),
            ("GET", "/servers/vm-ml-1", 404),
            ("GET", "/servers", 200),
            ("GET", "/servers", 200),
            ("GET", "/servers/83486e6e-2600-4149-a578-dbc67b506004", 200),
            ("GET", "/volumes/liangr", 404),
            ("GET", "/volumes/detail", 200),
            ("POST", "/os-volume_attachments", 200),
        ],
        [("end", "^END return value: 0$")],
    ),
    "cinder-2018-list-endpointnotfound-volumev3-logging-prefix": Expected(
        "cinderclient",
        "cinder list",
        [("GET", "/v3", 200), ("POST", "/v3/auth/tokens", 201)],
        [
            ("error", "^ERROR: publicURL endpoint for volumev3 service not found$"),
            ("elision", r"^\[\.\.\. collector"),
        ],
        [
            ("client", "EndpointNotFound", "endpoint_data_for"),
            ("client", "", "get_volume_api_version_from_endpoint"),
        ],
    ),
    "osc-2020-catalog-list-ssl-wrong-version-number": Expected(
        "unknown", None, [("", "/v3/auth/tokens", "tls")], detail="wrong-version"
    ),
    "osc-2020-image-create-proxy-tunnel-403": Expected(
        "openstackclient",
        "openstack image create --container-format bare",
        [("", "/v3/auth/tokens", "proxy")],
        detail="403 Forbidden",
    ),
    "ironic-2019-terraform-gophercloud-409-node-locked": Expected(
        "unknown",
        None,
        [("PUT", "/states/provision", 409)],
        [("text", r'^\{"error_message": .*is locked by host')],
    ),
    "ironic-2021-ansible-baremetal-node-set-409-state-transition-wrapped": Expected(
        "openstackclient",
        "openstack baremetal node set $i --property",
        [],
        [
            (
                "text",
                r"can not be updated while a state transition is in progress\. "
                r"\(HTTP 409\)\. Attempt 6 of 6$",
            ),
            ("text", "^Error contacting Ironic server: Node 3dc85665"),
        ],
    ),
    "osc-2022-server-create-500-nova-missing-neutron-auth": Expected(
        "openstackclient",
        "openstack server create --flavor m1.nano",
        [],
        [
            ("text", r"^<class 'neutronclient\.common\.exceptions\.Unauthorized'> \(HTTP 500\)"),
            ("server", r"ERROR nova\.api\.openstack\.wsgi \[req-d8bb1060"),
            ("command", r"grep ERROR"),
        ],
        [("server", "Unauthorized", "_load_auth_plugin")],
    ),
    "osc-2022-server-create-rc0-then-ERROR-compute-auth_url": Expected(
        "openstackclient",
        "openstack server create --flavor m1.nano",
        [],
        [
            ("end", "^END return value: 0$"),
            ("output", r"^\| fault .*Build of instance"),
            ("server", "Build of instance 77ef07bc.* aborted: Auth plugin requires parameters"),
        ],
    ),
    "barbican-2022-secret-list-conn-refused-then-404-html": Expected(
        "openstackclient",
        "openstack secret list",
        [("", "/secrets", "connection-refused")],
        [("error", r"^4xx Client error: b'<!DOCTYPE HTML"), ("elision", "^--- \\(after adding")],
    ),
    "cgtsclient-stx-host-list-503-html-prints-None": Expected(
        "cgtsclient",
        "system host-list",
        [("GET", "/v1/ihosts", 503)],
        [("text", "^None$"), ("command", "^system --debug host-list$")],
    ),
    "osc-2024-server-create-neutron-networknotfound-unresolved": Expected(
        "openstackclient",
        "openstack server create --network=private",
        [],
        [("debug", r'^RESP BODY: \{"NeutronError": \{"type": "NetworkNotFound"')],
    ),
    "osc-2025-nixos-journald-nameresolution-then-keystone-500": Expected(
        "openstackclient",
        "openstack user create --domain default",
        [("", "/v3/auth/tokens", "dns")],
        [("text", r"^Internal Server Error \(HTTP 500\)$"), ("command", r"^\+ openstack user")],
        [("server", "ModuleNotFoundError", "<module>")],
    ),
    "tripleo-2021-undercloud-install-ssl-verify-terminal-wrapped": Expected(
        "unknown",
        None,
        [("", ":13000", "tls")],
        [("text", "^MODULE FAILURE$")],
        [("client", "keystoneauth1.exceptions.discovery.DiscoveryFailure", "_do_create_plugin")],
        detail="certificate",
    ),
}


def _outcome(ex_status: int | None, kind: str | None) -> int | str | None:
    return kind if kind is not None else ex_status


def _trace(name: str) -> Trace:
    return parse_path(public_log(name))


def test_every_public_log_is_covered() -> None:
    names = {p.stem for p in public_logs().glob("*.log")}
    assert names == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_public_log_is_read(name: str) -> None:
    expected = EXPECTED[name]
    trace = _trace(name)
    assert trace.client == expected.client
    if expected.command is None:
        assert trace.command is None
    else:
        assert trace.command is not None and trace.command.startswith(expected.command)
        assert trace.command_line is not None
    got = [
        (
            ex.request.method,
            ex.request.url.partition("?")[0],
            _outcome(ex.status, ex.error.kind if ex.error else None),
        )
        for ex in trace.exchanges
    ]
    assert len(got) == len(expected.exchanges), got
    for (method, url, outcome), (want_method, tail, want) in zip(
        got, expected.exchanges, strict=True
    ):
        assert (method, outcome) == (want_method, want)
        assert url.endswith(tail), (url, tail)
    for kind, pattern in expected.messages:
        assert any(m.kind == kind and re.search(pattern, m.text) for m in trace.messages), (
            kind,
            pattern,
            [(m.kind, m.text[:80]) for m in trace.messages],
        )
    tracebacks = [
        (tb.origin, tb.exc_type, tb.client_frame.function if tb.client_frame else "")
        for tb in trace.tracebacks
    ]
    assert tracebacks == expected.tracebacks
    details = [ex.error.detail for ex in trace.exchanges if ex.error is not None]
    if expected.detail is not None:
        assert expected.detail in details


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_public_log_lines_stay_in_the_file(name: str) -> None:
    """Every line number the trace gives exists in the file."""
    trace = _trace(name)
    count = len((public_log(name)).read_bytes().splitlines())
    numbers = [m.line for m in trace.messages] + [m.last_line for m in trace.messages]
    numbers += [ex.first_line for ex in trace.exchanges] + [ex.last_line for ex in trace.exchanges]
    numbers += [tb.first_line for tb in trace.tracebacks] + [c.line for c in trace.commands]
    assert all(1 <= n <= count for n in numbers)


def test_a_hung_client_keeps_the_host_it_waited_for() -> None:
    trace = _trace("nova-2013-list-hang-unreachable-publicurl")
    hung = trace.exchanges[-1]
    assert hung.error is not None and hung.error.kind == "no-answer"
    assert hung.error.detail == "240.0.1.5"
    assert hung.error.line == 13  # the connection line it stopped on
    assert trace.catalog["compute"][0].startswith("http://240.0.1.5:8774/")  # publicURL
    assert hung.service == "compute"


def test_several_runs_in_one_paste_are_each_a_command() -> None:
    trace = _trace("osc-2022-server-create-rc0-then-ERROR-compute-auth_url")
    assert [(c.line, c.text.split()[:3], c.client) for c in trace.commands] == [
        (1, ["openstack", "server", "create"], "openstackclient"),
        (35, ["openstack", "server", "list"], "openstackclient"),
        (41, ["openstack", "server", "show"], "openstackclient"),
        (72, ["grep", "-i", "error"], "unknown"),
    ]


def test_service_log_lines_are_not_the_clients() -> None:
    trace = _trace("osc-2022-server-create-500-nova-missing-neutron-auth")
    server = [m for m in trace.messages if m.kind == "server"]
    assert [m.line for m in server] == [5, 6, 7, 8, 9, 11, 12, 13, 14]
    assert trace.format != "log-file"
    (tb,) = trace.tracebacks
    assert (tb.origin, tb.message) == ("server", "Unknown auth type: None")
