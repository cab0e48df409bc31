"""``osdoctor explain`` given the services' logs: named with ``--service-log``
(a file, a folder, a pattern) or beside the client's log on the command line.
The headline then names the server-side cause and quotes the service log's
line; nothing the service logs of secrets is shown."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from osdoctor.diagnose import diagnose
from osdoctor.facts.server import reason_of
from osdoctor.intake import parse_path
from osdoctor.kb.loader import KnowledgeBase, load_knowledge
from osdoctor.lint import fixture_trace
from osdoctor.render.text import render_text
from tests.helpers.public_logs import FIXTURES, public_log
from tests.secret_corpus import fixture_leaks

ROOT = Path(__file__).resolve().parents[2]
LOGS = FIXTURES / "logs"


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return load_knowledge(user=False)


def explain(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OSDOCTOR_HOME": "/nonexistent-osdoctor-home"}
    return subprocess.run(
        [sys.executable, "-m", "osdoctor", "explain", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_a_folder_of_service_logs_gives_the_server_side_cause() -> None:
    name = "generic.server-keystone-db-access-denied"
    proc = explain(str(LOGS / f"{name}.log"), "--service-log", str(LOGS / f"{name}.service"))
    assert proc.returncode == 1, proc.stderr
    headline = proc.stdout.splitlines()[1]
    assert headline.startswith("The database refuses keystone's login")
    assert "keystone.log:1 " in proc.stdout  # the record, quoted with its file and line


def test_a_service_log_beside_the_clients_is_recognised(tmp_path: Path) -> None:
    name = "generic.server-nova-amqp-unreachable"
    log = LOGS / f"{name}.service" / "nova" / "nova-api.log"
    packed = tmp_path / "nova-api.log.1.gz"  # rotated and compressed, as found on a host
    packed.write_bytes(gzip.compress(log.read_bytes()))
    proc = explain(str(LOGS / f"{name}.log"), str(packed))
    assert proc.returncode == 1, proc.stderr
    assert "RabbitMQ unreachable from nova-api" in proc.stdout.splitlines()[1]
    assert "nova-api.log.1.gz:" in proc.stdout
    assert "logs:" not in proc.stdout  # one log explained, not a batch of two


def test_a_pattern_of_service_logs_and_json_evidence_naming_its_file(tmp_path: Path) -> None:
    name = "osc.server-create.error-port-binding-dead-agent"
    shutil.copytree(LOGS / f"{name}.service", tmp_path / "var-log")
    pattern = str(tmp_path / "var-log" / "**" / "*.log")
    proc = explain(str(LOGS / f"{name}.log"), "--service-log", pattern, "--format", "json")
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    first = report["findings"][0]
    assert first["id"] == "server.agent-dead"
    sources = [e["source"] for e in first["evidence"] if "source" in e]
    assert sources and all(s.endswith("neutron/server.log") for s in sources)


def test_a_service_log_word_that_names_nothing_is_an_error(tmp_path: Path) -> None:
    proc = explain(str(LOGS / "generic.keystone-500.log"), "--service-log", str(tmp_path / "no"))
    assert proc.returncode == 2
    assert "--service-log" in proc.stderr and "no such file" in proc.stderr


def test_service_logs_alone_are_refused() -> None:
    folder = LOGS / "generic.server-nova-db-unreachable.service" / "nova"
    proc = explain(str(folder / "nova-api.log"), str(folder / "nova-api.log"))
    assert proc.returncode == 2
    assert "give the client's log with them" in proc.stderr


@pytest.mark.parametrize(
    ("name", "rule", "words"),
    [
        (
            # nova-api.log's TRACE line under "ERROR: ... (HTTP 500)"
            "nova-2016-image-list-500-nova-api-glance-econnrefused-wrong-my-ip",
            "server.peer-unreachable",
            ["Glance", "http://10.10.10.53:9292"],
        ),
        (
            # neutron's server.log: the obsolete rpc_backend's module
            "neutron-2016-net-list-max-attempts-server-crash-rpc-backend",
            "server.missing-module",
            ["neutron-server", "impl.kombu"],
        ),
        (
            # nova-api.log's TRACE line of a disabled v2.1 router
            "nova-2015-secgroup-add-rule-clientexception-500-v21-api-disabled",
            "server.service-error",
            ["nova-api", "'APIRouterV21' object has no attribute '_router'"],
        ),
        (
            # the nova-api log pasted after the debug output, same request id
            "nova-2016-boot-debug-500-nova-api-glanceclient-attributeerror-id",
            "server.service-error",
            ["nova-api", "AttributeError: id"],
        ),
        (
            # keystone's traceback, sent as the body of its 500
            "keystoneclient-2015-add-user-role-500-server-typeerror-limitedlengthfile",
            "server.service-error",
            ["keystone", "'LimitedLengthFile' object is not iterable"],
        ),
        (
            # uWSGI's journal: the app never loaded
            "osc-2025-nixos-journald-nameresolution-then-keystone-500",
            "server.missing-module",
            ["Keystone", "No module named 'cgi'"],
        ),
    ],
)
def test_a_public_500_with_its_service_log_pasted_names_the_server_side_cause(
    name: str, rule: str, words: list[str], kb: KnowledgeBase
) -> None:
    report = diagnose(parse_path(public_log(name)), kb)
    first = report.findings[0]
    assert first.id == rule, first.title
    for word in words:
        assert word in first.title, (word, first.title)
    records = {
        line
        for joined in report.facts.server
        for line in (joined.record.line, joined.record.last_line)
    }
    pasted = [e for e in first.evidence if e.in_log and e.line in records]
    assert pasted, "the service's own line is the evidence"
    assert render_text(report).splitlines()[1] == first.title


@pytest.mark.parametrize(
    "name", sorted(p.name.removesuffix(".expected.yaml") for p in LOGS.glob("*.expected.yaml"))
)
def test_a_server_side_cause_leads_with_its_service_log_line(name: str, kb: KnowledgeBase) -> None:
    """Every fixture whose service logs a server-side rule reads: that rule leads,
    its evidence names the service log's file and line."""
    report = diagnose(fixture_trace(LOGS / f"{name}.log"), kb)
    server = [f for f in report.findings if f.id.startswith("server.")]
    if not server:
        return
    first = report.findings[0]
    assert first.id.startswith("server."), (first.id, server[0].id)
    assert any(e.source for e in first.evidence), first.evidence


