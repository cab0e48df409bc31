"""Real non-debug pastes of Keystone and old one-line client failures from
public threads (fixtures/wild/, INDEX.md gives each one's source and
established cause): the first error finding names that cause, and every
renderer takes the report.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from osdoctor.diagnose import diagnose, parse_path
from osdoctor.facts.no_answer import classify
from osdoctor.kb.loader import KnowledgeBase, load_knowledge
from tests.helpers.causes import assert_names_the_cause
from tests.helpers.wild_pastes import pinned_cause_tests

WILD = Path(__file__).resolve().parent / "fixtures" / "wild"
LOGS = Path(__file__).resolve().parent / "fixtures" / "logs"

# file -> (first error rule, words its title must hold), case-insensitive.
CASES: dict[str, tuple[str, list[str]]] = {
    "ceilometer-2015-meter-list-errno111-api-not-started": (
        "generic.connection-refused",
        ["172.16.0.200:8777", "Ceilometer", "connection refused"],
    ),
    "osc-2020-catalog-list-tls-wrong-version-no-ssl": (
        "generic.tls-wrong-version",
        ["10.170.140.112:5000", "does not speak TLS"],
    ),
    "novaclient-2015-check-plugin-invalid-client-version-3": (
        "generic.client-version-unsupported",
        ["API version 3"],
    ),
    "novaclient-2016-list-discoveryfailure-no-v2-version-document": (
        "generic.discovery-failed",
        ["No usable API version", "Could not determine a suitable URL"],
    ),
    "novaclient-2016-network-create-endpointnotfound-region-case": (
        "generic.endpoint-not-found",
        ["compute", "regionOne"],
    ),
    "osc-2023-token-issue-dns-keystone-service-word-wrapped": (
        # The message reflowed at word boundaries, its first words on the command's line.
        "generic.dns-failure",
        ["keystone-public.openstack.svc", "does not resolve"],
    ),
    "ceilometer-2016-alarm-list-401-authtoken-https-to-http-keystone": (
        # The shell's words for the service's own 401, above the API's log.
        "generic.token-refused",
        ["Ceilometer", "401", "Invalid OpenStack Identity credentials"],
    ),
    "osc-2014-devstack-compute-node-must-provide-username": (
        # osc 1.x's "ERROR: <logger> <message>" shape.
        "generic.auth-not-configured",
        ["No credentials are configured", "You must provide a username"],
    ),
    "keystoneclient-2013-user-list-expecting-auth-method-no-rc-sourced": (
        # keystoneclient's sentence over three lines, then the sourced rc's success.
        "generic.auth-not-configured",
        ["No credentials are configured", "Expecting authentication method via either"],
    ),
    "keystoneclient-2013-user-list-403-admin-required-user-rc": (
        "generic.forbidden",
        ["Keystone forbids", "admin_required"],
    ),
    "novaclient-2015-image-list-invalid-nova-credentials-windows-quotes": (
        # novaclient's words for Keystone's 401 to its own authenticate().
        "generic.auth-refused",
        ["Keystone refused", "401"],
    ),
    "glanceclient-2015-image-list-authentication-failure-401-windows-quotes": (
        # keystoneclient's "Authentication failure:" around Keystone's answer.
        "generic.auth-refused",
        ["Keystone refused", "401"],
    ),
    "prometheus-exporter-2017-ssl-certificate-verify-failed-fragment": (
        # Only the cause's tail was posted: no host, no URL, and still a sentence.
        "generic.tls-failure",
        ["TLS connection", "CERTIFICATE_VERIFY_FAILED"],
    ),
    "gophercloud-exporter-2020-images-dial-tcp-catalog-url-no-host": (
        # Go's net/http words, inside the exporter's own; the endpoint row below.
        "generic.endpoint-url-no-host",
        ["http://:9292", "names no host"],
    ),
    "terraform-2016-plan-keystone-dial-tcp-io-timeout-remote-runner": (
        "generic.connection-timeout",
        ["box.platform9.net:443", "timed out"],
    ),
    "elasticluster-2021-wallaby-endpointnotfound-volumev2-only-v3": (
        "generic.endpoint-not-found",
        ["catalog has no endpoint", "volumev2"],
    ),
    "glanceclient-2016-image-create-authentication-failure-keystone-500": (
        # glance's command, Keystone's 500 to the token request.
        "generic.server-error",
        ["Keystone failed (500)"],
    ),
}
SUCCESSES: list[str] = []


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return load_knowledge(user=False)


test_first_finding_names_the_established_cause, test_every_format_renders_without_a_traceback = (
    pinned_cause_tests(CASES, SUCCESSES)
)


@pytest.mark.parametrize("width", [50, 72, 88])
def test_a_reflowed_connection_message_reads_as_the_client_printed_it(
    width: int, kb: KnowledgeBase, tmp_path: Path
) -> None:
    """The real client's plain output (a lab capture), reflowed at word
    boundaries as an editor or a mail client does: the same cause leads."""
    printed = (LOGS / "generic.dns-unresolvable.plain.log").read_text(encoding="utf-8")
    lines: list[str] = []
    for line in printed.splitlines():
        lines += textwrap.wrap(line, width, break_long_words=False, break_on_hyphens=False)
    reflowed = tmp_path / "reflowed.log"
    reflowed.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert len(lines) > len(printed.splitlines())
    report = diagnose(parse_path(reflowed), kb)
    assert_names_the_cause(report, "generic.dns-failure", ["controller", "does not resolve"])


def test_the_old_shells_words_for_a_services_own_401_name_the_refusal(
    kb: KnowledgeBase, tmp_path: Path
) -> None:
    """A second paste the reader was not written from: glanceclient run by Puppet
    (https://github.com/puppetlabs-toy-chest/puppetlabs-openstack/issues/195,
    its password masked): the HTTP layer's status line, then the shell's words."""
    paste = tmp_path / "puppet-glance.log"
    paste.write_text(
        "Error: Could not prefetch glance_image provider 'glance': Execution of "
        "'/usr/bin/glance --os-tenant-name services --os-username glance --os-password "
        "<masked> --os-region-name openstack --os-auth-url http://172.16.33.4:35357/v2.0/ "
        "image-list' returned 1: Request returned failure status 401.\n"
        "Invalid OpenStack Identity credentials.\n",
        encoding="utf-8",
    )
    report = diagnose(parse_path(paste), kb)
    assert_names_the_cause(report, "generic.token-refused", ["401", "Invalid OpenStack Identity"])


def test_keystoneclients_sentence_over_three_lines_is_one_config_error(
    kb: KnowledgeBase, tmp_path: Path
) -> None:
    """A second paste the reader was not written from
    (https://github.com/bilelmsekni/OpenStack-Grizzly-Install-Guide/issues/92): the
    same sentence, indented as keystoneclient prints it."""
    paste = tmp_path / "grizzly.log"
    paste.write_text(
        "Expecting authentication method via\n"
        "  either a service token, --os-token or env[OS_SERVICE_TOKEN],\n"
        "  or credentials, --os-username or env[OS_USERNAME]\n",
        encoding="utf-8",
    )
    report = diagnose(parse_path(paste), kb)
    assert_names_the_cause(report, "generic.auth-not-configured", ["or credentials, --os-username"])


@pytest.mark.parametrize(
    ("words", "kind"),
    [
        # Go's own words (net/http, net, crypto/x509, crypto/tls), as gophercloud tools print them.
        (
            'Get "https://keystone.example:5000/v3": dial tcp: lookup keystone.example '
            "on 127.0.0.53:53: no such host",
            "dns",
        ),
        (
            'Post "https://10.0.0.5:5000/v3/auth/tokens": x509: certificate signed by '
            "unknown authority",
            "tls-verify",
        ),
        (
            'Get "https://10.0.0.5:9292/v2/images": http: server gave HTTP response to '
            "HTTPS client",
            "tls-version",
        ),
        (
            "Get http://10.0.0.5:8774/v2.1: dial tcp 10.0.0.5:8774: connect: connection refused",
            "refused",
        ),
    ],
)
def test_go_clients_network_words_are_classified(words: str, kind: str) -> None:
    assert classify(words).kind == kind
