"""What a new user found wrong in the reports (issue 31's defects), each pinned on
the public log or the fixture it was seen on: the report says what the log
says, about the resource and the service it names, in words that read."""

from __future__ import annotations

from osdoctor.model import Report
from tests.helpers.public_logs import public_log
from tests.helpers.reports import run_reports


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
    assert first.id == "known.service-traceback"
    assert first.title == (
        "Keystone failed (500): its own traceback names the cause, "
        "ModuleNotFoundError: No module named 'cgi'"
    )
    assert "unable to load app 0" in first.explanation and "webob" in first.explanation
    assert [e.line for e in first.evidence] == [15, 23, 24]
    for f in run2.findings + run2.outranked:
        assert "<request id" not in " ".join([f.title, f.explanation, *f.next_steps]), f.id


def test_a_server_error_without_a_request_id_names_what_to_look_for() -> None:
    """The generic 5xx finding of a log without a request id greps what the log
    would show, not a placeholder the user cannot fill."""
    _run1, run2 = _public("osc-2025-nixos-journald-nameresolution-then-keystone-500")
    (server_error,) = [f for f in run2.outranked if f.id == "generic.server-error"]
    assert any("grep 'Traceback'" in s for s in server_error.next_steps)
    assert not any("<request id" in s for s in server_error.next_steps)
