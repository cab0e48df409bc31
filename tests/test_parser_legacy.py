"""Unit checks of the log shapes older and other clients write, and of paste damage.

Each input is a few lines quoted from a real log people posted (see
``tests/fixtures/public/INDEX.md``, "Log-format variants seen") or in the shape
the named library prints; the whole logs are read in ``test_public_logs``.
"""

from __future__ import annotations

import pytest

from osdoctor.intake import parsed_lines
from osdoctor.parse.commands import recognise
from osdoctor.parse.lines import text_lines
from osdoctor.parse.parser import Parser
from osdoctor.parse.paste import is_elision, unlink, unpaste
from osdoctor.parse.prefixes import PrefixStripper
from osdoctor.parse.transport_kind import transport_failure
from osdoctor.parse.wraps import Widths

NOVA_2013_REQ = (
    'REQ: curl -i http://127.0.0.1:5000/v2.0/tokens -X POST -H "Content-Type: '
    'application/json" -H "Accept: application/json" -H "User-Agent: '
    'python-novaclient" -d \'{"auth": {"tenantName": "admin", '
    '"passwordCredentials": {"username": "admin", "password": "x"}}}\''
)
KS_REQ = (
    "REQ: curl -g -i -X GET http://127.0.0.1:8004/v1/p1/stacks/x/events?limit=1 "
    '-H "Accept: application/json" -H "X-Auth-Token: {SHA256}abc"'
)


def parse(*lines: str, width: int | None = None) -> Parser:
    return parsed_lines(text_lines(lines), widths=Widths(fold=width))


# -- issue 17 item 1: syslog and journald prefixes, every month ---------------
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


@pytest.mark.parametrize("month", MONTHS)
@pytest.mark.parametrize("day", ["10", " 1"])
def test_syslog_prefix_of_every_month_and_day_padding(month: str, day: str) -> None:
    p = parse(
        f"{month} {day} 10:00:00 host1 openstack[123]: {KS_REQ}",
        f"{month} {day} 10:00:02 host1 openstack[123]: END return value: 1",
    )
    (ex,) = p.trace.exchanges
    assert ex.request.url == "http://127.0.0.1:8004/v1/p1/stacks/x/events?limit=1"
    assert p.trace.exit_code == 1
    assert ex.time == 0.0


@pytest.mark.parametrize("month", range(1, 13))
def test_journald_iso_prefix_of_every_month(month: str) -> None:
    stamp = f"2026-{month:02d}-10T10:00:00+0000"
    p = parse(f"{stamp} host1 openstack[123]: {KS_REQ}")
    assert len(p.trace.exchanges) == 1


def test_december_is_not_taken_for_a_debug_level() -> None:
    strip = PrefixStripper().strip
    assert (
        strip("Dec 10 10:00:00 host1 openstack[123]: START with options: x").text
        == "START with options: x"
    )
    assert strip("Dec  1 10:00:00 host1 openstack[123]: msg").text == "msg"
    assert strip("DEBUG (session:375) msg").text == "msg"


# -- requests-era novaclient (public log #1, #2) ----------------------------
def test_requests_era_request_dict_headers_and_bare_pool_line() -> None:
    p = parse(
        NOVA_2013_REQ,
        "INFO (connectionpool:236) Starting new HTTP connection (1): 127.0.0.1",
        'DEBUG (connectionpool:330) "POST /v2.0/tokens HTTP/1.1" 401 116',
        "RESP: [401] CaseInsensitiveDict({'date': 'Fri, 11 Oct 2013 23:24:41 GMT', "
        "'vary': 'X-Auth-Token', 'content-length': '116', "
        "'content-type': 'application/json'})",
        'RESP BODY: {"error": {"message": "The request you have made requires '
        'authentication.", "code": 401, "title": "Not Authorized"}}',
    )
    (ex,) = p.trace.exchanges
    assert (ex.request.method, ex.status, ex.service) == ("POST", 401, "identity")
    assert ex.response is not None and ex.response.header("Content-Type") == "application/json"
    assert ex.response.body is not None and ex.response.body.json()["error"]["code"] == 401
    assert p.trace.client == "novaclient"  # from the User-Agent: no command line
    assert "verybad" not in str(ex.request.body)


