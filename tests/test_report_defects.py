"""What a new user found wrong in the reports (issue 31's defects), each pinned on
the public log or the fixture it was seen on: the report says what the log
says, about the resource and the service it names, in words that read."""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import re
from pathlib import Path

import pytest

from osdoctor.cli import main, not_a_client_log
from osdoctor.counts import counted
from osdoctor.facts.known_names import service_for
from osdoctor.facts.template_values import CLAUSES
from osdoctor.model import Report, Trace
from osdoctor.render.common import NO_COMMAND, row_count
from osdoctor.render.rows import TimelineRow
from osdoctor.render.runs_report import run_line
from osdoctor.render.text import render_text
from osdoctor.runbook.excerpts import Excerpts
from osdoctor.runbook.knowledge import Symptom
from osdoctor.runbook.lookup import Hit, lookup
from osdoctor.runbook.lookup import render_json as render_lookup_json
from osdoctor.runbook.lookup import render_text as render_lookup_text
from osdoctor.runbook.markdown_pages import render_markdown_runbook
from osdoctor.runs.log_runs import RunSummary
from osdoctor.tui.screens.runs_list import run_row
from tests.helpers.public_logs import FIXTURES, public_log
from tests.helpers.reports import ALL_LOGS, builtin_kb, run_reports


def _public(name: str) -> list[Report]:
    return run_reports(public_log(name))


def test_the_resource_named_is_the_one_the_words_are_about() -> None:
    """ironic-2021 (defect 3): the paste cut the last refusal, about node 3dc85665,
    mid-word; "Attempt 6 of 6" belongs to ccf92daf, whose refusal is whole."""
    (report,) = _public("ironic-2021-ansible-baremetal-node-set-409-state-transition-wrapped")
    first = report.findings[0]
    assert first.id == "ironic.retry-loop-exhausted"
    assert "ccf92daf-6347-4682-8e67-2be453fbf1c8" in first.title
    assert "3dc85665" not in first.title + first.explanation
    assert any(
        s.startswith("openstack baremetal node show ccf92daf-6347-4682-8e67-2be453fbf1c8 ")
        for s in first.next_steps
    ), first.next_steps
    error = report.facts.client_error
    assert error is not None and error.text.startswith(
        "Error contacting Ironic server: Node ccf92daf-6347-4682-8e67-2be453fbf1c8 "
    )
    assert error.text.endswith("(HTTP 409). Attempt 6 of 6")


def test_a_cause_the_log_gives_is_the_cause_reported() -> None:
    """osc-2025 run 2 (defect 1): the client says only "Internal Server Error (HTTP
    500)"; lines 21-25, Keystone's own uwsgi log, say why: ModuleNotFoundError, and
    uwsgi could not load the app. Nothing sends the user after a request id the log
    does not have."""
    _run1, run2 = _public("osc-2025-nixos-journald-nameresolution-then-keystone-500")
    first = run2.findings[0]
    assert first.id == "server.missing-module"
    assert first.title == (
        "Missing Python module in Keystone: ModuleNotFoundError: No module named 'cgi'"
    )
    assert "python3 -c 'import cgi'" in " ".join(first.next_steps)
    assert [e.line for e in first.evidence] == [15, 23]
    for f in run2.findings + run2.outranked:
        assert "<request id" not in " ".join([f.title, f.explanation, *f.next_steps]), f.id


def test_a_server_error_without_a_request_id_names_what_to_look_for() -> None:
    """The generic 5xx finding of a log without a request id greps what the log
    would show, not a placeholder the user cannot fill."""
    _run1, run2 = _public("osc-2025-nixos-journald-nameresolution-then-keystone-500")
    (server_error,) = [f for f in run2.outranked if f.id == "generic.server-error"]
    assert any("grep 'Traceback'" in s for s in server_error.next_steps)
    assert not any("<request id" in s for s in server_error.next_steps)


_CLAUSE_NAMES = re.compile(r"<(?:" + "|".join(sorted(CLAUSES)) + r")>")


def test_lookup_and_the_runbook_show_no_template_text() -> None:
    """Defect 4: ``osdoctor lookup "No module named 'cgi'"`` showed <installs_note>,
    runbook pages ``(403)<quote>``: a clause the log may not have is left out."""
    kb = builtin_kb()
    query = "No module named 'cgi'"
    every = [Hit(Symptom(r.id, rule=r.id), "exact", 1.0) for r in kb.rules.values()]
    for hits in (lookup(kb, query), every):
        for said in (render_lookup_text(kb, query, hits), render_lookup_json(kb, query, hits)):
            assert not _CLAUSE_NAMES.search(said), _CLAUSE_NAMES.findall(said)
    for page, body in render_markdown_runbook(kb, Excerpts({}, {})).items():
        assert not _CLAUSE_NAMES.search(body), (page, _CLAUSE_NAMES.findall(body))


def test_every_installation_a_traceback_runs_through_is_named_with_its_packages() -> None:
    """osc-2017 (defect 4): "through 2 installations: ...; from /usr/lib/python2.7/
    dist-packages." named no package for the second: it holds positional."""
    (report,) = _public("osc-2017-user-list-typeerror-app_name-lib-conflict")
    text = report.findings[0].explanation
    assert "; positional from /usr/lib/python2.7/dist-packages." in text
    assert "; from " not in text


