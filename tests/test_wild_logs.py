"""Real logs from public threads that osdoctor was not built on (fixtures/wild/,
INDEX.md gives each one's source and established cause): the first error
finding names that cause, the successful run gets no error or warning, and no
log makes any renderer fail.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest

from osdoctor.diagnose import diagnose, parse_path
from osdoctor.kb.loader import KnowledgeBase, load_knowledge
from osdoctor.model import Report
from osdoctor.render.json_report import render_json
from osdoctor.render.markdown_report import render_markdown
from osdoctor.render.text import render_text
from tests.helpers.causes import assert_names_the_cause

WILD = Path(__file__).resolve().parent / "fixtures" / "wild"

# file -> (first error rule, words its title must hold), case-insensitive.
CASES: dict[str, tuple[str, list[str]]] = {
    "gophercloud-2024-server-create-quota-exceeded-instances-403": (
        "known.quota-exceeded-for",
        ["Quota exceeded for instances", "10 of 10"],
    ),
    "osc-2017-quota-set-policy-403-backticks": (
        "generic.forbidden",
        ["Nova forbids", "os_compute_api:os-quota-sets:update"],
    ),
    "heat-2016-stack-overlimit-volume-quota-413": (
        "generic.quota-exceeded",
        ["Cinder quota exceeded", "Maximum number of volumes"],
    ),
    "heat-2016-event-list-overquota-security-group-table": (
        "known.quota-exceeded-for",
        ["Quota exceeded for resources", "security_group"],
    ),
    "novaclient-2015-check-forbidden-policy-forced-host": (
        "generic.forbidden",
        ["Nova forbids", "compute:create:forced_host"],
    ),
    "gophercloud-2019-exporter-policy-403-hypervisors": (
        "generic.forbidden",
        ["forbids", "Policy doesn't allow"],
    ),
    "nova-2015-secgroup-add-rule-500-api-router-traceback": (
        # nova-api.log's TRACE line, pasted under the client's error.
        "server.service-error",
        ["nova-api", "'APIRouterV21' object has no attribute '_router'"],
    ),
    "terraform-2015-volume-delete-400-status-deleting": (
        "known.cinder-volume-status-refused",
        ["Cinder", "400", "the volume is deleting"],
    ),
    "vagrant-fog-2014-volume-delete-400-in-use": (
        "known.cinder-volume-status-refused",
        ["Cinder", "400", "the volume is in-use"],
    ),
    "nova-2016-boot-novalidhost-fault-wrapped-table": (
        "known.no-valid-host",
        ["No valid host was found"],
    ),
    "ansible-2018-server-novalidhost-quoted-json": (
        "known.no-valid-host",
        ["No valid host was found", "not enough hosts"],
    ),
    "swift-2014-stat-401-account-head-failed": (
        "generic.token-refused",
        ["Swift", "401"],
    ),
    "elasticluster-2017-keystoneauth-ssl-verify-failed": (
        "generic.tls-failure",
        ["Keystone at <API host>:5000", "CERTIFICATE_VERIFY_FAILED"],
    ),
    "osc-2024-project-list-missing-auth-url": (
        "osc.auth-not-configured",
        ["No cloud is configured", "auth-url"],
    ),
    "ansible-shade-2018-keystone-endpoint-auth-url-missing": (
        "generic.auth-not-configured",
        ["No credentials are configured", "Auth plugin requires"],
    ),
    "osc-2016-token-issue-401-quoted-no-role": (
        "generic.auth-refused",
        ["Keystone refused user demo on project demo", "no role"],
    ),
    "osc-2017-token-issue-keystone-500-v2-ignoring-domain": (
        "generic.server-error",
        ["Keystone failed (500)"],
    ),
    "korc-2025-glance-import-409-image-not-queued": (
        "generic.conflict",
        ["Glance", "409", "Image needs to be in 'queued' state"],
    ),
    "sunbeam-ci-2025-image-list-connection-reset-sshuttle": (
        "generic.connection-reset",
        ["10.241.38.135:443", "Keystone", "closed the connection"],
    ),
    "cinder-csi-gophercloud-volume-resize-406-microversion": (
        "generic.microversion-unsupported",
        ["Cinder", "3.42", "3.0 to 3.27"],
    ),
    "cinderclient-2023-service-list-406-version-too-new": (
        "generic.microversion-unsupported",
        ["Cinder", "3.70", "3.0 to 3.68"],
    ),
    "devstack-2024-project-show-502-versioned-identity-xtrace": (
        "generic.backend-unavailable",
        ["Keystone", "502", "Bad Gateway"],
    ),
    "kolla-notes-tls-ip-address-mismatch-wrapped-vietnamese": (
        "generic.tls-failure",
        ["10.10.210.11", "IP address mismatch"],
    ),
    "swift-2019-radosgw-v1-auth-401-secret-regenerated": (
        "generic.swift-auth-refused",
        ["Swift's own auth", "401", "-K key"],
    ),
    "swift-2018-radosgw-auth-403-nginx-deny": (
        "generic.swift-auth-refused",
        ["Swift's own auth", "403", "proxy's rule"],
    ),
}
SUCCESSES = ["keystoneclient-2017-tenant-list-success"]


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return load_knowledge(user=False)


def _report(name: str, kb: KnowledgeBase) -> Report:
    return diagnose(parse_path(WILD / f"{name}.log"), kb)


def _pinned_elsewhere() -> list[str]:
    """The pastes pinned by every tests/test_wild_pastes_*.py module."""
    names: list[str] = []
    for path in sorted(Path(__file__).parent.glob("test_wild_pastes_*.py")):
        module = importlib.import_module(f"tests.{path.stem}")
        names += [*module.CASES, *getattr(module, "SUCCESSES", [])]
    return names


def test_every_wild_log_is_covered_and_indexed() -> None:
    names = sorted(p.name.removesuffix(".log") for p in WILD.glob("*.log"))
    assert names == sorted([*CASES, *SUCCESSES, *_pinned_elsewhere()])
    index = (WILD / "INDEX.md").read_text(encoding="utf-8")
    rows = {line.split(" | ")[0].strip("| "): line for line in index.splitlines()}
    for name in names:
        source = rows[f"{name}.log"].split(" | ")[1]
        assert source.startswith("http") or "index id" in source, (name, source)


@pytest.mark.parametrize("name", sorted(CASES))
def test_first_finding_names_the_established_cause(name: str, kb: KnowledgeBase) -> None:
    rule, words = CASES[name]
    assert_names_the_cause(_report(name, kb), rule, words)


@pytest.mark.parametrize("name", SUCCESSES)
def test_a_successful_run_gets_no_error_or_warning(name: str, kb: KnowledgeBase) -> None:
    report = _report(name, kb)
    assert report.outcome != "failure"
    assert [f.id for f in report.findings if f.severity in ("error", "warning")] == []


@pytest.mark.parametrize("name", sorted([*CASES, *SUCCESSES]))
def test_every_format_renders_without_a_traceback(name: str, kb: KnowledgeBase) -> None:
    report = _report(name, kb)
    assert render_text(report) and render_markdown(report)
    assert json.loads(render_json(report))["outcome"] == report.outcome


def test_a_command_typed_over_several_lines_is_one_command() -> None:
    trace = parse_path(WILD / "osc-2016-token-issue-401-quoted-no-role.log")
    assert trace.command is not None
    assert trace.command.startswith("openstack --os-auth-url http://libcontroller:5000/v3 ")
    assert trace.command.endswith("--os-auth-type password token issue")
