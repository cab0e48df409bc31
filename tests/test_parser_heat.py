"""The heat shell's --debug lines, in the shapes python-heatclient 5.3.0 prints them.

The deprecated ``heat`` shell logs through Python's console handler as
``DEBUG (session) msg``, prints no command line (only a deprecation warning
naming the subcommand) and no urllib3 lines, so a followed redirect shows as two
RESP lines after one REQ. Whole logs come from real runs (tests/fixtures/logs).
"""

from __future__ import annotations

import pytest

from osdoctor.parse.prefixes import PrefixStripper
from tests.test_parser_formats import parse

EP = "http://127.0.0.1:47391/heat-api/v1/p1"
WARN = (
    'WARNING (shell) "heat stack-update" is deprecated, please use "openstack stack update" instead'
)
PUT = (
    f'DEBUG (session) REQ: curl -g -i -X PUT {EP}/stacks/web -H "Accept: application/json" '
    '-H "X-Auth-Token: {SHA256}abc"'
)
RESP_302 = (
    f"DEBUG (session) RESP: [302] Content-Length: 0 Date: Sun, 01 Nov 2026 12:00:00 GMT "
    f"Location: {EP}/stacks/web/s1 Server: x x-openstack-request-id: req-1"
)
RESP_202 = (
    "DEBUG (session) RESP: [202] Content-Length: 0 Date: Sun, 01 Nov 2026 12:00:00 GMT "
    "x-openstack-request-id: req-2"
)
RESP_302_NO_LOCATION = "DEBUG (session) RESP: [302] Content-Length: 0 x-openstack-request-id: r"
OMITTED = (
    "DEBUG (session) RESP BODY: Omitted, Content-Type is set to None. Only "
    "application/json, text/plain responses have their bodies logged."
)


@pytest.mark.parametrize(
    "line,text",
    [
        (
            "DEBUG (session) REQ: curl -g -i -X GET http://h/v3",
            "REQ: curl -g -i -X GET http://h/v3",
        ),
        (
            "DEBUG (base) Making authentication request to http://h/v3/auth/tokens",
            "Making authentication request to http://h/v3/auth/tokens",
        ),
        (WARN, WARN[16:]),
        ("DEBUG (session:375) RESP: [200]", "RESP: [200]"),
    ],
)
def test_heat_shell_prefix_is_stripped(line: str, text: str) -> None:
    assert PrefixStripper().strip(line).text == text


def test_heat_shell_command_comes_from_the_deprecation_warning() -> None:
    later = '"heat stack-list" is deprecated, please use "openstack stack list" instead'
    p = parse(WARN, PUT, later)
    assert p.trace.command == "heat stack-update"
    assert p.trace.command_line == 1
    assert p.trace.client == "heatclient"


@pytest.mark.parametrize(
    "lines,answers",
    [
        # followed redirect: the second RESP belongs to the Location's request
        (
            (PUT, RESP_302, OMITTED, RESP_202, OMITTED),
            [("PUT", f"{EP}/stacks/web", 302), ("PUT", f"{EP}/stacks/web/s1", 202)],
        ),
        # a 302 without Location is not followed: one answer only
        ((PUT, RESP_302_NO_LOCATION, OMITTED), [("PUT", f"{EP}/stacks/web", 302)]),
    ],
)
def test_a_followed_redirect_without_a_new_request_line(
    lines: tuple[str, ...], answers: list[tuple[str, str, int]]
) -> None:
    exchanges = parse(*lines).trace.exchanges
    assert [(e.request.method, e.request.url, e.status) for e in exchanges] == answers
    if len(exchanges) == 2:
        assert exchanges[1].redirected_from == exchanges[0].index
        assert exchanges[1].request.logged_as == "redirect"
