"""The join ties a client's exchanges to the services' records: by request id, by the
global request id of a call made for it, by the answer's own traceback, and more
weakly by time and service, by a service's last words, or by having been pasted
beside the client's output. Lab fixtures (a real client, its stub's oslo.log
records) and public pastes."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from osdoctor.intake import parse_path
from osdoctor.lint import fixture_trace
from osdoctor.model import Body, Exchange, Request, Response, Trace
from osdoctor.servicelog.join import Joined, join
from tests.helpers.public_logs import FIXTURES, public_log

LOGS = FIXTURES / "logs"


def joined(name: str) -> tuple[Trace, list[Joined]]:
    trace = fixture_trace(LOGS / f"{name}.log")
    return trace, join(trace)


def exchange(trace: Trace, index: int | None) -> Exchange:
    return next(ex for ex in trace.exchanges if ex.index == index)


def test_the_failed_requests_error_is_tied_by_its_request_id() -> None:
    trace, ties = joined("generic.server-nova-db-unreachable")
    (error,) = [j for j in ties if j.record.logger == "nova.api.openstack.wsgi"]
    assert error.kind == "request-id" and error.by_id
    failed = exchange(trace, error.exchange)
    assert failed.status == 500 and failed.path.endswith("/servers/detail")
    assert error.request_id == error.record.request_id
    assert error.record.source.endswith("nova/nova-api.log")


def test_neutrons_record_of_novas_call_is_tied_by_the_global_request_id() -> None:
    trace, ties = joined("osc.server-create.error-port-binding-dead-agent")
    neutron = [j for j in ties if j.record.service == "neutron-server" and j.record.level != "INFO"]
    assert {j.kind for j in neutron} == {"global-request-id"}
    (post,) = {exchange(trace, j.exchange).request.method for j in neutron}
    assert post == "POST"  # nova's POST /servers: neutron bound its port for it


def test_middleware_records_without_context_are_tied_by_time_and_service() -> None:
    trace, ties = joined("generic.server-cinder-authtoken-service-user")
    middleware = [j for j in ties if j.record.logger == "keystonemiddleware.auth_token"]
    assert middleware and {j.kind for j in middleware} == {"time"}
    assert {exchange(trace, j.exchange).status for j in middleware} == {503}
    assert not any(j.by_id for j in middleware)


def test_a_host_in_another_zone_is_tied_at_a_whole_hour_away() -> None:
    trace = fixture_trace(LOGS / "generic.server-cinder-authtoken-service-user.log")
    shifted = [
        dataclasses.replace(r, time=r.time + 7200) if r.time is not None else r
        for r in trace.service_records
    ]
    ties = join(trace, shifted)
    assert any(j.kind == "time" and j.record.level == "CRITICAL" for j in ties)
    # A record that says its zone is UTC is not moved: two hours away, it is no tie.
    utc = [dataclasses.replace(r, utc=True) for r in shifted]
    assert not any(j.kind == "time" for j in join(trace, utc))


def test_haproxys_lines_are_tied_by_their_path_and_time_though_syslog_has_no_year() -> None:
    trace, ties = joined("generic.lb-503-html")
    balancer = [j for j in ties if j.record.format == "haproxy"]
    assert balancer and all(j.kind == "time" for j in balancer)
    assert any(j.record.yearless for j in balancer)
    assert {exchange(trace, j.exchange).status for j in balancer} == {503}


def test_a_service_that_died_at_start_up_is_tied_by_its_last_words() -> None:
    trace, ties = joined("generic.server-neutron-config-unparsable")
    (last,) = [j for j in ties if j.kind == "last-words"]
    assert last.record.level == "CRITICAL"
    assert exchange(trace, last.exchange).error is not None  # the refused request


def test_a_trace_line_pasted_under_the_clients_error_is_tied_as_pasted() -> None:
    trace = parse_path(
        public_log("nova-2016-image-list-500-nova-api-glance-econnrefused-wrong-my-ip")
    )
    (tie,) = join(trace)
    assert tie.kind == "pasted" and not tie.by_id
    assert tie.record.exception == "CommunicationError"
    assert tie.record.line == 6 and tie.record.source == ""


def test_pasted_records_of_the_same_request_are_tied_by_its_id() -> None:
    trace = parse_path(
        public_log("nova-2016-boot-debug-500-nova-api-glanceclient-attributeerror-id")
    )
    ties = join(trace)
    assert ties and {j.kind for j in ties} == {"request-id"}
    (error,) = [j for j in ties if j.record.level == "ERROR"]
    assert error.request_id == "req-e359221b-6be3-4ac2-bb55-5310f5bb0bb2"
    assert error.record.exception == "AttributeError" and error.record.line == 51
    assert exchange(trace, error.exchange).status == 500


def test_a_5xx_whose_body_is_a_traceback_is_the_services_own_answer() -> None:
    """The body of keystone's 500 in a public paste, as a parsed answer."""
    text = public_log("keystoneclient-2015-add-user-role-500-server-typeerror-limitedlengthfile")
    lines = text.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("RESP BODY: Traceback"))
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("TypeError"))
    body = "\n".join([lines[start].removeprefix("RESP BODY: "), *lines[start + 1 : end + 1]])
    answer = Exchange(
        0,
        Request("PUT", "http://10.200.44.66:35357/v2.0/tenants/t/users/u/roles/OS-KSADM/r", 5),
        Response(500, 13, body=Body(14, 14 + end - start, body)),
    )
    (tie,) = join(Trace(exchanges=[answer]))
    assert tie.kind == "answer" and tie.exchange == 0
    assert tie.record.exception == "TypeError"
    assert tie.record.service == "keystone"  # its frames are keystone's code


@pytest.mark.parametrize(
    "name",
    sorted(p.name.removesuffix(".service") for p in LOGS.glob("*.service") if p.is_dir()),
)
def test_every_fixture_that_ends_in_a_5xx_joins_to_its_service_records(name: str) -> None:
    """Given its services' logs, a fixture's 5xx exchanges each have a record of
    their own: by request id, or (a load balancer's page has none) by time."""
    trace, ties = joined(name)
    failed = [ex for ex in trace.exchanges if (ex.status or 0) >= 500]
    for ex in failed:
        mine = [j for j in ties if j.exchange == ex.index]
        assert mine, f"{name}: no record tied to {ex.request.method} {ex.request.url}"
        assert any(j.by_id or j.kind == "time" for j in mine)


def test_the_fixtures_with_service_logs_include_every_5xx_fixture() -> None:
    with_logs = {p.name.removesuffix(".service") for p in LOGS.glob("*.service")}
    for log in sorted(LOGS.glob("*.log")):
        trace = parse_path(log)
        if any((ex.status or 0) >= 500 for ex in trace.exchanges):
            assert log.name.removesuffix(".log") in with_logs, log.name


def test_no_records_no_ties() -> None:
    assert join(parse_path(LOGS / "osc.find-by-name.found-by-id-error-no-valid-host.log")) == []


def test_the_fixture_folder_is_there() -> None:
    assert isinstance(LOGS, Path) and any(LOGS.glob("*.service"))
