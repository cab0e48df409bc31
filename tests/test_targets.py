"""A rule about one target of a command that names several (``stack delete
--wait app-1 app-2 app-3``) quotes that target's exchanges only: app-1's wait
ending on a 404 is not app-2's failure."""

from __future__ import annotations

import functools
import re
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit

import pytest

from osdoctor.kb.loader import KnowledgeBase, load_knowledge
from osdoctor.kb.targets import target_exchanges
from osdoctor.model import Exchange, Trace
from tests.helpers.explained import report_of, trace_of

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted((ROOT / "tests" / "fixtures" / "logs").glob("*.log"))


@functools.cache
def _kb() -> KnowledgeBase:
    return load_knowledge(user=False)


def _names_in_url(ex: Exchange) -> set[str]:
    parts = urlsplit(ex.request.url)
    return {unquote(s) for s in parts.path.split("/") if s} | {
        v for _k, v in parse_qsl(parts.query)
    }


def command_targets(trace: Trace) -> list[str]:
    """The words of the command line that requests name: the targets it handled."""
    words = [w for w in (trace.command or "").split()[1:] if not w.startswith("-")]
    named = (
        set().union(*(_names_in_url(ex) for ex in trace.exchanges)) if trace.exchanges else set()
    )
    return [w for w in dict.fromkeys(words) if w in named]


@functools.cache
def _multi_target() -> list[Path]:
    return [log for log in FIXTURES if len(command_targets(trace_of(log))) >= 2]


def test_there_are_multi_target_fixtures() -> None:
    names = {p.stem for p in _multi_target()}
    assert {
        "heat.stack-delete.partial",
        "heat.stack-delete.partial-two",
        "heat.stack-delete.partial-wait-gone",
        "osc.multi-delete.partial-failure",
    } <= names


def test_target_rules_are_declared() -> None:
    for rid in ("heat.delete-not-found", "heat.delete-forbidden", "heat.delete-failed-reason"):
        assert _kb().rules[rid].target == "stack"


@pytest.mark.parametrize("log", _multi_target(), ids=[p.stem for p in _multi_target()])
def test_a_finding_about_one_target_quotes_its_exchanges_only(log: Path) -> None:
    trace = trace_of(log)
    report = report_of(log)
    targets = command_targets(trace)
    by_line = {}
    for ex in trace.exchanges:
        for line in (ex.request.line, ex.response.line if ex.response else None):
            if line:
                by_line[line] = ex
    for f in report.findings:
        rule = _kb().rules[f.id]
        if rule.target is None:
            continue
        about = [t for t in targets if re.search(rf"(?<![\w-]){re.escape(t)}(?![\w-])", f.title)]
        assert len(about) == 1, (f.id, f.title, targets)
        mine = {ex.index for ex in target_exchanges(trace, about[0])}
        others = set(targets) - set(about)
        for ev in f.evidence:
            shown = by_line.get(ev.line)
            if shown is None:
                continue
            assert shown.index in mine, (f.id, ev)
            assert not (_names_in_url(shown) & others), (f.id, ev.text)
        for other in others:
            assert not re.search(
                rf"/stacks/{re.escape(other)}\b|/{re.escape(other)}\b", f.explanation
            ), (f.id, other, f.explanation)