def test_bare_pool_line_without_a_request_line_takes_the_connection_host() -> None:
    p = parse(
        "Starting new HTTP connection (1): 192.168.0.5",
        '"GET /v2/1a49/servers/detail HTTP/1.1" 200 2695',
    )
    (ex,) = p.trace.exchanges
    assert (ex.request.url, ex.status) == ("http://192.168.0.5/v2/1a49/servers/detail", 200)


def test_dict_response_with_its_body_on_the_same_line() -> None:
    p = parse(
        'REQ: curl -i http://h:8774/v1.1/t/servers/detail -X GET -H "X-Auth-Token: t"',
        "RESP:{'status': '200', 'content-length': '15', 'content-type': "
        "'application/json'} {\"servers\": []}",
    )
    (ex,) = p.trace.exchanges
    assert ex.status == 200
    assert ex.response is not None and ex.response.body is not None
    assert ex.response.body.json() == {"servers": []}
    assert ex.response.header("content-type") == "application/json"


# -- httplib's debug dump ----------------------------------------------------
def test_httplib_send_reply_header_lines() -> None:
    p = parse(
        "send: u'GET /v1.1/t/servers/detail HTTP/1.1\\r\\nHost: 10.0.0.1:8774\\r\\n"
        "x-auth-token: t\\r\\naccept-encoding: gzip, deflate\\r\\n\\r\\n'",
        "reply: 'HTTP/1.1 404 Not Found\\r\\n'",
        "header: X-Compute-Request-Id: req-5b0f5a2e-1b0c-4b7e-9f55-0d7c4f3b8a11",
        "header: Content-Type: application/json; charset=UTF-8",
        "RESP:{'status': '404', 'content-type': 'application/json; charset=UTF-8'} "
        '{"itemNotFound": {"message": "The resource could not be found.", "code": 404}}',
    )
    (ex,) = p.trace.exchanges
    assert (ex.request.method, ex.request.url, ex.request.logged_as) == (
        "GET",
        "http://10.0.0.1:8774/v1.1/t/servers/detail",
        "httplib",
    )
    assert (ex.status, ex.response and ex.response.reason) == (404, "Not Found")
    assert ex.response is not None and ex.response.body is not None
    assert ex.response.body.json()["itemNotFound"]["code"] == 404


# -- logging prefixes (public logs #4, #5, #18) ----------------------------
@pytest.mark.parametrize(
    "prefix",
    [
        "DEBUG (session:375) ",
        "DEBUG:keystoneauth.session:",
        "DEBUG: keystoneauth.session ",
        "  DEBUG (session:520) ",
    ],
)
def test_logging_prefixes(prefix: str) -> None:
    p = parse(prefix + KS_REQ)
    assert len(p.trace.exchanges) == 1


def test_a_client_error_class_in_parentheses_is_not_a_logger() -> None:
    p = parse("ERROR (EndpointNotFound):")
    assert [(m.kind, m.text) for m in p.trace.messages] == [("error", "ERROR (EndpointNotFound):")]


# -- transport failures in every shape ---------------------------------------
@pytest.mark.parametrize(
    "message,kind,detail",
    [
        (
            "Failed to establish a new connection: [Errno 111] Connection refused",
            "connection-refused",
            None,
        ),
        (
            "Failed to establish a new connection: [Errno 110] Connection timed out',))",
            "timeout",
            None,
        ),
        (
            'Caused by NameResolutionError("<urllib3.connection.HTTPConnection object at '
            "0x7f26fd34cb90>: Failed to resolve 'controller' ([Errno -2] Name or service not "
            'known)"))',
            "dns",
            None,
        ),
        (
            "Caused by SSLError(SSLError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify "
            "failed (_ssl.c:897)'),))",
            "tls",
            "certificate",
        ),
        (
            "(Caused by SSLError(SSLError(\"bad handshake: Error([('SSL routines', "
            "'ssl3_get_record', 'wrong version number')],)\",),))",
            "tls",
            "wrong-version",
        ),
        (
            "(Caused by ProxyError('Cannot connect to proxy.', OSError('Tunnel connection failed: "
            "403 Forbidden')))",
            "proxy",
            "403 Forbidden",
        ),
        (
            "('Connection aborted.', ConnectionResetError(104, 'Connection reset by peer'))",
            "connection-reset",
            None,
        ),
    ],
)
def test_transport_failure_kinds(message: str, kind: str, detail: str | None) -> None:
    assert transport_failure(message) == (kind, detail)


