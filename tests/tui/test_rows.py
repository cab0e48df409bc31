"""Timeline rows: polls fold, redirects show as one hop, late answers are taken in."""

from __future__ import annotations

from osdoctor.model import Exchange, Response, TransportKind
from osdoctor.render.rows import RowBuilder, status_text, template_path
from osdoctor.tui.steps import step_command
from tests.helpers.exchanges import make_exchange


def make(
    index: int,
    path: str,
    status: int | None = 200,
    method: str = "GET",
    redirected_from: int | None = None,
    error: TransportKind | None = None,
) -> Exchange:
    return make_exchange(
        index,
        path,
        status,
        method,
        service="orchestration",
        redirected_from=redirected_from,
        error=error,
    )


def rows_of(exchanges: list[Exchange]) -> list[tuple[int, int, int, bool]]:
    builder = RowBuilder()
    builder.update(exchanges)
    return [(r.first.index, r.last.index, r.count, r.redirect is not None) for r in builder.rows]


def test_identical_polls_fold_into_one_counted_row() -> None:
    exchanges = [make(0, "/stacks", 201, "POST")] + [
        make(i, "/stacks/s/events") for i in range(1, 6)
    ]
    assert rows_of(exchanges) == [(0, 0, 1, False), (1, 5, 5, False)]


def test_a_redirect_and_its_target_are_one_hop_and_repeated_hops_fold() -> None:
    exchanges = [
        make(0, "/stacks/web", 302),
        make(1, "/stacks/web/id", redirected_from=0),
        make(2, "/stacks/web", 302),
        make(3, "/stacks/web/id", redirected_from=2),
    ]
    assert rows_of(exchanges) == [(0, 3, 2, True)]


def test_an_answer_arriving_later_regroups_the_open_row() -> None:
    exchanges = [make(0, "/events"), make(1, "/events", status=None)]
    builder = RowBuilder()
    builder.update(exchanges)
    assert [r.count for r in builder.rows] == [1, 1]
    exchanges[1].response = Response(200, line=12)
    exchanges.append(make(2, "/other"))
    builder.update(exchanges)
    assert [(r.first.index, r.count) for r in builder.rows] == [(0, 2), (2, 1)]
    assert builder.row_of(1) == 0 and builder.row_of(2) == 1


def test_status_words_and_templates() -> None:
    assert status_text(make(0, "/v3", None, error="connection-refused"), short=True) == "refused"
    assert status_text(make(0, "/v3", None)) == "…"
    assert (
        template_path("/stacks/web/0b6d3c1e-2f4a-4b8c-9d7e-5a1f3c2e4b6d/events")
        == "/stacks/web/{id}/events"
    )


def test_next_step_commands_are_cut_from_their_prose() -> None:
    assert (
        step_command(
            "Check the auth URL the client used: openstack configuration show | grep auth_url"
        )
        == "openstack configuration show | grep auth_url"
    )
    assert (
        step_command("Run `openstack stack event list web` to see why")
        == "openstack stack event list web"
    )
    assert step_command("Ask the cloud operator") == "Ask the cloud operator"
    assert (
        step_command(
            "Check it: openstack configuration show -c auth.auth_url (or echo $OS_AUTH_URL)"
        )
        == "openstack configuration show -c auth.auth_url"
    )


def test_requests_folded_by_the_parser_are_counted_on_their_row() -> None:
    import io

    from osdoctor.diagnose import parse_stream
    from osdoctor.parse.parser import FOLD_KEEP
    from osdoctor.render.rows import RowBuilder

    poll = (
        'REQ: curl -g -i -X GET http://h/v1/p/stacks/s/events -H "Accept: x"\n'
        'http://h:80 "GET /v1/p/stacks/s/events HTTP/1.1" 200 2\n'
        "RESP: [200] Content-Type: application/json\nRESP BODY: {}\n"
    )
    rounds = 4 * FOLD_KEEP
    trace = parse_stream(io.BytesIO((poll * rounds).encode()), "-")
    assert trace.folds and len(trace.exchanges) < rounds
    builder = RowBuilder()
    builder.update(trace.exchanges)
    (row,) = builder.rows
    assert row.count + row.folded == rounds
    assert row.folded == sum(f.count for f in trace.folds)


def test_a_live_report_that_looks_healthy_so_far_is_not_a_success() -> None:
    from osdoctor.model import Report, ScenarioMatch, Trace
    from osdoctor.tui.widgets.diagnosis import verdict

    match = ScenarioMatch("heat.stack-delete", "stack delete --wait", "deleted", "000", 3)
    running = Report(trace=Trace(), outcome="success", scenario=match)
    text = verdict(running, final=False).plain
    assert text.startswith(" RUNNING ") and "deleted so far" in text
    assert "Nothing has failed so far" in text
    done = Report(trace=Trace(exit_code=0), outcome="success", scenario=match)
    assert verdict(done, final=True).plain.startswith(" SUCCESS ")
