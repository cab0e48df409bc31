"""Real public pastes of a client's failure followed by the service's own log
lines (fixtures/wild/, INDEX.md gives each one's source and established cause):
the first error finding names the server-side cause the thread established, with
the service log's line as evidence, and every renderer takes the report.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from osdoctor.diagnose import diagnose, parse_path, parse_stream
from osdoctor.kb.loader import KnowledgeBase, load_knowledge
from tests.helpers.causes import assert_names_the_cause
from tests.helpers.wild_pastes import pinned_cause_tests

WILD = Path(__file__).resolve().parent / "fixtures" / "wild"

# file -> (first error rule, words its title must hold), case-insensitive.
CASES: dict[str, tuple[str, list[str]]] = {
    "osc-2018-server-create-novalidhost-scheduler-zero-hosts-flavor-disk0": (
        # nova-scheduler.log, grep -n'd at DEBUG: "Starting with 0 host(s)".
        "server.no-valid-host-no-candidates",
        ["started with 0 hosts", "m3.plarge"],
    ),
    "nova-2015-boot-docker-binding-failed-no-agent-on-host": (
        # neutron's server.log line, quoted without its prefix under the file's name.
        "server.port-binding-failed",
        ["82c07caa-b2c2-45e9-955d-e8b35112437c", "on host nova-docker"],
    ),
    "osc-2017-compute-service-list-503-authtoken-service-user-400": (
        # nova-api.log's keystonemiddleware records, under the file's name.
        "server.authtoken-login-malformed",
        ["nova-api", "400", "[keystone_authtoken]"],
    ),
    "osc-2022-image-create-glance-500-rbd-rados-module-missing": (
        # the command, then glance-api's log instead of the client's error.
        "server.store-library-missing",
        ["glance-api", "not installed", "'Rados'"],
    ),
    "osc-2022-server-show-fault-port-binding-no-interface-mapping-flat": (
        # neutron's server.log line, from a grep over /var/log/neutron/*.
        "server.port-binding-failed",
        ["46812e80-9ed3-4ee0-910c-24716997b0d4", "on host compute1", "physical network provider"],
    ),
    "osc-2022-compute-service-list-503-authtoken-auth-url-35357-refused": (
        # keystonemiddleware's records, named nova-api's by the tail over its file.
        "server.authtoken-keystone-unreachable",
        ["nova-api", "http://controller:35357"],
    ),
    "osc-2022-image-create-401-glance-authtoken-service-password": (
        # glance's api.log, named in the prose above its lines.
        "server.authtoken-service-user",
        ["glance-api", "[keystone_authtoken] password"],
    ),
    "osc-2019-token-issue-500-keystone-db-1045-anonymous-users": (
        # keystone.log's ERROR under the client's 500.
        "server.db-access-denied",
        ["keystone", "'keystone'@'controller'"],
    ),
    "cinderclient-2013-create-no-valid-host-vg-no-free-space": (
        # cinder's logs in the format before oslo.log, under a create's table.
        "server.volume-backend",
        ["Insufficient free space", "10/0"],
    ),
    "novaclient-2016-boot-novalidhost-compute-capabilities-filter-ephemeral": (
        # nova-scheduler's INFO filter results, after the list showing ERROR.
        "server.no-valid-host",
        ["ComputeCapabilitiesFilter"],
    ),
    "osc-2024-server-list-error-conductor-port-binding-bridge-mappings": (
        # the output of an egrep over nova-conductor.log, its prefixes cut.
        "server.port-binding-failed",
        ["d6e20df1-0a1a-4c18-9828-847c99ad755c"],
    ),
}
SUCCESSES: list[str] = []
# file -> words of the service log line the first finding cites as evidence.
EVIDENCE: dict[str, str] = {
    "osc-2018-server-create-novalidhost-scheduler-zero-hosts-flavor-disk0": (
        "Starting with 0 host(s)"
    ),
    "nova-2015-boot-docker-binding-failed-no-agent-on-host": "Failed to bind port",
    "osc-2017-compute-service-list-503-authtoken-service-user-400": "Expecting to find username",
    "osc-2022-image-create-glance-500-rbd-rados-module-missing": "Caught error",
    "osc-2022-server-show-fault-port-binding-no-interface-mapping-flat": "ERROR neutron.plugins",
    "osc-2022-compute-service-list-503-authtoken-auth-url-35357-refused": "CRITICAL keystonemidd",
    "osc-2022-image-create-401-glance-authtoken-service-password": "CRITICAL keystonemidd",
    "osc-2019-token-issue-500-keystone-db-1045-anonymous-users": "ERROR keystone Operational",
    "cinderclient-2013-create-no-valid-host-vg-no-free-space": "WARNING [cinder.scheduler",
    "novaclient-2016-boot-novalidhost-compute-capabilities-filter-ephemeral": "INFO nova.filters",
    "osc-2024-server-list-error-conductor-port-binding-bridge-mappings": "PortBindingFailed",
}


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return load_knowledge(user=False)


_, test_every_format_renders_without_a_traceback = pinned_cause_tests(CASES, SUCCESSES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_first_finding_names_the_server_side_cause(name: str, kb: KnowledgeBase) -> None:
    rule, words = CASES[name]
    report = diagnose(parse_path(WILD / f"{name}.log"), kb)
    assert_names_the_cause(report, rule, words)
    first = next(f for f in report.findings if f.severity == "error")
    assert any(EVIDENCE[name] in e.text for e in first.evidence), first.evidence


def _oslo_lines(records: list[tuple[str, str, str, str]]) -> list[str]:
    """(daemon, logger, level, message) records as the real oslo.log formatter
    writes them, with a request context (DEBUG ones with its debug suffix)."""
    from osdoctor.lab.servicelogs import BASE, ServiceLogs, daemon_of

    logs = ServiceLogs({})
    context = logs._context("req-0d1e2f3a-4b5c-4d6e-8f7a-9b0c1d2e3f4a", None)
    for number, (daemon, logger, level, message) in enumerate(records):
        logs._record(daemon_of(daemon), logger, level, message, BASE + number / 1000, context)
    return "".join(logs.files().values()).splitlines()


def test_a_grep_n_of_a_debug_scheduler_log_names_no_candidate(kb: KnowledgeBase) -> None:
    """The shape of the 2018 paste, from the real formatter: ``grep -n`` line
    numbers before each line, oslo.log's debug suffix after a DEBUG message."""
    lines = _oslo_lines(
        [
            ("nova-scheduler", "nova.filters", "DEBUG", "Starting with 0 host(s)"),
            ("nova-scheduler", "nova.filters", "INFO", "Filter ComputeFilter returned 0 hosts"),
        ]
    )
    assert lines[0].endswith(".py:1"), lines[0]  # the debug suffix is there to take off
    text = "$ openstack server create --flavor m1.large --image cirros web\n"
    text += "No valid host was found.\n"
    text += "".join(f"{4000 + n}:{line}\n" for n, line in enumerate(lines))
    report = diagnose(parse_stream(io.BytesIO(text.encode()), "paste"), kb)
    assert_names_the_cause(
        report, "server.no-valid-host-no-candidates", ["started with 0 hosts", "m1.large"]
    )
    first = next(f for f in report.findings if f.severity == "error")
    assert any(e.text.startswith(lines[0][:30]) for e in first.evidence), first.evidence


