"""Line shapes of the standalone baremetal shell (python-ironicclient's own cliff app).

It logs to stderr as ``%(asctime)s %(levelname)s: %(name)s %(message)s`` (note
the colon after the level) and prints no ``START with options`` line, so the
parser knows it by its own words. Single lines in the real shapes; whole logs
come from the lab (tests/fixtures/logs/ironic.standalone.*).
"""

from __future__ import annotations

import pytest

from osdoctor.intake import parse_lines
from osdoctor.parse.lines import text_lines
from osdoctor.parse.prefixes import PrefixStripper

REQ = (
    "2026-11-30 02:29:54,390 DEBUG: keystoneauth.session REQ: curl -g -i -X GET "
    'http://127.0.0.1:47391/baremetal/v1/nodes -H "Accept: application/json" '
    '-H "X-OpenStack-Ironic-API-Version: 1.115"'
)
RESP = (
    "2026-11-30 02:29:54,399 DEBUG: keystoneauth.session RESP: [200] Content-Length: 13 "
    "Content-Type: application/json X-OpenStack-Ironic-API-Maximum-Version: 1.115"
)


@pytest.mark.parametrize(
    "line,text",
    [
        (
            "2026-11-30 02:29:54,388 DEBUG: ironicclient.shell Using bare metal API version 1.115, "
            "downgrade allowed",
            "Using bare metal API version 1.115, downgrade allowed",
        ),
        (
            "2026-11-30 02:30:20,522 DEBUG: ironicclient.common.http "
            "Negotiated API version is 1.90",
            "Negotiated API version is 1.90",
        ),
        (REQ, REQ.split("keystoneauth.session ", 1)[1]),
        # the osc-lib --log-file shape still reads as before
        ("2026-11-30 02:00:58.123 12345 DEBUG keystoneauth.session [c u p] msg", "msg"),
    ],
)
def test_level_colon_logfile_prefix(line: str, text: str) -> None:
    stripped = PrefixStripper().strip(line)
    assert stripped.text == text
    assert stripped.time == 0.0


@pytest.mark.parametrize(
    "lines,client,lines_seen",
    [
        (
            [
                "2026-11-30 02:29:54,388 DEBUG: ironicclient.shell Using bare metal API version "
                "latest, downgrade disallowed"
            ],
            "ironicclient",
            1,
        ),
        (
            [
                "usage: baremetal [--version] [-v | -q] [--log-file LOG_FILE] [-h] [--debug]",
                "baremetal: error: ambiguous option: --os-endpoint could match "
                "--os-endpoint-override, --os-endpoint-type",
            ],
            "ironicclient",
            1,
        ),
        (["usage: heat [--version]"], "unknown", 0),
    ],
)
def test_standalone_shell_is_ironicclient(lines: list[str], client: str, lines_seen: int) -> None:
    t = parse_lines(text_lines(lines))
    assert t.client == client
    assert t.openstack_lines == lines_seen
    assert t.command is None


def test_standalone_exchange_and_version() -> None:
    t = parse_lines(
        text_lines(
            [
                REQ,
                RESP,
                "2026-11-30 02:30:20,522 DEBUG: ironicclient.common.http "
                "Negotiated API version is 1.90",
            ]
        )
    )
    assert [(e.request.method, e.response.status if e.response else None) for e in t.exchanges] == [
        ("GET", 200)
    ]
    assert t.api_versions["baremetal"] == "1.90"
    assert t.format == "log-file"