def test_legacy_shell_error_line_is_a_transport_failure() -> None:
    p = parse(
        "ERROR (ConnectFailure): Unable to establish connection to https://192.175.27.106:"
        "5000/v3/auth/tokens: HTTPSConnectionPool(host='192.175.27.106', port=5000): Max "
        "retries exceeded with url: /v3/auth/tokens (Caused by NewConnectionError('<requests"
        ".packages.urllib3.connection.VerifiedHTTPSConnection object at 0x1e872d0>: Failed "
        "to establish a new connection: [Errno 110] Connection timed out',))"
    )
    (ex,) = p.trace.exchanges
    assert ex.error is not None and ex.error.kind == "timeout"
    assert [m.kind for m in p.trace.messages] == ["error"]


def test_a_log_that_ends_inside_a_request_is_a_client_waiting() -> None:
    p = parse(
        'REQ: curl -i http://240.0.1.5:8774/v2/t/servers/detail -X GET -H "X-Auth-Project'
        '-Id: admin"',
        "",
        "INFO (connectionpool:191) Starting new HTTP connection (1): 240.0.1.5",
    )
    (ex,) = p.trace.exchanges
    assert ex.error is not None
    assert (ex.error.kind, ex.error.detail, ex.error.line) == ("no-answer", "240.0.1.5", 3)


def test_a_request_answered_by_an_error_line_is_not_a_hang() -> None:
    p = parse(KS_REQ, "ERROR: something else went wrong")
    assert p.trace.exchanges[0].error is None


def test_an_exception_naming_a_transport_failure_gives_the_exchange() -> None:
    p = parse(
        "Traceback (most recent call last):",
        '  File "/usr/lib/python3.6/site-packages/keystoneauth1/identity/generic/base.py",'
        " line 161, in _do_create_plugin",
        "    'auth_url is correct. %s' % e)",
        "keystoneauth1.exceptions.discovery.DiscoveryFailure: Could not find versioned "
        "identity endpoints when attempting to authenticate. Please check that your "
        "auth_url is correct. SSL exception connecting to https://192.0.2.2:13000: "
        "HTTPSConnectionPool(host='192.0.2.2', port=13000): Max retries exceeded with url: "
        "/ (Caused by SSLError(SSLError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate "
        "verify failed (_ssl.c:897)'),))",
    )
    (ex,) = p.trace.exchanges
    assert ex.error is not None and (ex.error.kind, ex.error.detail) == ("tls", "certificate")


# -- osc bookkeeping ------------------------------------------------------------
def test_start_options_as_a_python_list() -> None:
    p = parse(
        "START with options: [u'--debug', u'server', u'add', u'volume', u'vm-ml-1', u'liangr']",
        "command: server add volume -> openstackclient.compute.v2.server.AddServerVolume "
        "(auth=True)",
        "clean_up AddServerVolume:",
        "END return value: 0",
    )
    t = p.trace
    assert (t.command, t.client, t.exit_code) == (
        "openstack server add volume vm-ml-1 liangr",
        "openstackclient",
        0,
    )
    assert [m.kind for m in t.messages] == ["debug", "debug", "clean_up", "end"]