def test_a_next_step_uses_the_value_the_log_gives() -> None:
    """Defect 4: ``grep <port>`` where the port is 6385, ``/etc/<service>/`` where
    it is sysinv, ``openstack network show <network>`` where it is private."""
    run1, run2 = _public("cgtsclient-stx-host-list-503-html-prints-None")
    assert any("grep ':6385'" in s for s in run1.findings[0].next_steps)
    assert any("/etc/sysinv/sysinv.conf" in s for s in run2.findings[0].next_steps)
    (report,) = _public("osc-2024-server-create-neutron-networknotfound-unresolved")
    assert "openstack network show private   # found with the user's credentials?" in (
        report.findings[0].next_steps
    )
    for r in (run1, run2, report):
        for f in r.findings:
            assert not re.search(r"<(?:port|service|network)>", " ".join(f.next_steps)), f.id


@pytest.mark.parametrize("log", ALL_LOGS, ids=[f"{p.parent.name}/{p.stem}" for p in ALL_LOGS])
def test_why_not_and_the_report_agree_on_the_nearest_path(log: Path) -> None:
    """Defect 7 (and 4): the report said "nearest is local-check-failed: a
    CommandError$ traceback: did not hold", a regular expression, while --why-not
    said "No documented scenario came close"; on the README's example, which took
    a branch, --why-not said no scenario came close at all."""
    for report in run_reports(log):
        match = report.scenario
        text = render_text(report, why_not=True)
        if match is None:
            continue
        assert "No documented scenario came close." not in text
        divergence = match.divergence or ""
        assert not re.search(r"[$^\\]|\(\?|\[\d{3}, ", divergence), divergence
        said = re.search(r"the nearest is (?P<branch>[\w-]+) ", divergence)
        ours = [n for n in report.near if n.scenario == match.id]
        if said is not None:
            assert ours and ours[0].branch == said.group("branch"), (divergence, ours)
            assert f"{match.id} › {ours[0].branch}:" in text
        elif match.branch is None:
            assert not ours, (divergence, ours)


def test_the_service_is_the_command_s_not_an_argument_s(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """heatclient-2016 (defect 6): ``heat stack-create ... -e
    env_loadbalancer_none.yaml`` was Octavia's because a file name held
    "loadbalancer"; it is Heat's."""
    monkeypatch.setenv("OSDOCTOR_HOME", str(tmp_path / "home"))
    log = public_log("heatclient-2016-stack-create-resource-type-not-found")
    (report,) = run_reports(log)
    failure = report.facts.failure
    assert (failure.service, failure.service_name) == ("orchestration", "Heat")
    main(["explain", str(log), "--format", "jsonl", "--no-user-kb"])
    (line,) = capsys.readouterr().out.splitlines()
    said = json.loads(line)
    assert "load-balancer" not in line and "Octavia" not in line
    assert said["facts"]["failure"]["service_name"] == "Heat"


@pytest.mark.parametrize(
    ("command", "service"),
    [
        ("heat stack-create s -e env_loadbalancer_none.yaml", "orchestration"),
        ("openstack server create --file my-secret.txt --image i web", "compute"),
        ("openstack stack create -t zone.yaml my-zone", "orchestration"),
        ("openstack loadbalancer list", "load-balancer"),
        ("openstack --os-cloud x secret list", "key-manager"),
        ("gnocchi resource list", "metric"),
        ("python-designateclient/4.0 keystoneauth1/5.0", "dns"),
    ],
)
def test_only_the_command_words_say_which_service(command: str, service: str) -> None:
    assert service_for(None, "", command, command) == service


def test_lookup_ranks_what_is_wrong_before_what_is_normal() -> None:
    """Defect 9: a Heat "Resource Type ... could not be found" query put
    osc.lookup-404-is-normal [info] above the Heat rule."""
    kb = builtin_kb()
    hits = lookup(kb, "The Resource Type (OOShift::ContainerPort) could not be found")
    assert hits[0].symptom.rule == "known.heat-resource-type-not-found"
    queries = {
        s.text for r in kb.rules.values() for s in [Symptom(t, rule=r.id) for t in r.symptoms]
    }
    for query in sorted(queries)[::7]:  # a spread of every rule's words
        severities = [
            kb.rules[h.symptom.rule].severity for h in lookup(kb, query) if h.symptom.rule
        ]
        assert severities == sorted(severities, key=lambda s: s == "info"), (query, severities)


def test_the_failed_line_wraps_under_itself_and_names_no_fault_code_as_reason() -> None:
    """ironic-2019 (defect 13): the failing path wrapped to column 0, and "Client",
    Ironic's WSME faultcode (whose fault, not what), was shown as the reason."""
    (report,) = _public("ironic-2019-terraform-gophercloud-409-node-locked")
    failure = report.facts.failure
    assert failure.fault is not None and failure.fault.type == ""
    assert failure.fault.code == "Client"
    lines = render_text(report).splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("Failed    "))
    block = [lines[at], *itertools.takewhile(lambda x: x.startswith(" " * 10), lines[at + 1 :])]
    assert len(block) == 2 and "Client" not in "\n".join(block)
    assert block[1].strip().startswith("/v1/nodes/74736478-ef0c-4356-b9ec-9c69e158c802/")
    assert lines[at + 2] == ""


