"""Real pastes without --debug from public threads (Glance, Swift, and what wraps
the clients: Ansible, terraform, gophercloud, CI and deployment tools), each
with the cause its thread established (fixtures/wild/INDEX.md): the first
error finding names that cause, and every renderer takes the report.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from osdoctor.diagnose import diagnose, parse_path
from osdoctor.kb.loader import KnowledgeBase, load_knowledge
from osdoctor.model import Report
from tests.helpers.wild_pastes import pinned_cause_tests

WILD = Path(__file__).resolve().parent / "fixtures" / "wild"

# file -> (first error rule, words its title must hold), case-insensitive.
CASES: dict[str, tuple[str, list[str]]] = {
    "glanceclient-2014-image-create-410-store-config-disabled": (
        "known.glance-store-disabled",
        ["Glance", "410", "[glance_store]"],
    ),
    "swiftclient-2015-upload-413-object-over-5gb-hubic": (
        "known.swift-object-too-large",
        ["Swift", "413", "max_file_size", "segments"],
    ),
    "ansible-2017-glance-image-show-too-few-arguments-empty-var": (
        "generic.usage-missing-argument",
        ["glance image-show", "<IMAGE_ID>", "empty variable"],
    ),
    "teuthology-2025-ip-floating-list-not-an-openstack-command": (
        "osc.command-unknown",
        ["'ip floating list'", "renamed or removed", "plugin"],
    ),
    "ansible-2017-glance-copy-from-400-external-sources-unsupported": (
        # Glance v1's own words name the cause; no lab client can say them (v1 only).
        "generic.bad-request",
        ["Glance", "400", "External sources are not supported"],
    ),
    "swiftclient-2018-s3-sync-object-put-404-container-missing": (
        "known.swift-container-missing",
        ["404", "container dest_cont does not exist", "create it first"],
    ),
    "osc-2020-container-create-403-swift-operator-role": (
        # Only Swift's transaction id (tx...-...) says which service answered.
        "known.swift-operator-role-missing",
        ["Swift", "403", "operator_roles"],
    ),
    # gophercloud's "expected [...] but got 2xx": a success the client did not expect.
    "terraform-2015-volume-create-202-unexpected-v1-client-v2-endpoint": (
        "generic.failure",
        ["Cinder accepted the volume (202)", "the client expected another status"],
    ),
    "terraform-otc-2021-user-welcome-201-unexpected-success": (
        "generic.failure",
        ["accepted", "(201)", "the client expected another status"],
    ),
    "swiftclient-2025-monitoring-plugin-keystoneclient-missing": (
        "generic.swift-keystoneclient-missing",
        ["python-keystoneclient", "cannot import it"],
    ),
}
SUCCESSES: list[str] = []


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return load_knowledge(user=False)


test_first_finding_names_the_established_cause, test_every_format_renders_without_a_traceback = (
    pinned_cause_tests(CASES, SUCCESSES)
)


def _report(name: str, kb: KnowledgeBase) -> Report:
    return diagnose(parse_path(WILD / f"{name}.log"), kb)


def test_a_pipe_after_the_command_is_not_the_clients() -> None:
    trace = parse_path(WILD / "ansible-2017-glance-image-show-too-few-arguments-empty-var.log")
    assert trace.command == "glance image-show"


def test_a_url_the_service_quotes_is_not_the_failing_call(kb: KnowledgeBase) -> None:
    report = _report("ansible-2017-glance-copy-from-400-external-sources-unsupported", kb)
    assert report.facts is not None and report.facts.failure is not None
    assert "httpd.pharmb.io" not in report.facts.failure.url