# -- tracebacks in every paste ---------------------------------------------------
def test_traceback_whose_indentation_was_lost() -> None:
    p = parse(
        "Traceback (most recent call last):",
        'File "/usr/lib/python2.7/site-packages/novaclient/shell.py", line 765, in main',
        "OpenStackComputeShell().main(map(strutils.safe_decode, sys.argv[1:]))",
        'File "/usr/lib/python2.7/site-packages/novaclient/shell.py", line 697, in main',
        'raise exc.CommandError("Invalid OpenStack Nova credentials.")',
        "CommandError: Invalid OpenStack Nova credentials.",
        "ERROR: Invalid OpenStack Nova credentials.",
    )
    (tb,) = p.trace.tracebacks
    assert (tb.exc_type, tb.message, len(tb.frames)) == (
        "CommandError",
        "Invalid OpenStack Nova credentials.",
        2,
    )
    assert [m.kind for m in p.trace.messages] == ["error"]


def test_traceback_whose_header_was_cut_away() -> None:
    p = parse(
        '  File "/usr/lib/python2.7/site-packages/keystoneauth1/access/service_catalog.py",'
        " line 407, in endpoint_data_for",
        "    raise exceptions.EndpointNotFound(msg)",
        "EndpointNotFound: publicURL endpoint for volumev3 service not found",
    )
    (tb,) = p.trace.tracebacks
    assert (tb.exc_type, tb.origin) == ("EndpointNotFound", "client")
    assert tb.client_frame is not None and tb.client_frame.function == "endpoint_data_for"


def test_traceback_of_an_indented_block() -> None:
    p = parse(
        "  Traceback (most recent call last):",
        '    File "/opt/x/novaclient/shell.py", line 789, in main',
        "      OpenStackComputeShell().main(argv)",
        "  EndpointNotFound",
        "  ERROR (EndpointNotFound):",
    )
    (tb,) = p.trace.tracebacks
    assert tb.exc_type == "EndpointNotFound"
    assert [m.kind for m in p.trace.messages] == ["error"]


def test_client_frame_skips_argument_helpers() -> None:
    p = parse(
        "Traceback (most recent call last):",
        '  File "/usr/local/lib/python2.7/dist-packages/osc_lib/session.py", line 27, in __init__',
        "    super(TimingSession, self).__init__(**kwargs)",
        '  File "/usr/lib/python2.7/dist-packages/positional/__init__.py", line 101, in inner',
        "    return wrapped(*args, **kwargs)",
        "TypeError: __init__() got an unexpected keyword argument 'app_name'",
    )
    (tb,) = p.trace.tracebacks
    assert tb.client_frame is not None and tb.client_frame.file.endswith("osc_lib/session.py")


def test_one_word_exception_names() -> None:
    p = parse(
        "Traceback (most recent call last):",
        '  File "/x/a.py", line 1, in f',
        "    g()",
        "Unauthorized: Unknown auth type: None",
    )
    assert p.trace.tracebacks[0].exc_type == "Unauthorized"


# -- a service's log pasted beside the client's -----------------------------------
def test_service_log_lines_are_kept_apart() -> None:
    p = parse(
        "[root@controller ~]# grep ERROR  /var/log/nova/nova-api.log",
        "2022-03-22 19:19:10.936 533 ERROR nova.api.openstack.wsgi [req-d8bb1060-35f7-40fe-"
        "8946-ecd51156585e 8e98 fdd6 - default default] Unexpected exception in API method: "
        "Unauthorized: Unknown auth type: None",
        "2022-03-22 19:19:10.936 533 ERROR nova.api.openstack.wsgi Traceback (most recent "
        "call last):",
        '2022-03-22 19:19:10.936 533 ERROR nova.api.openstack.wsgi   File "/usr/lib/python2.'
        '7/site-packages/nova/network/neutronv2/api.py", line 91, in _load_auth_plugin',
        "2022-03-22 19:19:10.936 533 ERROR nova.api.openstack.wsgi     raise neutron_client_"
        "exc.Unauthorized(message=err_msg)",
        "2022-03-22 19:19:10.936 533 ERROR nova.api.openstack.wsgi Unauthorized: Unknown "
        "auth type: None",
    )
    t = p.trace
    assert [m.kind for m in t.messages] == ["command"] + ["server"] * 5
    (tb,) = t.tracebacks
    assert (tb.origin, tb.exc_type) == ("server", "Unauthorized")
    assert t.format == "unknown" and t.exchanges == []


