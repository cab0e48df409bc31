"""The facts layer: fault texts from every body shape, transport kinds, the
decisive failure (normal lookups, discovery and fresh tokens are not failures),
and the conditions that expose them to rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from osdoctor.diagnose import diagnose, parse_path
from osdoctor.facts import facts_of
from osdoctor.facts.fault_text import from_body, in_text
from osdoctor.facts.fullest import fullest
from osdoctor.facts.no_answer import classify, of_exchange
from osdoctor.intake import parsed_lines
from osdoctor.kb.conditions import Condition, ConditionError, Context
from osdoctor.kb.loader import load_knowledge
from osdoctor.model import Trace
from osdoctor.parse.lines import Line
from osdoctor.parse.transport_kind import finer_kind, kind_of, transport_failure
from osdoctor.parse.wraps import Widths

LOGS = Path(__file__).resolve().parent / "fixtures" / "logs"


@pytest.mark.parametrize(
    ("body", "shape", "message", "kind"),
    [
        (
            {"itemNotFound": {"code": 404, "message": "Instance x could not be found."}},
            "nova",
            "Instance x could not be found.",
            "itemNotFound",
        ),
        (
            {"overLimit": {"code": 413, "message": "Quota exceeded for cores", "retryAfter": "0"}},
            "nova",
            "Quota exceeded for cores",
            "overLimit",
        ),
        (
            {
                "NeutronError": {
                    "type": "IpAddressAlreadyAllocated",
                    "message": "IP address 10.0.0.5 already allocated in subnet s1",
                    "detail": "",
                }
            },
            "neutron",
            "IP address 10.0.0.5 already allocated in subnet s1",
            "IpAddressAlreadyAllocated",
        ),
        (
            {
                "error": {
                    "code": 401,
                    "title": "Unauthorized",
                    "message": "The request you have made requires authentication.",
                }
            },
            "keystone",
            "The request you have made requires authentication.",
            "Unauthorized",
        ),
        (
            {
                "explanation": "The resource could not be found.",
                "code": 404,
                "error": {
                    "message": "The Stack (web) could not be found.",
                    "type": "EntityNotFound",
                    "traceback": None,
                },
                "title": "Not Found",
            },
            "heat",
            "The Stack (web) could not be found.",
            "EntityNotFound",
        ),
        (
            {
                "error_message": json.dumps(
                    {
                        "faultstring": "Node n1 is locked by host c1, please retry",
                        "faultcode": "Client",
                        "debuginfo": None,
                    }
                )
            },
            "ironic",
            "Node n1 is locked by host c1, please retry",
            "",  # WSME's faultcode ("Client") says whose fault, not what
        ),
        (
            {
                "errors": [
                    {
                        "status": 409,
                        "title": "Conflict",
                        "detail": "resource provider generation conflict",
                        "code": "placement.concurrent_update",
                        "request_id": "req-1",
                    }
                ]
            },
            "placement",
            "resource provider generation conflict",
            "Conflict",
        ),
        (
            {
                "code": 404,
                "type": "zone_not_found",
                "message": "Could not find Zone",
                "request_id": "req-2",
            },
            "designate",
            "Could not find Zone",
            "zone_not_found",
        ),
        (
            {"code": 404, "title": "Not Found", "description": "Secret not found."},
            "barbican",
            "Secret not found.",
            "Not Found",
        ),
        (
            {
                "faultcode": "Client",
                "faultstring": "Load Balancer lb1 could not be found.",
                "debuginfo": None,
            },
            "wsme",
            "Load Balancer lb1 could not be found.",
            "",
        ),
    ],
)
def test_fault_text_from_every_json_shape(
    body: object, shape: str, message: str, kind: str
) -> None:
    fault = from_body(json.dumps(body), body)
    assert fault is not None
    assert (fault.shape, fault.message, fault.type) == (shape, message, kind)


def test_fault_text_from_html_plain_and_omitted_bodies() -> None:
    html = from_body(
        "<html><head><title>503 Service Unavailable</title></head><body>"
        "<h1>503 Service Unavailable</h1>No server is available to handle this "
        "request.</body></html>"
    )
    assert html is not None and html.shape == "html"
    assert html.message == "503 Service Unavailable: No server is available to handle this request."
    plain = from_body("404 Not Found\n\nThe resource could not be found.\n\n   ")
    assert plain is not None and plain.shape == "plain" and "could not be found" in plain.message
    omitted = from_body(
        None,
        None,
        "Omitted, Content-Type is set to text/html. Only "
        "application/json responses have their bodies logged.",
    )
    assert omitted is not None and omitted.shape == "omitted" and "text/html" in omitted.message
    # Nova names the inner exception in angle brackets: words, not markup.
    nova = from_body(
        '{"computeFault": {"code": 500, "message": "Unexpected API Error.\\n'
        "<class 'neutronclient.common.exceptions.Unauthorized'>\"}}"
    )
    assert nova is not None and "<class 'neutronclient" in nova.message


def test_fault_bodies_quoted_in_text_escaped_once_or_twice() -> None:
    once = in_text(
        'RESP BODY: {"NeutronError": {"type": "NetworkNotFound", '
        '"message": "Network private could not be found.", "detail": ""}}'
    )
    assert once is not None and once.type == "NetworkNotFound"
    inner = json.dumps({"faultstring": "Node n1 is locked by host c1.", "debuginfo": None})
    twice = 'level=debug msg="' + json.dumps(json.dumps({"error_message": inner}))[1:-1] + '"'
    fault = in_text(twice)
    assert fault is not None and fault.shape == "ironic"
    assert fault.message == "Node n1 is locked by host c1."
    assert in_text("nothing to see {here}") is None


@pytest.mark.parametrize(
    ("message", "kind", "host", "port"),
    [
        (
            "Unable to establish connection to http://h1:9311/secrets: "
            "HTTPConnectionPool(host='h1', port=9311): Max retries exceeded (Caused by "
            "NewConnectionError(': Failed to establish a new connection: [Errno 111] "
            "Connection refused'))",
            "refused",
            "h1",
            "9311",
        ),
        (
            "HTTPSConnectionPool(host='10.0.0.1', port=5000): Max retries exceeded with url: "
            "/v3/auth/tokens (Caused by ConnectTimeoutError(..., "
            "'Connection to 10.0.0.1 timed out.'))",
            "timeout",
            "10.0.0.1",
            "5000",
        ),
        (
            "HTTPConnectionPool(host='controller', port=5000): Max retries exceeded (Caused by "
            "NameResolutionError(\"Failed to resolve 'controller' ([Errno -2] Name or service not "
            'known)"))',
            "dns",
            "controller",
            "5000",
        ),
        (
            "SSL exception connecting to https://k:5000/v3: (Caused by SSLError(SSLError(1, '[SSL: "
            "WRONG_VERSION_NUMBER] wrong version number (_ssl.c:1006)')))",
            "tls-version",
            "k",
            "5000",
        ),
        (
            "SSL exception connecting to https://192.0.2.2:13000: "
            "HTTPSConnectionPool(host='192.0.2.2', port=13000): (Caused by SSLError(SSLError(1, "
            "'[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed (_ssl.c:897)'),))",
            "tls-verify",
            "192.0.2.2",
            "13000",
        ),
        (
            "HTTPSConnectionPool(host='k', port=5000): Max retries exceeded (Caused by ProxyError("
            "'Cannot connect to proxy.', OSError('Tunnel connection failed: 403 Forbidden')))",
            "proxy",
            "k",
            "5000",
        ),
        (
            "('Connection aborted.', RemoteDisconnected('Remote end closed connection without "
            "response'))",
            "reset",
            "",
            "",
        ),
    ],
)
def test_transport_failures_are_classified_with_their_host(
    message: str, kind: str, host: str, port: str
) -> None:
    found = classify(message)
    assert (found.kind, found.host, found.port) == (kind, host, port)


def _trace(text: str) -> Trace:
    lines = (Line(n, line) for n, line in enumerate(text.splitlines(), 1))
    return parsed_lines(lines, "t", Widths()).trace


def test_lookups_discovery_and_retries_are_normal_steps_not_failures() -> None:
    report = diagnose(
        parse_path(LOGS / "osc.find-by-name.found-by-name.log"), load_knowledge(user=False)
    )
    facts = facts_of(report.trace)
    assert facts.failure is None and facts.recovered
    assert not [f for f in report.findings if f.severity in ("error", "warning")]
    retried = facts_of(parse_path(LOGS / "ironic.conflict-retry.recovered.log"))
    assert retried.failure is None and retried.recovered


def test_the_decisive_failure_is_the_answer_the_run_did_not_recover_from() -> None:
    facts = facts_of(parse_path(LOGS / "generic.osc-port-create-409-ip-allocated.log"))
    f = facts.failure
    assert f is not None and f.kind == "http" and (f.status, f.method) == (409, "POST")
    assert (f.service, f.service_name, f.resource) == ("network", "Neutron", "port")
    assert f.fault is not None and f.fault.type == "IpAddressAlreadyAllocated"
    assert f.request_id.startswith("req-")


def test_a_log_ending_inside_a_request_is_a_client_that_hung() -> None:
    trace = _trace(
        "REQ: curl -g -i -X GET http://203.0.113.5:8774/v2.1/servers/detail -H "
        '"Accept: application/json"\n'
        "Starting new HTTP connection (1): 203.0.113.5:8774\n"
    )
    f = facts_of(trace).failure
    assert f is not None and f.transport is not None
    assert (f.transport.kind, f.transport.host, f.transport.port) == ("hung", "203.0.113.5", "8774")
    # While the command still runs, the request in flight is no hang (no premature alarm).
    assert facts_of(trace, live=True).failure is None
    assert diagnose(trace, load_knowledge(user=False), live=True).outcome == "unknown"


def test_a_paste_of_the_output_only_still_names_the_failure_and_its_words() -> None:
    trace = _trace(
        "$ openstack baremetal node set n1 --property a=b\n"
        "Node 5f1c2a3b can not be updated while a state transition is in progress. "
        "(HTTP 409). Attempt 6 of 6\n"
    )
    facts = facts_of(trace)
    f = facts.failure
    assert f is not None and f.status == 409 and f.service == "baremetal"
    assert facts.attempts == "6 of 6"
    report = diagnose(trace, load_knowledge(user=False))
    assert report.outcome == "failure"
    assert report.findings[0].id == "known.ironic-state-transition"
    # A wrapper's exit status 0 (an Ansible task's rc) does not hide the client's words.
    trace.exit_code = 0
    masked = diagnose(trace, load_knowledge(user=False))
    assert masked.outcome == "failure"
    assert masked.findings[0].id == "known.ironic-state-transition"


def test_a_resource_in_error_after_a_successful_command_is_an_async_failure() -> None:
    report = diagnose(
        parse_path(LOGS / "generic.stack-show-create-failed.log"), load_knowledge(user=False)
    )
    assert report.trace.exit_code == 0 and report.outcome == "failure"
    first = report.findings[0]
    assert first.id == "generic.async-error"
    assert "CREATE_FAILED" in first.title


def test_a_server_every_host_failed_to_build_names_the_retries_not_only_its_state() -> None:
    """Nova's MaxRetriesExceeded: the scheduler found hosts and each failed the build;
    the class rule (a resource in ERROR) gives way to the one that says where to look."""
    report = diagnose(
        parse_path(LOGS / "osc.find-by-name.found-by-id-error-retries.log"),
        load_knowledge(user=False),
    )
    assert report.trace.exit_code == 0 and report.outcome == "failure"
    first = report.findings[0]
    assert first.id == "known.build-retries-exhausted"
    assert "3f6c2a1e-8b4d-4e7f-9a2c-1d5e6f7a8b9c" in first.title
    assert any("server event list" in step for step in first.next_steps)


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ({"failure": {"kind": "sideways"}}, "failure kind 'sideways': use one of http"),
        ({"failure": {"transport": "slow"}}, "transport 'slow': use one of refused"),
        ({"failure": {"colour": "red"}}, "unknown key 'colour' in a failure condition"),
        ({"failure": {"status": "teapot"}}, "status 'teapot': use a number"),
        ({"exception": {"kind": "x"}}, "unknown key 'kind' in an exception condition"),
        ({"client_version": "keystoneauth1"}, "client_version is a mapping"),
        (
            {"client_version": {"package": "keystoneauth1", "range": "about 3"}},
            "version range 'about 3'",
        ),
        ({"fault": "("}, "is not a valid regular expression"),
    ],
)
def test_new_conditions_explain_mistakes(spec: dict[str, object], words: str) -> None:
    with pytest.raises(ConditionError) as info:
        Condition(spec)
    assert words in str(info.value)


def test_client_version_reads_the_user_agent() -> None:
    trace = parse_path(LOGS / "generic.osc-network-list-503.log")
    ctx = Context(trace, "failure")
    assert Condition({"client_version": {"package": "keystoneauth1", "range": ">=5.0,<6"}})(ctx)
    assert Condition({"client_version": {"package": "keystoneauth1", "range": "<3.0"}})(ctx) is None
    assert Condition({"failure": {"status": [502, 503], "fault_shape": "^omitted$"}})(ctx)


@pytest.mark.parametrize(
    ("paste", "rule", "title"),
    [
        (
            "$ openstack network show net9\nResourceNotFound: 404: Client Error for url: "
            "http://ctl:9696/v2.0/networks/net9, Network net9 could not be found.",
            "generic.not-found",
            "Neutron has no such network (404): Network net9 could not be found.",
        ),
        (
            "$ openstack server delete vm1\nCannot 'delete' instance 0b0d8f0e while it is in "
            "task_state image_uploading (HTTP 409) (Request-ID: req-0b0d8f0e-1111-2222-3333-"
            "444455556666)",
            "known.instance-task-state",
            "The server is busy (task_state image_uploading): Nova refused to delete it",
        ),
        (
            "$ openstack volume create --size 10 v1\nInvalid input received: Availability zone "
            "'nova2' is invalid. (HTTP 400)",
            "known.cinder-availability-zone-invalid",
            "Cinder has no availability zone 'nova2' (400): no volume service is in it",
        ),
        (
            "$ nova boot --flavor m1.tiny vm1\nERROR (Forbidden): Quota exceeded for instances: "
            "Requested 1, but already used 10 of 10 instances (HTTP 403)",
            "known.quota-exceeded-for",
            "Quota exceeded for instances: Requested 1, but already used 10 of 10 instances",
        ),
        (
            "$ openstack server list\nHttpException: 503: Server Error for url: "
            "http://ctl:8774/v2.1/servers/detail, Service Unavailable",
            "generic.backend-unavailable",
            "The load balancer in front of Nova answered 503",
        ),
        (
            # a client that prints the error page's bytes: the page is read as words
            "$ openstack secret list\nFailed to contact the endpoint at http://k:9311 for "
            'discovery.\n4xx Client error: b\'<!DOCTYPE HTML PUBLIC "-//IETF//DTD HTML 2.0//EN">'
            "\\n<html><head>\\n<title>404 Not Found</title>\\n</head><body>\\n<h1>Not Found"
            "</h1>\\n<p>The requested URL was not found on this server.</p>\\n</body></html>\\n'",
            "generic.endpoint-path-not-found",
            "The web server in front of Barbican does not serve the URL",
        ),
        (
            # a flat webob body the paste wrapped over two lines
            '$ system host-list\nRESP BODY: {"message": "The server is currently unavailable.'
            '<br /><br />\nThe Keystone service is temporarily unavailable.\\n", "code": '
            '"503 Service Unavailable", "title": "Service Unavailable"}\n\'errors\'',
            "known.keystone-unavailable-to-service",
            "StarlingX sysinv cannot reach Keystone",
        ),
    ],
)
def test_a_paste_of_the_output_names_who_refused_what(paste: str, rule: str, title: str) -> None:
    report = diagnose(_trace(paste), load_knowledge(user=False))
    first = report.findings[0]
    assert (report.outcome, first.id) == ("failure", rule)
    assert first.title.startswith(title)


def test_a_fault_the_paste_cut_gives_way_to_a_whole_copy_of_it() -> None:
    """Retries print the same refusal once per attempt and per resource; the paste cut
    the last copy mid-word. The facts quote an earlier copy whole, as the log has it,
    with that copy's own id and line: never the cut one's id with another's end."""
    first = "0b6d3c1e-2f4a-4b8c-9d7e-5a1f3c2e4b6d"
    last = "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a"
    paste = (
        f"Error contacting Ironic server: Node {first} can not be updated while a state "
        "transition is in progress. (HTTP 409). Attempt 6 of 6\n"
        f"Error contacting Ironic server: Node {last} can not be updated while a state t\n"
    )
    error = facts_of(_trace(paste)).client_error
    assert error is not None and error.line == 1
    assert error.text == (
        f"Error contacting Ironic server: Node {first} can not be updated while a state "
        "transition is in progress. (HTTP 409). Attempt 6 of 6"
    )


