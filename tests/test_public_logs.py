"""Real logs people posted in public threads, each with the cause its thread
established (tests/fixtures/public/INDEX.md): the first error finding names
that cause, the explanation or next steps carry the decisive specifics, the
successful run gets no error or warning, and no log makes osdoctor fail.

The logs are the project's own copies, as they were posted.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from osdoctor.cli import main
from osdoctor.diagnose import diagnose, parse_path
from osdoctor.kb.loader import KnowledgeBase, load_knowledge
from osdoctor.model import Report
from osdoctor.render.json_report import render_json
from osdoctor.render.markdown_report import render_markdown
from osdoctor.render.text import render_text
from osdoctor.runs.log_runs import read_runs_of_path
from tests.helpers.causes import assert_names_the_cause
from tests.helpers.public_logs import public_logs

# file prefix -> (first error rule, words the title must hold, words the
# explanation or next steps must hold), all case-insensitive.
CASES: dict[str, tuple[str, list[str], list[str]]] = {
    "nova-2013-flavor-list-401-no-admin-role": (
        "generic.auth-refused",
        ["Keystone refused", "project admin", "no role"],
        ["role assignment list", "project show"],
    ),
    "nova-2013-list-hang-unreachable-publicurl": (
        "generic.hung",
        ["hung", "240.0.1.5:8774"],
        ["--os-interface internal"],
    ),
    "nova-2014-volume-list-endpointnotfound-jumpgate": (
        "generic.endpoint-not-found",
        ["no endpoint", "volume"],
        ["catalog list"],
    ),
    "nova-2016-list-connectfailure-timeout-py2-nohandlers": (
        "generic.connection-timeout",
        ["timed out", "192.175.27.106:5000"],
        ["192.175.27.106", "firewall"],
    ),
    "heatclient-2016-stack-create-resource-type-not-found": (
        "known.heat-resource-type-not-found",
        ["OOShift::ContainerPort", "resource_registry"],
        ["resource_registry", "resource type list"],
    ),
    "gnocchi-2017-resource-list-401": (
        "generic.token-refused",
        ["Gnocchi", "401", "basic auth", "OS_AUTH_TYPE=password"],
        ["OS_AUTH_TYPE=password"],
    ),
    "osc-2017-user-list-typeerror-app_name-lib-conflict": (
        "generic.library-mismatch",
        ["Mismatched client libraries", "app_name"],
        ["keystoneauth", "virtualenv"],
    ),
    "osc-2017-image-create-from-volume-nonetype-subscriptable": (
        "generic.client-defect",
        ["bug in the client", "image/v2/image.py"],
        ["NoneType"],
    ),
    "cinder-2018-list-endpointnotfound-volumev3-logging-prefix": (
        "generic.endpoint-not-found",
        ["no endpoint", "volumev3"],
        ["OS_VOLUME_API_VERSION=2", "volumev3"],
    ),
    "osc-2020-catalog-list-ssl-wrong-version-number": (
        "generic.tls-wrong-version",
        ["10.170.140.112:5000", "does not speak TLS", "https://"],
        ["http://"],
    ),
    "osc-2020-image-create-proxy-tunnel-403": (
        "generic.proxy-refused",
        ["proxy refused", "403 Forbidden"],
        ["no_proxy"],
    ),
    "ironic-2019-terraform-gophercloud-409-node-locked": (
        "known.ironic-node-locked",
        ["74736478-ef0c-4356-b9ec-9c69e158c802", "locked", "gold-4s-a.tpb.lab.eng.brq.redhat.com"],
        ["retry"],
    ),
    "ironic-2021-ansible-baremetal-node-set-409-state-transition-wrapped": (
        # The Ansible report read as lines gives the command, so the scenario's own
        # retry rule leads; it quotes the refusal, whose last copy the paste cut
        # ("...state t"): the facts quote the whole copy before it, another node's.
        "ironic.retry-loop-exhausted",
        ["6 attempts", "retry loop", "state transition is in progress"],
        ["state transition is in progress", "provision_state"],
    ),
    "osc-2022-server-create-500-nova-missing-neutron-auth": (
        "known.nova-neutron-auth-missing",
        ["Neutron", "[neutron] section", "nova.conf"],
        ["auth_type", "restart"],
    ),
    "osc-2022-server-create-rc0-then-ERROR-compute-auth_url": (
        "known.build-aborted-auth-url",
        ["nova-compute", "auth_url"],
        ["compute node", "[neutron]"],
    ),
    "barbican-2022-secret-list-conn-refused-then-404-html": (
        "generic.connection-refused",
        ["192.168.100.11:9311", "connection refused"],
        ["ss -ltnp", "Listen 9311"],
    ),
    # read as one run, the last failure (run 2) decides: sysinv could not reach
    # Keystone, because /etc/hosts sent its auth URL's name to the wrong address
    "cgtsclient-stx-host-list-503-html-prints-None": (
        "known.keystone-unavailable-to-service",
        ["cannot reach Keystone", "503"],
        ["keystone_authtoken", "resolve"],
    ),
    "osc-2024-server-create-neutron-networknotfound-unresolved": (
        "known.build-aborted-network",
        ["allocate the network", "Network private could not be found"],
        ["network show"],
    ),
    "osc-2025-nixos-journald-nameresolution-then-keystone-500": (
        # The last stage's cause, from uWSGI's pasted traceback.
        "server.missing-module",
        ["No module named 'cgi'", "Keystone"],
        ["uWSGI"],
    ),
    "tripleo-2021-undercloud-install-ssl-verify-terminal-wrapped": (
        "generic.tls-failure",
        ["192.0.2.2:13000", "CERTIFICATE_VERIFY_FAILED"],
        ["--os-cacert"],
    ),
}
SUCCESS = "osc-2018-server-add-volume-benign-404-success"


# The second set (tests/fixtures/public-2/INDEX.md): file -> (first error rule,
# words its title must hold). Most are pastes without --debug. Where the cause is
# only in the service's own log lines pasted below the client's output (nova-api's
# traceback, neutron-server's), the client's side is pinned: the failing service
# and its answer; the service-log reader names the rest.
CASES_2: dict[str, tuple[str, list[str]]] = {
    "ceilometer-2015-meter-list-conn-refused-api-not-running-missing-deps": (
        "generic.connection-refused",
        ["172.16.0.200:8777", "Ceilometer", "connection refused"],
    ),
    "heat-2016-stack-create-overlimit-413-volume-quota": (
        "generic.quota-exceeded",
        ["Cinder quota exceeded", "VolumeLimitExceeded: Maximum number of volumes"],
    ),
    "ironic-2021-baremetal-node-show-last-error-missing-ipmi-address-irmc": (
        "known.ironic-driver-info-missing",
        ["driver_info", "ipmi_address", "IPMI"],
    ),
    "keystoneclient-2015-add-user-role-500-server-typeerror-limitedlengthfile": (
        "server.service-error",  # Keystone's traceback, sent as the 500's body
        ["keystone", "TypeError: 'LimitedLengthFile' object is not iterable"],
    ),
    "keystoneclient-2015-endpoint-create-debug-500-db-not-synced": (
        "generic.server-error",
        ["Keystone failed (500)"],
    ),
    "magnum-2023-coe-cluster-template-create-400-cluster-type-unset-wrong-image": (
        "generic.bad-request",
        ["400", "Cluster type (vm, Unset, kubernetes) not supported"],
    ),
    "magnum-2026-coe-cluster-create-failed-capi-webhook-provider-required": (
        "generic.resource-failed",
        ["CREATE_FAILED", "admission webhook", "provider: Required value"],
    ),
    "neutron-2016-net-list-max-attempts-server-crash-rpc-backend": (
        "server.missing-module",  # server.log: CRITICAL No module named impl.kombu
        ["neutron-server", "No module named impl.kombu"],
    ),
    "nova-2014-boot-debug-400-swap-larger-than-flavor": (
        "generic.bad-request",
        ["Nova", "400", "Swap drive requested is larger than instance type allows"],
    ),
    "nova-2015-rackspace-help-400-expecting-apikey-novaclient-2.27-regression": (
        "generic.bad-request",
        ["400", "Expecting apiKey"],
    ),
    "nova-2015-secgroup-add-rule-clientexception-500-v21-api-disabled": (
        "server.service-error",  # the nova-api.log line pasted under the client's
        ["nova-api", "'APIRouterV21' object has no attribute '_router'"],
    ),
    "nova-2016-boot-debug-500-nova-api-glanceclient-attributeerror-id": (
        "server.service-error",  # nova-api's traceback: glanceclient's AttributeError
        ["nova-api", "AttributeError: id"],
    ),
    "nova-2016-image-list-500-nova-api-glance-econnrefused-wrong-my-ip": (
        "server.peer-unreachable",  # nova-api.log: ECONNREFUSED from Glance
        ["nova-api", "Glance is unreachable", "10.10.10.53:9292"],
    ),
    "novaclient-2015-maas-plugin-invalid-client-version-3": (
        "generic.client-version-unsupported",
        ["does not support", "API version 3"],
    ),
    "openstacksdk-2024-server-create-403-quota-cores-ram-default-quotas": (
        "known.nova-default-quota",
        ["quota is Nova's default", "cores, ram: 20, 51200"],
    ),
    "osc-2019-network-create-httpexception-no-tenant-network-available": (
        "known.neutron-no-tenant-network",
        ["Neutron", "no tenant network"],
    ),
    "osc-2020-user-list-403-identity-list-users-non-admin-role": (
        "generic.forbidden",
        ["Keystone", "403", "identity:list_users"],
    ),
    "osc-2021-container-list-no-object-store-endpoint-in-region-GRA7": (
        "generic.endpoint-not-found",
        ["object-store", "GRA7 region"],
    ),
    "osc-2023-make-server-list-missing-auth-url-os-cloud-not-exported": (
        "osc.auth-not-configured",
        ["No cloud is configured", "auth-url"],
    ),
    "osc-2023-project-purge-volume-delete-400-still-attached-race": (
        "known.cinder-volume-delete-refused",
        ["Cinder", "400", "still attached"],
    ),
    "osc-2025-container-list-rgw-401-unrecognized-schema-keystone-url": (
        "generic.token-refused",
        ["Swift", "401", "Unrecognized schema in response body"],
    ),
    "osc-2025-container-list-rgw-ssl-unable-to-get-local-issuer": (
        "generic.tls-failure",
        ["rgw-external.ceph.local:8080", "unable to get local issuer certificate"],
    ),
    "osc-2026-nix-server-create-osc-lib-skew-positional-args": (
        "generic.library-mismatch",
        ["Mismatched client libraries", "ClientManager.is_service_available()"],
    ),
    "osc-2026-server-create-then-ERROR-no-valid-host-korean-nova-compute-down": (
        "known.compute-service-down",
        ["nova-compute", "openstack.test.com", "is down"],
    ),
    "osc-2026-volume-list-vvv-flattened-503-keystone-unavailable-cinder-password": (
        "known.keystone-unavailable-to-service",
        ["Cinder", "cannot reach Keystone", "503"],
    ),
    "osc-otcextensions-2019-cce-node-create-typeerror-missing-positional-arg": (
        "generic.client-crash-printed",
        ["TypeError", "create_cluster_node() missing 1 required positional argument"],
    ),
    "swift-2019-list-endpoint-object-store-not-found-after-keystone-db-migration": (
        "generic.endpoint-not-found",
        ["no endpoint", "object-store"],
    ),
    "terraform-2015-volume-delete-400-status-deleting": (
        "known.cinder-volume-status-refused",
        ["Cinder", "400", "the volume is deleting"],
    ),
}
SUCCESSES_2 = [
    "keystoneclient-2014-cygwin-user-list-debug-success",
    "osc-2021-server-create-devstack-benign-404-300-success",
    "osc-2022-flavor-create-author-marker-lines-success",
]


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return load_knowledge(user=False)


def _log(prefix: str) -> Path:
    (path,) = public_logs().glob(f"{prefix}.log")
    return path


def _report(prefix: str, kb: KnowledgeBase) -> Report:
    return diagnose(parse_path(_log(prefix)), kb)


def test_every_public_log_is_covered() -> None:
    names = sorted(p.name.removesuffix(".log") for p in public_logs().glob("*.log"))
    assert names == sorted([*CASES, SUCCESS])


@pytest.mark.parametrize("prefix", sorted(CASES))
def test_first_finding_names_the_established_cause(prefix: str, kb: KnowledgeBase) -> None:
    rule, title_words, detail_words = CASES[prefix]
    report = _report(prefix, kb)
    assert report.outcome == "failure"
    first = next(f for f in report.findings if f.severity in ("error", "warning"))
    assert (first.id, first.severity) == (rule, "error"), first.title
    for word in title_words:
        assert word.lower() in first.title.lower(), (word, first.title)
    details = " ".join([first.explanation, *first.next_steps]).lower()
    for word in detail_words:
        assert word.lower() in details, (word, first.explanation, first.next_steps)
    assert first.evidence, "the finding points at the lines that prove it"
    text = render_text(report)
    assert text.splitlines()[1] == first.title  # the headline is the cause


def test_the_successful_run_with_normal_404s_and_300_gets_no_error(kb: KnowledgeBase) -> None:
    report = _report(SUCCESS, kb)
    assert report.outcome == "success"
    assert [f.id for f in report.findings if f.severity in ("error", "warning")] == []
    assert [ex.status for ex in report.trace.exchanges].count(404) == 2


@pytest.mark.parametrize("prefix", sorted([*CASES, SUCCESS]))
def test_every_format_renders_without_a_traceback(
    prefix: str, kb: KnowledgeBase, capsys: pytest.CaptureFixture[str]
) -> None:
    report = _report(prefix, kb)
    assert render_text(report) and render_markdown(report)
    data = json.loads(render_json(report))
    assert data["facts"]["failure"] is None if prefix == SUCCESS else data["facts"]["failure"]
    code = main(["explain", "--no-user-kb", "--format", "json", str(_log(prefix))])
    assert code == (0 if prefix == SUCCESS else 1)
    assert json.loads(capsys.readouterr().out)["outcome"] == report.outcome


# Logs that hold several attempts: each run's headline names that run's own cause
# (INDEX.md's stages), not only the last one's.
RUN_HEADLINES: dict[str, list[str | None]] = {
    "barbican-2022-secret-list-conn-refused-then-404-html": [
        "generic.connection-refused",  # no Listen 9311 in the vhost
        "generic.endpoint-path-not-found",  # then Apache's own 404 page
    ],
    "cgtsclient-stx-host-list-503-html-prints-None": [
        "generic.backend-unavailable",  # HAProxy's 503, body omitted
        "known.keystone-unavailable-to-service",  # sysinv cannot reach Keystone
    ],
    "osc-2025-nixos-journald-nameresolution-then-keystone-500": [
        "generic.dns-failure",
        "server.missing-module",  # uWSGI's pasted traceback: the app never loaded
    ],
}


@pytest.mark.parametrize("prefix", sorted(RUN_HEADLINES))
def test_each_run_of_a_several_attempt_log_names_its_own_cause(
    prefix: str, kb: KnowledgeBase
) -> None:
    runs = read_runs_of_path(_log(prefix), lambda t: diagnose(t, kb), "none")
    assert [s.headline_id for s in runs.summaries] == RUN_HEADLINES[prefix]


def _log_2(name: str) -> Path:
    return public_logs(second=True) / f"{name}.log"


def test_every_log_of_the_second_set_is_pinned() -> None:
    names = sorted(p.name.removesuffix(".log") for p in public_logs(second=True).glob("*.log"))
    assert names == sorted([*CASES_2, *SUCCESSES_2])


@pytest.mark.parametrize("name", sorted(CASES_2))
def test_the_second_set_names_each_established_cause(name: str, kb: KnowledgeBase) -> None:
    rule, words = CASES_2[name]
    assert_names_the_cause(diagnose(parse_path(_log_2(name)), kb), rule, words)


@pytest.mark.parametrize("name", SUCCESSES_2)
def test_the_second_set_successes_have_no_error_and_succeed(name: str, kb: KnowledgeBase) -> None:
    report = diagnose(parse_path(_log_2(name)), kb)
    assert report.outcome == "success"
    assert [f.id for f in report.findings if f.severity in ("error", "warning")] == []


def test_both_sets_hold_the_fifty_two_logs_the_issue_counts() -> None:
    """Every one of them is pinned to its cause or its success above: a pin that
    fails is a log whose cause the first finding no longer names."""
    assert len(CASES) + 1 + len(CASES_2) + len(SUCCESSES_2) == 52


# Pastes of several commands: each run's headline, and what the later runs cite of
# the earlier ones.
RUN_HEADLINES_2: dict[str, list[str | None]] = {
    "swift-2019-list-endpoint-object-store-not-found-after-keystone-db-migration": [
        "generic.endpoint-not-found",  # swift list: no object-store in the catalog
        None,  # the endpoint list that shows it: identity endpoints only, a success
    ],
    "osc-2020-user-list-403-identity-list-users-non-admin-role": [
        None,  # role add: nothing printed, the outcome unknown
        None,  # project list: its table, a success
        "generic.forbidden",
    ],
}


@pytest.mark.parametrize("name", sorted(RUN_HEADLINES_2))
def test_each_run_of_a_second_set_session_names_its_own_cause(name: str, kb: KnowledgeBase) -> None:
    runs = read_runs_of_path(_log_2(name), lambda t: diagnose(t, kb), "none")
    assert [s.headline_id for s in runs.summaries] == RUN_HEADLINES_2[name]
    outcomes = [s.outcome for s in runs.summaries]
    assert "success" in outcomes and "failure" in outcomes