def test_grep_file_prefix_before_a_service_line() -> None:
    p = parse(
        "/var/log/nova/nova-compute.log:2022-03-23 11:02:16.467 970 ERROR nova.compute."
        "manager [req-8f7d61d1] Build of instance 77ef aborted: Auth plugin requires "
        "parameters which were not given: auth_url"
    )
    (m,) = p.trace.messages
    assert m.kind == "server" and m.text.startswith("2022-03-23 11:02:16.467 970 ERROR nova.")


# -- Ansible and openshift-install reports -------------------------------------
def test_ansible_result_json_is_read_as_the_lines_it_holds() -> None:
    p = parse(
        'fatal: [undercloud]: FAILED! => {"changed": true, "cmd": "openstack --debug server '
        'list", "rc": 1, "stderr": "Unable to establish connection to http://10.0.0.1:5000/v3'
        "/auth/tokens: HTTPConnectionPool(host='10.0.0.1', port=5000): Max retries exceeded "
        "with url: /v3/auth/tokens (Caused by NewConnectionError('<urllib3.connection."
        "HTTPConnection object at 0x7f>: Failed to establish a new connection: [Errno 111] "
        'Connection refused\'))\\nEND return value: 1", "stdout": ""}'
    )
    t = p.trace
    (ex,) = t.exchanges
    assert ex.error is not None and ex.error.kind == "connection-refused"
    assert (t.command, t.exit_code) == ("openstack server list", 1)
    assert t.messages[0].text == "fatal: [undercloud]: FAILED!"


def test_openshift_install_level_msg_lines_are_unescaped() -> None:
    p = parse(
        'level=debug msg="\\t* ironic_node_v1.openshift-master.1: Expected HTTP response '
        "code [202] when accessing [PUT http://localhost:6385/v1/nodes/74736478-ef0c-4356-b9ec-"
        '9c69e158c802/states/provision], but got 409 instead"',
        'level=debug msg="{\\"error_message\\": \\"{\\\\\\"debuginfo\\\\\\": null, \\\\\\"'
        'faultcode\\\\\\": \\\\\\"Client\\\\\\", '
        '\\\\\\"faultstring\\\\\\": \\\\\\"Node '
        "74736478 is locked by host gold-4s-a, please retry after the current operation is "
        'completed.\\\\\\"}\\"}"',
    )
    (ex,) = p.trace.exchanges
    assert (ex.request.method, ex.status, ex.service) == ("PUT", 409, "baremetal")
    assert ex.response is not None and ex.response.body is not None
    assert "is locked by host" in ex.response.body.json()["error_message"]


# -- paste damage -------------------------------------------------------------------
@pytest.mark.parametrize(
    "raw,text",
    [
        ("<code># nova --debug flavor-list", "# nova --debug flavor-list"),
        (
            "ERROR: Invalid OpenStack Nova credentials.</code>",
            "ERROR: Invalid OpenStack Nova credentials.",
        ),
        ("<code><code></code></code>", ""),
        (
            '`No handlers could be found for logger "keystoneauth.identity.generic.base"`',
            'No handlers could be found for logger "keystoneauth.identity.generic.base"',
        ),
        (
            "  RESP: [200] {'date': 'Thu, 06 Jun 2013 09:50:22 GMT'}",
            "RESP: [200] {'date': 'Thu, 06 Jun 2013 09:50:22 GMT'}",
        ),
        ('  File "/x.py", line 1, in f', '  File "/x.py", line 1, in f'),  # frames keep theirs
        ("```bash", ""),
    ],
)
def test_unpaste(raw: str, text: str) -> None:
    assert unpaste(raw)[0] == text


@pytest.mark.parametrize(
    "raw,text",
    [
        (
            "--publicurl [http://controller:5000/v2.0](http://controller:5000/v2.0) --region r",
            "--publicurl http://controller:5000/v2.0 --region r",
        ),
        ("mail [ops@example.org](mailto:ops@example.org)", "mail ops@example.org"),
        ("at [controller:5000](http://controller:5000)", "at controller:5000"),
        # A link that says something of its own is the poster's.
        (
            "see [the guide](https://docs.openstack.org/x)",
            "see [the guide](https://docs.openstack.org/x)",
        ),
        ("{'a': [1](2)}", "{'a': [1](2)}"),
    ],
)
def test_a_link_to_itself_is_the_bare_url_it_was(raw: str, text: str) -> None:
    assert unlink(raw) == text


