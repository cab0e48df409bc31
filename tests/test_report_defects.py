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
