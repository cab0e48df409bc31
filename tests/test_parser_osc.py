"""Parser checks for openstackclient's authentication lines, in their real shapes.

keystoneauth first says only that discovery failed ("Failed to discover
available identity versions"); its next line names the transport cause. The
discovery exchange must end up with that cause, so that a refused port, a TLS
failure and a dropped connection are told apart.
"""

from __future__ import annotations

import pytest

from osdoctor.intake import parsed_lines
from osdoctor.parse.lines import text_lines
from osdoctor.parse.wraps import Widths

URL = "http://127.0.0.1:9/identity/v3"
TLS_URL = "https://127.0.0.1:47391/identity/v3"
REQ = 'REQ: curl -g -i -X GET {url} -H "Accept: application/json"'
FAILED = (
    "Failed to discover available identity versions when contacting {url}. "
    "Attempting to parse version from URL."
)
SUMMARY = (
    "Could not find versioned identity endpoints when attempting to authenticate. "
    "Please check that your auth_url is correct. "
)
REFUSED = (
    "Unable to establish connection to {url}: HTTPConnectionPool(host='127.0.0.1', "
    "port=9): Max retries exceeded with url: /identity/v3 (Caused by NewConnectionError("
    "\"HTTPConnection(host='127.0.0.1', port=9): Failed to establish a new connection: "
    '[Errno 111] Connection refused"))'
)
DROPPED = (
    "Unable to establish connection to {url}: ('Connection aborted.', "
    "RemoteDisconnected('Remote end closed connection without response'))"
)
TLS = (
    "SSL exception connecting to {url}: HTTPSConnectionPool(host='127.0.0.1', port=47391): "
    "Max retries exceeded with url: /identity/v3 (Caused by SSLError(SSLError(1, "
    "'[SSL: WRONG_VERSION_NUMBER] wrong version number (_ssl.c:1006)')))"
)


def kinds(*lines: str) -> list[str | None]:
    trace = parsed_lines(text_lines(lines), widths=Widths()).trace
    return [ex.error.kind if ex.error else None for ex in trace.exchanges]


@pytest.mark.parametrize(
    "url,cause,kind",
    [
        (URL, REFUSED, "connection-refused"),
        (URL, DROPPED, "connection"),
        (TLS_URL, TLS, "tls"),
    ],
)
def test_failed_discovery_takes_the_transport_cause(url: str, cause: str, kind: str) -> None:
    lines = [REQ.format(url=url), FAILED.format(url=url), SUMMARY + cause.format(url=url)]
    assert kinds(*lines) == [kind]


def test_a_failed_discovery_without_a_cause_stays_a_discovery_failure() -> None:
    assert kinds(REQ.format(url=URL), FAILED.format(url=URL)) == ["discovery"]


def test_the_cause_of_another_url_changes_nothing() -> None:
    other = SUMMARY + REFUSED.format(url="http://127.0.0.1:5000/v3")
    assert kinds(REQ.format(url=URL), FAILED.format(url=URL), other) == ["discovery"]