def test_the_format_before_oslo_log_is_read() -> None:
    """Lines written with the services' defaults of 2012-2013 (Grizzly's
    ``%(asctime)s %(levelname)8s [%(name)s] %(message)s`` with
    ``log_date_format = %Y-%m-%d %H:%M:%S``), by Python's own logging
    formatter: time, padded level, logger in brackets, no pid."""
    import logging

    from osdoctor.servicelog.reader import read_lines

    formatter = logging.Formatter(
        "%(asctime)s %(levelname)8s [%(name)s] %(message)s", datefmt="%Y-%m-%d %H:%M:%S"
    )
    written = [
        (logging.WARNING, "nova.scheduler.filters.ram_filter", "host1 does not have 512 MB"),
        (logging.ERROR, "cinder.volume.manager", "volume volume-1: create failed"),
    ]
    lines = []
    for number, (level, logger, message) in enumerate(written, 1):
        record = logging.LogRecord(logger, level, "x.py", 1, message, None, None)
        lines.append((number, formatter.format(record)))
    records = read_lines(lines)
    assert [(r.level, r.logger, r.service, r.message) for r in records] == [
        (
            "WARNING",
            "nova.scheduler.filters.ram_filter",
            "nova-scheduler",
            "host1 does not have 512 MB",
        ),
        ("ERROR", "cinder.volume.manager", "cinder-volume", "volume volume-1: create failed"),
    ]


@pytest.mark.parametrize(
    "suffix",
    [
        "%(funcName)s %(pathname)s:%(lineno)d",
        "{{(pid=%(process)d) %(funcName)s %(pathname)s:%(lineno)d}}",
        "from (pid=%(process)d) %(funcName)s %(pathname)s:%(lineno)d",
    ],
)
def test_every_debug_suffix_is_taken_off(suffix: str) -> None:
    """oslo.log's default debug suffix and devstack's two, as the real
    formatter writes them: the message is what the service said."""
    from osdoctor.lab.servicelogs import BASE, ServiceLogs, daemon_of
    from osdoctor.servicelog.reader import read_lines

    logs = ServiceLogs({})
    logs.conf.set_override("logging_debug_format_suffix", suffix)
    context = logs._context("req-0d1e2f3a-4b5c-4d6e-8f7a-9b0c1d2e3f4a", None)
    logs._record(
        daemon_of("nova-scheduler"),
        "nova.filters",
        "DEBUG",
        "Starting with 0 host(s)",
        BASE,
        context,
    )
    lines = "".join(logs.files().values()).splitlines()
    assert lines[0].endswith(".py:1") or lines[0].endswith(".py:1}}"), lines[0]
    (record,) = read_lines([(1, lines[0])])
    assert record.message == "Starting with 0 host(s)"