def test_nothing_a_service_logs_of_secrets_is_shown(tmp_path: Path) -> None:
    """Database and transport URLs with their passwords, Keystone's answer naming
    the user's token: in every format, with the files given and with the records
    pasted under the client's output."""
    name = "generic.server-secrets-in-service-log"
    folder = LOGS / f"{name}.service"
    service_text = "".join(p.read_text(encoding="utf-8") for p in sorted(folder.rglob("*.log")))
    assert fixture_leaks(service_text), "the fixture carries the lab's secrets"
    dump = (FIXTURES / "servicelogs" / "secrets.log").read_text(encoding="utf-8")
    pasted = tmp_path / "ticket.txt"
    pasted.write_text(
        (LOGS / f"{name}.log").read_text(encoding="utf-8")
        + "\nnova-api.log:\n"
        + service_text
        + "\nand its configuration dump at start-up:\n"
        + dump,
        encoding="utf-8",
    )
    for fmt in ("text", "markdown", "json", "jsonl"):
        given = explain(str(LOGS / f"{name}.log"), "--service-log", str(folder), "-f", fmt)
        assert given.returncode == 1, given.stderr
        assert "Could not parse SQLAlchemy URL" in given.stdout
        assert fixture_leaks(given.stdout + given.stderr, name) == [], fmt
        together = explain(str(pasted), "-f", fmt)
        assert fixture_leaks(together.stdout + together.stderr, name) == [], fmt


def test_the_generated_secret_records_come_out_masked(tmp_path: Path) -> None:
    """oslo.config's dump of [keystone_authtoken] password (a passphrase, spaces and
    all), a database URL, a transport URL, a token in a header and in Keystone's
    answer: the records read from the files hold none of them."""
    from osdoctor.lab import formats, servicelogs
    from osdoctor.servicelog.scan import Wanted, scan

    files = [
        FIXTURES / "servicelogs" / "secrets.log",
        FIXTURES / "servicelogs" / "secrets.json.log",
    ]
    assert all(fixture_leaks(p.read_text(encoding="utf-8")) for p in files)
    found = scan(files, Wanted(frozenset({formats.REQUEST_ID}), (servicelogs.BASE,)))
    assert len(found.records) >= 6
    shown = "\n".join(
        "\n".join([r.text, r.message, r.exception_message, *r.more]) for r in found.records
    )
    assert fixture_leaks(shown) == []