def test_a_mirrored_command_line_keeps_its_urls_bare() -> None:
    trace = parse(
        "$ keystone endpoint-create --publicurl [http://c:5000/v2.0](http://c:5000/v2.0) --region x"
    ).finish()
    assert trace.command == "keystone endpoint-create --publicurl http://c:5000/v2.0 --region x"


@pytest.mark.parametrize(
    "line",
    [
        "...",
        "......",
        "...생략...",
        "[... collector: remainder not retrieved ...]",
        "--- (second run, later in the same write-up, section f) ---",
        "(...)",
        "[... collector gap: the token",
    ],
)
def test_elisions(line: str) -> None:
    assert is_elision(line)


@pytest.mark.parametrize(
    "line", ["+-----+", "...done", "[root@h ~]# nova list", "---", "- item", "(none)"]
)
def test_not_elisions(line: str) -> None:
    assert not is_elision(line)


@pytest.mark.parametrize(
    "line,command,client",
    [
        ("[root@controller-6 ~]# nova --debug list", "nova list", "novaclient"),
        (
            "(ansible)vagrant@localhost:~/nifi_examples/ansible-hdp$ nova --insecure list",
            "nova --insecure list",
            "novaclient",
        ),
        (
            "stack@rocky:~/cinder$ openstack --debug server add volume vm-ml-1 liangr",
            "openstack server add volume vm-ml-1 liangr",
            "openstackclient",
        ),
        (
            "(pipenv_G) [dichen@dilaptop Downloads]$ openstack image create --file ./x.raw x",
            "openstack image create --file ./x.raw x",
            "openstackclient",
        ),
        (
            "$ openstack image create --volume 4adf --disk-format qcow2 x",
            "openstack image create --volume 4adf --disk-format qcow2 x",
            "openstackclient",
        ),
        (
            "+ openstack user create --domain default --password *** glance",
            "openstack user create --domain default --password *** glance",
            "openstackclient",
        ),
        (
            " heat stack-create my-openshift -t 180   -e openshift_parameters.yaml",
            "heat stack-create my-openshift -t 180 -e openshift_parameters.yaml",
            "heatclient",
        ),
        ("system --debug host-list", "system host-list", "cgtsclient"),
        ("gnocchi --debug resource list", "gnocchi resource list", "gnocchiclient"),
        (" \u201cnova --debug volume-list\u201d ", "nova volume-list", "novaclient"),
        ("[root@cloud ~]# cinder --debug list", "cinder list", "cinderclient"),
        (
            "[root@controller ~]# grep ERROR  /var/log/nova/nova-api.log",
            "grep ERROR  /var/log/nova/nova-api.log",
            "unknown",
        ),
    ],
)
def test_command_lines(line: str, command: str, client: str) -> None:
    assert recognise(line) is not None
    got = recognise(line)
    assert got is not None and (got[0], got[1]) == (command, client)


@pytest.mark.parametrize(
    "line",
    [
        '"heat stack-create" is deprecated, please use "openstack stack create" instead',
        "system failed to start",
        "heat the oven",
        "# Troubleshooting",
        "openstack is a cloud.",
        "nova-compute is down",
    ],
)
def test_prose_is_not_a_command(line: str) -> None:
    assert recognise(line) is None


def test_the_first_client_command_names_the_run() -> None:
    p = parse(
        "[root@h ~]# source admin-openrc.sh",
        "[root@h ~]# cinder list",
        "ERROR: publicURL endpoint for volumev3 service not found",
        "[root@h ~]# cinder --debug list",
    )
    t = p.trace
    assert (t.command, t.command_line, t.client) == ("cinder list", 2, "cinderclient")
    assert [c.text for c in t.commands] == ["source admin-openrc.sh", "cinder list", "cinder list"]