@pytest.mark.parametrize("log", ALL_LOGS, ids=[f"{p.parent.name}/{p.stem}" for p in ALL_LOGS])
def test_no_wrapped_line_of_the_scenario_block_goes_back_to_column_0(log: Path) -> None:
    for report in run_reports(log):
        lines = render_text(report).splitlines()
        top = list(
            itertools.takewhile(
                lambda x: not x.startswith(("ERROR", "WARNING", "INFO", "No finding")), lines[3:]
            )
        )
        for line in top:
            assert not line or line.startswith(("Scenario  ", "Failed    ", " " * 10)), line


def test_a_count_of_one_is_singular() -> None:
    """Defect 14: "1 requests", "(1 lines)", "3 run(s)"."""
    assert counted(1, "request") == "1 request" and counted(3, "run") == "3 runs"
    assert counted(1204, "line") == "1,204 lines"
    row = TimelineRow.__new__(TimelineRow)
    row.count, row.folded, row.not_kept = 1, 1, 1
    assert row_count(row) == " (+1 request folded) (then 1 request not kept)"
    said = not_a_client_log(Report(trace=Trace(source="x.log", line_count=1), outcome="unknown"))
    assert said is not None and "(1 line)" in said


def test_every_view_says_the_same_of_a_run_without_a_command_line() -> None:
    """Defect 14: "(command not in the log)" in the report, "(no command line)" in
    the run list."""
    summary = RunSummary(0, 1, 9, None, "unknown", 1, "failure", None, None, None, None, None)
    assert NO_COMMAND in run_line(summary) and NO_COMMAND in run_row(summary).plain
    (report,) = _public("ironic-2019-terraform-gophercloud-409-node-locked")
    assert render_text(report).startswith(NO_COMMAND + " — ")


_ARTICLE_START = re.compile(r"(?:^|[.!?]\s+)(?:the|a|an|no|this|its)\s")


@pytest.mark.parametrize("log", ALL_LOGS, ids=[f"{p.parent.name}/{p.stem}" for p in ALL_LOGS])
def test_a_sentence_starts_with_a_capital(log: Path) -> None:
    """Defect 14: "the request was answered 500..." began an explanation: a value
    that starts a sentence starts it with a capital."""
    for report in run_reports(log):
        for f in report.findings + report.outranked:
            for said in [f.title, *f.explanation.split("\n\n")]:
                assert not _ARTICLE_START.search(said), (f.id, said[:80])


def test_a_finding_says_only_what_this_log_shows_of_keystone() -> None:
    """Defect 14: cgtsclient's run 2 claimed "The client authenticated against
    Keystone itself a moment before" in an excerpt with no token request, and
    osc.keystone-unreachable quoted "Could not find versioned identity endpoints…"
    on logs that do not contain it."""
    _run1, run2 = _public("cgtsclient-stx-host-list-503-html-prints-None")
    (finding,) = [f for f in run2.findings if f.id == "known.keystone-unavailable-to-service"]
    assert "authenticated against Keystone itself" not in finding.explanation
    assert "a token request this log does not show" in finding.explanation
    for log in ALL_LOGS:
        has = "Could not find versioned identity endpoints" in log.read_text(errors="replace")
        for report in run_reports(log):
            for f in report.findings:
                if f.id == "osc.keystone-unreachable":
                    assert ("Could not find versioned" in f.explanation) == has, log.name


def test_the_readme_s_jq_line_reads_a_log_of_one_run_and_of_several() -> None:
    """Defect 14: the README's ``jq '.scenario, .findings[].id'`` failed on a log
    of several runs, whose JSON holds the failed runs' reports under ``reports``."""
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    assert "jq '(.reports // [.])[] | .scenario, .findings[].id'" in readme
    assert "jq '.scenario, .findings[].id'" not in readme
    one = json.loads(_json(public_log("nova-2016-list-connectfailure-timeout-py2-nohandlers")))
    several = json.loads(
        _json(public_log("osc-2025-nixos-journald-nameresolution-then-keystone-500"))
    )
    assert "reports" not in one and len(several["reports"]) == 2
    for doc in (one, *several["reports"]):  # what (.reports // [.])[] gives
        assert "scenario" in doc and all("id" in f for f in doc["findings"])


def _json(log: Path) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["explain", str(log), "--format", "json", "--no-user-kb"])
    return out.getvalue()


def test_the_readme_shows_what_explain_prints() -> None:
    """The README's example is the start of the report of the fixture it names, as
    explain prints it today (its evidence now quotes the log's own lines)."""
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    block = readme.split("```text\n", 1)[1].split("```", 1)[0].splitlines()
    log = FIXTURES / "logs" / "heat.stack-hook.poll-index-error.log"
    (report,) = run_reports(log)
    assert render_text(report).splitlines()[: len(block)] == block
