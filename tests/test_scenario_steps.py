"""The scenario path says only what the log shows.

Every documented step of the branch a fixture took is checked against the
fixture's own exchanges: a step marked observed points at the request (or,
for a reply arrow, the answer) of an exchange its pattern matches, status
included; a step marked skipped or diverged has no such exchange anywhere in
the log; a step the log cannot show is "unchecked", never silently unmarked.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from osdoctor.kb.loader import KnowledgeBase, load_knowledge
from osdoctor.kb.matcher import _flatten
from osdoctor.kb.schema import DiagramItem
from osdoctor.model import Exchange, Report, StepResult, StepState
from tests.helpers.explained import report_of

LOGS = Path(__file__).resolve().parent / "fixtures" / "logs"
FIXTURES = sorted(p.name.removesuffix(".log") for p in LOGS.glob("*.log"))
_STATUS = re.compile(r"\b([1-5]\d\d)\b")


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return load_knowledge(user=False)


def _report(kb: KnowledgeBase, name: str) -> Report:
    return report_of(LOGS / f"{name}.log")


def _cited(item: DiagramItem, ex: Exchange) -> int:
    if not item.reply:
        return ex.first_line
    if ex.response is not None:
        return ex.response.line
    return ex.error.line if ex.error is not None else ex.first_line


def _path(kb: KnowledgeBase, report: Report) -> list[tuple[DiagramItem, StepResult]]:
    match = report.scenario
    assert match is not None
    items = _flatten(kb.scenarios[match.id].diagram, match.branch)
    assert len(items) == len(match.steps)
    return list(zip(items, match.steps, strict=True))


@pytest.mark.parametrize("name", FIXTURES)
def test_every_mark_is_what_the_log_shows(name: str, kb: KnowledgeBase) -> None:
    report = _report(kb, name)
    if report.scenario is None:
        return
    exchanges = report.trace.exchanges
    for item, step in _path(kb, report):
        assert isinstance(step.state, StepState)
        if item.pattern is None:
            assert step.state is StepState.UNCHECKED, step.label
            continue
        matching = [ex for ex in exchanges if item.pattern.match(ex) is not None]
        if step.state is StepState.OBSERVED:
            assert step.lines, step.label
            cited = [ex for ex in matching if _cited(item, ex) == step.lines[0]]
            assert cited, f"{step.label}: line {step.lines[0]} is no exchange of this step"
            named = _STATUS.findall(item.text) if item.reply else []
            if named:
                assert any(str(ex.status) in named for ex in cited), step.label
        else:
            assert step.state in (StepState.SKIPPED, StepState.DIVERGED), step.label
            assert not matching, (
                f"{step.label} marked {step.state} although line {matching[0].first_line} shows it"
            )


def test_a_reply_names_only_the_statuses_its_pattern_accepts(kb: KnowledgeBase) -> None:
    """A "409" arrow must not be observed by a 503: the status a reply's text
    names bounds the statuses its pattern may match."""

    def statuses(spec: object) -> set[str]:
        items = spec if isinstance(spec, list) else [spec]
        return {str(s) for s in items}

    def walk(items: list[DiagramItem], where: str) -> None:
        for item in items:
            named = set(_STATUS.findall(item.text)) if item.reply else set()
            if named and item.pattern is not None:
                assert "status" in item.pattern.spec, f"{where}: {item.text}"
                assert statuses(item.pattern.spec["status"]) <= named, f"{where}: {item.text}"
            for block in item.blocks:
                walk(block.items, where)

    for scenario in kb.scenarios.values():
        walk(scenario.diagram, scenario.id)


def _states(report: Report) -> dict[str, list[tuple[StepState, list[int]]]]:
    assert report.scenario is not None
    out: dict[str, list[tuple[StepState, list[int]]]] = {}
    for step in report.scenario.steps:
        out.setdefault(step.label, []).append((step.state, step.lines))
    return out


def test_partial_delete_marks_the_accepted_stack_and_no_false_divergence(kb: KnowledgeBase) -> None:
    """web's DELETE answered 204 (line 52) and its events ended DELETE_COMPLETE:
    the accepted arrow is seen there, and the DELETE_FAILED arrow is not where
    the run left the path."""
    report = _report(kb, "heat.stack-delete.partial")
    states = _states(report)
    assert states["H-->>C: 204"] == [(StepState.OBSERVED, [52])]
    assert states["H-->>C: 403"] == [(StepState.OBSERVED, [73])]
    assert states["H-->>C: 200"] == [(StepState.SKIPPED, [])]
    assert report.scenario is not None
    assert not any(s.state is StepState.DIVERGED for s in report.scenario.steps)
    # web's events were read (302 to its ID, then 200 at line 81), not answered 404
    (gone,) = [
        s
        for s in report.scenario.steps
        if s.label == "H-->>C: 404" and s.state is StepState.SKIPPED
    ]
    assert gone.answered == (200, 81)


def test_a_503_does_not_observe_the_409_arrow(kb: KnowledgeBase) -> None:
    report = _report(kb, "ironic.conflict-retry.retry-after-typeerror")
    (step,) = (
        [s for s in report.scenario.steps if s.label.startswith("I-->>U: 409")]
        if report.scenario
        else []
    )
    assert step.state is StepState.DIVERGED and step.lines == []
    assert step.answered == (503, 42)


def test_a_request_before_its_documented_place_is_still_seen(kb: KnowledgeBase) -> None:
    """The client authenticated (line 34) before it fetched the missing file:
    the token request is not "skipped" for coming earlier than drawn."""
    report = _report(kb, "heat.stack-create.local-file-missing")
    states = _states(report)
    assert states["C->>K: POST /v3/auth/tokens"] == [(StepState.OBSERVED, [34])]
    assert states["H-->>C: 404"] == [(StepState.OBSERVED, [41])]
