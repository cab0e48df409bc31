"""While the command runs, nothing is said about how it ends.

A live diagnosis (``live=True``) sees a trace without an exit code because
the command has not ended, not because the log was cut: a wait that has seen
two empty rounds three seconds into a healthy ``stack create --poll 1`` is not
"stalled", and no text may speak of an exit that has not happened.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from osdoctor.diagnose import diagnose
from osdoctor.intake import new_parser
from osdoctor.kb.loader import KnowledgeBase, load_knowledge
from osdoctor.model import Report, Trace

LOGS = Path(__file__).resolve().parent / "fixtures" / "logs"
FIXTURES = sorted(p.name.removesuffix(".log") for p in LOGS.glob("*.log"))
#: After the second empty round of events: about 3 s into the create with --poll 1.
STALLED_SO_FAR = 70
_EXIT_TALK = re.compile(r"exit None|exit unknown|the run ended|\(exit ")


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return load_knowledge(user=False)


def _head(name: str, lines: int) -> Trace:
    """The trace a live run has after ``lines`` lines: fed, not finished."""
    parser = new_parser(name)
    for number, text in enumerate((LOGS / f"{name}.log").read_text().splitlines()[:lines], 1):
        parser.feed(number, text, 0)
    return parser.trace


def _texts(report: Report) -> list[str]:
    out = [f"{f.title} {f.explanation}" for f in report.findings]
    if report.scenario is not None and report.scenario.divergence:
        out.append(report.scenario.divergence)
    return out


def test_a_wait_with_empty_rounds_is_not_stalled_while_it_runs(kb: KnowledgeBase) -> None:
    trace = _head("heat.stack-create.stalled", STALLED_SO_FAR)
    assert trace.exit_code is None
    live = diagnose(trace, kb, live=True)
    assert "heat.wait-stalled" not in [f.id for f in live.findings]
    assert not [f for f in live.findings if f.severity == "error"]
    assert live.scenario is not None and live.scenario.branch != "stalled"
    if live.scenario.branch is None:  # no branch fits YET: that is no divergence
        assert live.scenario.divergence is None
    assert not [t for t in _texts(live) if _EXIT_TALK.search(t)]
    # The same lines as a saved log cut there: the log ends without an exit.
    cut = diagnose(_head("heat.stack-create.stalled", STALLED_SO_FAR), kb)
    assert "heat.wait-stalled" in [f.id for f in cut.findings]


@pytest.mark.parametrize("name", FIXTURES)
def test_no_text_speaks_of_an_exit_before_the_end(name: str, kb: KnowledgeBase) -> None:
    total = len((LOGS / f"{name}.log").read_text().splitlines())
    for quarter in (1, 2, 3):
        trace = _head(name, total * quarter // 4)
        if trace.exit_code is not None:
            continue
        report = diagnose(trace, kb, live=True)
        assert not [t for t in _texts(report) if _EXIT_TALK.search(t)], (name, quarter)
