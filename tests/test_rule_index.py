"""The knowledge's index (``osdoctor.kb.index``) changes no report: every fixture and
public log, and every run of a log of many, explained with and without it, gives
the same report, field by field and as rendered; and what the index requires of
a run is what the conditions require (a rule it leaves out could not have fired)."""

from __future__ import annotations

from pathlib import Path

import pytest

from osdoctor.diagnose import diagnose, parse_path
from osdoctor.kb.conditions import Condition, Context
from osdoctor.kb.index import atoms_of, index_for, requirement, unindexed
from osdoctor.kb.loader import KnowledgeBase, load_knowledge
from osdoctor.model import Report, Trace
from osdoctor.render.json_report import render_json
from osdoctor.render.text import render_text
from osdoctor.runs.log_runs import read_runs_of_path
from tests.helpers.public_logs import FIXTURES, all_public_logs

LOGS = sorted((FIXTURES / "logs").glob("*.log"))
WILD = sorted((FIXTURES / "wild").glob("*.log"))


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return load_knowledge(user=False)


def _shown(report: Report) -> tuple[Report, str, str]:
    return report, render_json(report), render_text(report, colour=False, why_not=True)


def _both(trace: Trace, kb: KnowledgeBase, live: bool = False) -> None:
    indexed = _shown(diagnose(trace, kb, live=live))
    with unindexed():
        plain = _shown(diagnose(trace, kb, live=live))
    assert indexed == plain


@pytest.mark.parametrize("log", [*LOGS, *WILD, *all_public_logs()], ids=lambda p: p.stem)
def test_a_log_explains_the_same_with_and_without_the_index(log: Path, kb: KnowledgeBase) -> None:
    trace = parse_path(log)
    _both(trace, kb)
    _both(trace, kb, live=True)  # the TUI's interim diagnoses: no exit code yet


def test_every_run_of_a_log_of_many_explains_the_same(kb: KnowledgeBase, tmp_path: Path) -> None:
    log = tmp_path / "day.log"
    log.write_bytes(b"".join(path.read_bytes() for path in LOGS))
    traces: list[Trace] = []

    def keep(trace: Trace) -> Report:
        traces.append(trace)
        return diagnose(trace, kb)

    result = read_runs_of_path(log, keep, "none")
    assert result.runs > len(LOGS) // 2
    for trace in traces:
        _both(trace, kb)


def test_the_index_leaves_rules_out(kb: KnowledgeBase) -> None:
    """It is an index: on a typical failure most rules are never asked."""
    trace = parse_path(FIXTURES / "logs" / "heat.stack-hook.poll-index-error.log")
    ctx = Context(trace, "failure")
    index = index_for(kb)
    assert index is not None
    asked = index.rules_for(atoms_of(ctx), "heat.stack-hook")
    assert 0 < len(asked) < len(kb.rules) // 3
    assert "heat.hook-poll-needs-name" in {rule.id for rule in asked}


@pytest.mark.parametrize(
    ("spec", "atoms"),
    [
        ({"request": {"method": "DELETE", "status": 409}}, [{"exchange"}, {"DELETE"}, {409}]),
        ({"request": {"status": "4xx", "count": 0}}, []),  # holds with no such request
        ({"request": {"status": [404, "5xx"], "count": ">=2"}}, [{"exchange"}, {404, 5}]),
        ({"failure": {"kind": "http", "status": "none"}}, [{"failure"}, {"http"}, {None}]),
        # Printed lines, then (when first asked) the words every match contains.
        (
            {"message": "Stack (?P<stack>\\S+) not found"},
            [{None}, {"Stack (?P<stack>\\S+) not found"}],
        ),
        ({"message": {"kind": "error", "text": "^x"}}, [{"error"}, {"^x"}]),
        ({"exit_code": ["nonzero", 2]}, [{"nonzero", 2}]),
        ({"no_request": {"status": 404}}, []),
        ({"not": {"message": "x"}}, []),
        ({"any": [{"traceback": "KeyError"}, {"exit_code": 1}]}, [{"traceback", 1}]),
        ({"any": [{"traceback": "KeyError"}, {"outcome": "failure"}]}, []),
        ({"all": [{"client": "heatclient"}, {"command": "^openstack"}]}, [{"heatclient"}]),
    ],
)
def test_what_a_condition_requires(spec: dict[str, object], atoms: list[set[object]]) -> None:
    clauses = requirement(Condition(spec))
    # Each clause as the last part of its atoms (the status, the kind, the word).
    assert [{atom[-1] if len(atom) > 1 else atom[0] for atom in c} for c in clauses][
        : len(atoms)
    ] == atoms


def test_words_are_looked_for_in_the_text_a_condition_searches(kb: KnowledgeBase) -> None:
    trace = parse_path(FIXTURES / "logs" / "heat.stack-hook.poll-index-error.log")
    run = atoms_of(Context(trace, "failure"))
    printed = ("printed", None)
    assert run.has(("pattern", printed, "IndexError: list index (?:out|beyond) of range"))
    assert not run.has(("pattern", printed, "(?:No such|Unheard of) words? here"))
    assert run.has(("pattern", printed, "(?i)no words required"))  # may match anything
    assert not run.has(("pattern", ("command",), "^swift "))


def test_a_condition_kind_the_index_does_not_know_requires_nothing() -> None:
    class Future(Condition):
        def __init__(self) -> None:
            self.key, self.value = "a_kind_of_the_future", {"level": "ERROR"}

    assert requirement(Future()) == []


def test_an_index_is_built_again_when_the_rules_change(kb: KnowledgeBase) -> None:
    first = index_for(kb)
    assert first is not None and index_for(kb) is first
    other = load_knowledge(user=False)
    other.rules.pop(next(iter(other.rules)))
    second = index_for(other)
    assert second is not None and second is not first
    assert sum(len(t.items) for t in second.rules.values()) == len(kb.rules) - 1