@pytest.mark.parametrize(
    "command",
    [
        ["open", str(LOGS / "generic.keystone-500.log")],
        ["run", "--no-tui"],
        ["run"],
    ],
    ids=["open", "run --no-tui", "run"],
)
def test_the_screens_refuse_a_service_log_that_names_nothing(
    command: list[str], tmp_path: Path
) -> None:
    """Before anything starts: no screen, no client run."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OSDOCTOR_HOME": str(tmp_path / "home")}
    words = [*command, "--service-log", str(tmp_path / "nowhere")]
    if command[0] == "run":
        words += ["--", "openstack", "server", "list"]
    proc = subprocess.run(
        [sys.executable, "-m", "osdoctor", *words],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 2, proc.stderr
    assert "--service-log" in proc.stderr and "no such file or folder" in proc.stderr
    assert not (tmp_path / "home").exists() or not any((tmp_path / "home").rglob("*.session"))


def test_an_error_near_a_4xx_by_time_alone_does_not_take_the_lead(
    tmp_path: Path, kb: KnowledgeBase
) -> None:
    """A 404 is the client's business: glance-api's ERROR of another request,
    written the same second, is tied by time, and quoted, but does not lead."""
    from osdoctor.servicelog.attach import ServiceLogs

    other = LOGS / "generic.server-glance-option-removed.service" / "glance" / "glance-api.log"
    # The other request's ERROR, without the request id that would tell it apart.
    lines = [
        line.replace(line[line.index("[") : line.index("]") + 1], "[-]", 1)
        if " ERROR glance.common.wsgi [" in line
        else line
        for line in other.read_text(encoding="utf-8").splitlines()
    ]
    folder = tmp_path / "glance"
    folder.mkdir()
    (folder / "glance-api.log").write_text("\n".join(lines) + "\n", encoding="utf-8")
    trace = parse_path(LOGS / "generic.not-found-resource-image.log")
    ServiceLogs.of([str(folder)]).attach(trace)
    report = diagnose(trace, kb)
    assert [j.kind for j in report.facts.server if j.record.level == "ERROR"] == ["time"]
    assert report.findings[0].id == "generic.not-found", report.findings[0].id
    assert "server.service-error" not in [f.id for f in report.findings + report.outranked]


@pytest.mark.parametrize("name", ["devstack-journal", "haproxy", "keystone-apache-error"])
def test_a_service_log_pasted_alone_is_explained_by_its_own_error(name: str) -> None:
    """No client output beside it: its ERROR record is the failure, and the report
    says the tie is that, not a client's output it was never beside."""
    report = diagnose(
        parse_path(FIXTURES / "servicelogs" / f"{name}.log"), load_knowledge(user=False)
    )
    assert report.outcome == "failure"
    first = next(f for f in report.findings if f.severity == "error")
    assert first.id.startswith("server.")
    text = " ".join(render_text(report).split())
    assert "no client output to tie it to" in text
    assert "pasted beside the client's output" not in text


def test_a_taskflow_error_is_told_by_its_reason_not_by_the_task_that_carried_it(
    kb: KnowledgeBase,
) -> None:
    """cinder-scheduler writes "Failed to run task <dotted task>;volume:create:
    <reason>": the headline gives the reason, as the service log's line has it."""
    report = diagnose(fixture_trace(LOGS / "generic.server-cinder-vg-missing.log"), kb)
    first = report.findings[0]
    assert first.id == "server.volume-backend"
    assert (
        first.title
        == "No volume backend: No valid backend was found. No weighed backends available"
    )
    assert any("Failed to run task" in e.text for e in first.evidence)


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        (
            "Failed to run task cinder.scheduler.flows.create_volume.ScheduleCreateVolumeTask;"
            "volume:create: No valid backend was found. No weighed backends available: "
            "cinder.exception.NoValidBackend: No valid backend was found. No weighed backends "
            "available",
            "No valid backend was found. No weighed backends available (NoValidBackend)",
        ),
        (
            "Volume 1 is busy: cinder.exception.VolumeIsBusy: it is",
            "Volume 1 is busy: cinder.exception.VolumeIsBusy: it is",
        ),
        ("Failed to run task", "Failed to run task"),
    ],
)
def test_a_records_reason_loses_its_task_and_its_repetition(message: str, reason: str) -> None:
    assert reason_of(message) == reason
