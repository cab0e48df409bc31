"""A log folded or cut by a terminal, a ticket or a chat explains as the log itself.

Every real fixture is folded at 80, 100, 132 and 200 columns, as a terminal
of that width or a tool that wraps at it would, and cut at 200 characters, as
a chat that truncates long lines would: the scenario, the branch and the
findings must be those of the fixture as captured. Joining the pieces costs
what reading them costs: the work done grows with the input, not with its
square (a log whose lines all have one length, an nginx access log, is the
worst case of a fixed-width wrap).
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest

from osdoctor.diagnose import diagnose, parse_stream
from osdoctor.intake import parsed_lines
from osdoctor.kb.loader import KnowledgeBase, load_knowledge
from osdoctor.parse import parser as parser_module
from osdoctor.parse.lines import read_lines
from osdoctor.parse.wraps import Widths, detect_width
from osdoctor.secrets import redact as redact_module
from osdoctor.secrets.redact import PemMasker
from tests.helpers.pastes import cut, fold, one_length_log

LOGS = Path(__file__).resolve().parent / "fixtures" / "logs"
FIXTURES = sorted(p.name.removesuffix(".expected.yaml") for p in LOGS.glob("*.expected.yaml"))
#: Fixtures whose verdict rests on text past column 200, which a cut loses
#: for good (a fold keeps it): the header, message or URL the rule reads.
LOST_PAST_200 = {
    # heatclient's own HTTP client logs the URL last, past column 200.
    "heat.software-deployment.no-signal": "POST /software_configs URL",
    "heat.software-deployment.no-signal-config": "POST /software_configs URL",
    "heat.software-deployment.tempurl-swift": "PUT URL of the heat shell",
    "heat.software-deployment.tempurl-swift-prefixed": "PUT URL of the heat shell",
    "heat.stack-create.create-complete-heat-shell": "events URL of the heat shell",
    "heat.stack-hook.hook-set": "POST /stacks URL of the heat shell",
    # ironicclient's retry lines and the bulk create's per-node result.
    "ironic.bulk-create.partial": "the node's 'already exists' message",
    "ironic.bulk-create.partial-rerun": "the node's 'already exists' message",
    "ironic.bulk-create.port-mismatch": "the port's error message",
    "ironic.conflict-retry.exhausted-409": "'Attempt 6 of 6'",
    "ironic.conflict-retry.exhausted-503-standalone": "'Attempt 6 of 6'",
    "ironic.conflict-retry.recovered": "'Error contacting Ironic server: ... Attempt'",
    "ironic.provision-wait.unexpected-stable": "the wait's final message",
    # The service's fault text or the transport failure's cause (the facts the
    # generic and fingerprint rules quote) past column 200 of its line.
    "generic.osc-server-list-500-inner": "Nova's fault message",
    "generic.osc-server-list-500-neutron-unauthorized": "Nova's fault message",
    "generic.server-nova-amqp-unreachable": "Nova's fault message",
    "generic.server-nova-cell-unreachable": "Nova's fault message",
    "generic.server-nova-db-unreachable": "Nova's fault message",
    "generic.server-nova-glance-unreachable": "Nova's fault message",
    "generic.server-nova-rpc-timeout": "Nova's fault message",
    "generic.server-secrets-in-service-log": "Nova's fault message",
    "generic.server-neutron-config-unparsable": "the refused connection's cause",
    "heat.stack-create.rejected": "Heat's fault message",
    "heat.stack-create.rejected-exists": "Heat's fault message",
    "heat.stack-create.rejected-resource-type": "Heat's fault message",
    "ironic.conflict-retry.exhausted-409-state-transition": "'Attempt 6 of 6'",
    "ironic.provision-wait.already-there": "the wait's final message",
    "osc.auth.keystone-unreachable-proxy": "'Tunnel connection failed: 403'",
    "osc.auth.keystone-unreachable-tls": "the SSL error's reason",
    "osc.find-by-name.found-by-id-error-auth-url": "the server's fault message",
    "osc.find-by-name.found-by-id-error-network": "the server's fault message",
    "osc.find-by-name.found-by-id-error-no-valid-host": "the server's fault message",
    "osc.find-by-name.found-by-id-error-retries": "the server's fault message",
    "osc.find-by-name.found-by-id-error-volume": "the server's fault message",
    "osc.find-by-name.found-by-id-error-volume-slow": "the server's fault message",
    # The service's words after openstacksdk's "Client Error for url: <url>, ".
    "generic.task-state-reboot.plain": "Nova's words after the URL",
    "osc.multi-delete.partial-failure-locked.plain": "Nova's words after the URL",
    "generic.vm-state-error-reboot.plain": "Nova's words after the URL",
    "generic.resize-confirm-not-ready.plain": "Nova's words after the URL",
    "generic.stopped-server-resume.plain": "Nova's words after the URL",
    "generic.resize-no-host-same-host.plain": "Nova's words after the URL",
    "generic.osc-keypair-create-400-additional-properties.plain": "Nova's words after the URL",
    "osc.server-create.user-data-too-large.plain": "Nova's words after the URL",
    "generic.server-show-fault-az-mismatch": "the server's fault message",
    # The transport failure's cause or the fault text, late in its line.
    "generic.conflict-locked-ironic": "Ironic's 'is locked by host' message",
    "generic.conflict-state-transition": "'Attempt 6 of 6'",
    "generic.conn-refused": "'Connection refused' in the urllib3 error",
    "generic.nova-500-wraps-neutron": "Nova's fault message",
    "generic.proxy-tunnel-403": "'Tunnel connection failed: 403'",
    "generic.timeout": "'Attempt N of N' of the retry lines",
    "generic.tls-wrong-version": "the SSL error's reason",
    # Neutron's and Cinder's words after openstacksdk's "<Error> for url: <url>, ".
    "generic.osc-floating-ip-set-400-no-gateway.plain": "Neutron's words after the URL",
    "generic.osc-floating-ip-set-404-external-not-reachable": "Neutron's fault, a JSON body cut",
    "generic.osc-floating-ip-set-404-external-not-reachable.plain": "Neutron's words after the URL",
    "generic.osc-router-remove-subnet-409-in-use-by-floating-ip": (
        "Neutron's fault, a JSON body cut"
    ),
    "generic.osc-router-remove-subnet-409-in-use-by-floating-ip.plain": (
        "Neutron's words after the URL"
    ),
    "generic.snapshot-create-in-use.plain": "Cinder's words after the URL",
    "generic.conflict-in-use-volume": "Cinder's words, late in its body",
    # swift's Etag and X-Trans-Id headers, late in the RESP line.
    "osc.object-upload.uploaded": "Etag and X-Trans-Id headers",
    "osc.object-upload.uploaded-local-path": "Etag and X-Trans-Id headers",
    "osc.object-upload.uploaded-name": "Etag and X-Trans-Id headers",
}


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return load_knowledge(user=False)


def verdict(text: str, kb: KnowledgeBase) -> tuple[str | None, str | None, list[str]]:
    report = diagnose(parse_stream(io.BytesIO(text.encode()), "pasted.log"), kb)
    scenario = report.scenario
    return (
        scenario.id if scenario else None,
        scenario.branch if scenario else None,
        [f.id for f in report.findings],
    )


@pytest.mark.parametrize("name", FIXTURES)
def test_a_folded_or_cut_fixture_keeps_its_verdict(name: str, kb: KnowledgeBase) -> None:
    text = (LOGS / f"{name}.log").read_text(encoding="utf-8")
    expected = verdict(text, kb)
    for width in (80, 100, 132, 200):
        assert verdict(fold(text, width), kb) == expected, f"folded at {width}"
    if name not in LOST_PAST_200:
        assert verdict(cut(text, 200), kb) == expected, "cut at 200"


def test_the_lost_list_names_fixtures_that_exist() -> None:
    assert set(LOST_PAST_200) <= set(FIXTURES)


@pytest.mark.parametrize("width", [80, 100, 132, 200])
def test_the_fold_width_is_found(width: int) -> None:
    text = (LOGS / "osc.server-create.error.log").read_text(encoding="utf-8")
    assert detect_width(fold(text, width).split("\n")) == width
    assert detect_width(text.split("\n")) is None


def _work(monkeypatch: pytest.MonkeyPatch, run: Callable[[bytes], object], data: bytes) -> int:
    """Characters that went through redaction while ``run`` read ``data``."""
    seen = [0]
    feed, redact = PemMasker.feed, redact_module.redact_line

    def counting_feed(self: PemMasker, text: str) -> str:
        seen[0] += len(text)
        return feed(self, text)

    def counting_redact(text: str) -> str:
        seen[0] += len(text)
        return redact(text)

    with monkeypatch.context() as m:
        m.setattr(PemMasker, "feed", counting_feed)
        m.setattr(parser_module, "redact_line", counting_redact)
        run(data)
    return seen[0]


def _explain_path(data: bytes) -> object:
    return parse_stream(io.BytesIO(data), "nginx.log")


def _line_path(data: bytes) -> object:
    return parsed_lines(read_lines(io.BytesIO(data)), "nginx.log", Widths()).trace


@pytest.mark.parametrize(
    "run", [_explain_path, _line_path], ids=["width-known", "width-found-after"]
)
def test_joining_wrapped_lines_grows_linearly(
    monkeypatch: pytest.MonkeyPatch, run: Callable[[bytes], object]
) -> None:
    small = _work(monkeypatch, run, one_length_log(2000))
    large = _work(monkeypatch, run, one_length_log(4000))
    assert small > 0
    assert large <= 2.2 * small