@pytest.mark.parametrize(
    ("cut", "copies", "expected"),
    [
        # Finished texts are left alone, even when a longer copy exists.
        ("Network private could not be found.", ["Network private could not be found. x"], None),
        # A copy with other words is no copy.
        ("Quota exceeded for resources: ['ports']", ["Quota exceeded for cores"], None),
        ("The request you have made requires auth", ["The request you have made is bad."], None),
        # The longest matching copy, as it stands; ids differ, lengths match.
        (
            "Port 1234 is still in use by instance ab",
            ["Port 9876 is still in use by instance abcdef12.", "Port 1 is"],
            "Port 9876 is still in use by instance abcdef12.",
        ),
    ],
)
def test_fullest_copy(cut: str, copies: list[str], expected: str | None) -> None:
    assert fullest(cut, copies) == expected


@pytest.mark.parametrize(
    "message",
    [
        "ProxyError('Unable to connect to proxy', OSError('Tunnel connection failed: 403'))",
        "SSLError(1, '[SSL: WRONG_VERSION_NUMBER] wrong version number (_ssl.c:1006)')",
        "SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify"
        " failed: self-signed certificate (_ssl.c:1006)'))",
        "NameResolutionError(\"Failed to resolve 'controller' ([Errno -2] Name or service\")",
        "NewConnectionError('Failed to establish a connection: [Errno 111] Connection refused')",
        "ConnectTimeoutError(..., 'Connection to 10.0.0.1 timed out. (connect timeout=None)')",
        "('Connection aborted.', ConnectionResetError(104, 'Connection reset by peer'))",
        "('Connection aborted.', RemoteDisconnected('Remote end closed connection without'))",
        "NewConnectionError('Failed to establish a new connection: [Errno 113] No route to host')",
        "SSLError('EOF occurred in violation of protocol')",
        "something else entirely",
    ],
)
def test_an_exchange_keeps_the_kind_the_parser_gave_it(message: str) -> None:
    """One classifier: what the parser recorded on the exchange is what the facts say,
    without reading the message again."""
    kind, detail = transport_failure(message)
    assert finer_kind(kind, detail) == kind_of(message)
    want = classify(message, "http://h:1/x").kind
    assert of_exchange(kind, detail, message, "http://h:1/x").kind == want
    # The recorded kind decides, whatever the words say.
    assert of_exchange("timeout", None, message, "http://h:1/x").kind == "timeout"
