"""Recognising which documented scenario a run is, and which branch it took.

Branches are tried in the order the knowledge file lists them; the first
whose conditions all hold is the branch. Branches marked ``any_command`` (an
authentication failure, say) apply to every command and are tried first,
because nothing else in the run happened after them. When no branch holds,
the report keeps every candidate with the first condition that failed, so a
user (``--why-not``) and a rule author can see why.
"""

from __future__ import annotations

from osdoctor.kb.conditions import Context, Match, evaluate_all
from osdoctor.kb.loader import KnowledgeBase
from osdoctor.kb.placeholders import fill
from osdoctor.kb.schema import Branch, DiagramItem, Scenario
from osdoctor.model import Candidate, Exchange, ScenarioMatch, StepResult


def _selected(kb: KnowledgeBase, command: str | None) -> list[Scenario]:
    if not command:
        return list(kb.scenarios.values())
    return [s for s in kb.scenarios.values() if any(rx.search(command) for rx in s.commands)]


def match_scenario(
    kb: KnowledgeBase, ctx: Context
) -> tuple[ScenarioMatch | None, Match | None, list[Candidate]]:
    candidates: list[Candidate] = []
    scenarios = sorted(kb.scenarios.values(), key=lambda s: s.id)
    for scenario in scenarios:
        for branch in scenario.branches:
            if not branch.any_command:
                continue
            m, held, failed = evaluate_all(branch.when, ctx)
            if m is not None:
                return _result(scenario, branch, m, ctx), m, candidates
    selected = _selected(kb, ctx.trace.command)
    command_known = bool(ctx.trace.command)
    best: tuple[Scenario, Branch, Match] | None = None
    for scenario in sorted(selected, key=lambda s: s.id):
        for branch in scenario.branches:
            if branch.any_command or not branch.when:
                continue
            m, held, failed = evaluate_all(branch.when, ctx)
            if m is not None:
                if best is None or len(branch.when) > len(best[1].when):
                    best = (scenario, branch, m)
                break
            score = held / len(branch.when)
            reason = f"{failed.describe()}: did not hold" if failed else ""
            candidates.append(Candidate(scenario.id, branch.id, round(score, 2), [reason]))
    if best is not None:
        scenario, branch, m = best
        candidates = [c for c in candidates if c.scenario != scenario.id]
        return _result(scenario, branch, m, ctx), m, candidates
    candidates.sort(key=lambda c: -c.score)
    if command_known and selected:
        # The command is a documented scenario, but the run took no known branch.
        scenario = sorted(selected, key=lambda s: s.id)[0]
        near = [c for c in candidates if c.scenario == scenario.id]
        divergence = None
        if near:
            divergence = f"no documented branch fits; nearest is {near[0].branch}: " + \
                "; ".join(near[0].reasons)
        result = ScenarioMatch(scenario.id, scenario.title, None, scenario.seed, scenario.section,
                               divergence, _steps(scenario, None, ctx, None))
        return result, None, candidates
    return None, None, candidates[:10]


def _result(scenario: Scenario, branch: Branch, m: Match, ctx: Context) -> ScenarioMatch:
    values = dict(m.captures)
    values.setdefault("command", ctx.trace.command or "")
    divergence: str | None = None
    if branch.divergence:
        divergence = fill(branch.divergence, values)
    elif branch.outcome == "failure" and m.evidence:
        last = max(m.evidence, key=lambda e: e.line)
        divergence = f"left the documented path at line {last.line}: {last.text}"
    return ScenarioMatch(scenario.id, scenario.title, branch.id, scenario.seed, scenario.section,
                         divergence, _steps(scenario, branch, ctx, divergence),
                         fill(branch.title, values))


def _flatten(items: list[DiagramItem], branch: str | None) -> list[DiagramItem]:
    out: list[DiagramItem] = []
    for item in items:
        if item.kind == "message":
            out.append(item)
        elif item.kind in ("alt", "loop"):
            for block in item.blocks:
                if item.kind == "alt" and block.branches and branch not in block.branches:
                    continue
                out.extend(_flatten(block.items, branch))
    return out


def _steps(scenario: Scenario, branch: Branch | None, ctx: Context,
           divergence: str | None) -> list[StepResult]:
    """Walk the documented sequence over the exchanges, in order.

    A reply arrow is first checked against the answer of the request just matched
    (the diagram draws a request and its answer as two arrows of one exchange).
    For a failing branch, the first documented step missing after the last one
    seen is where the run left the path.
    """
    exchanges: list[Exchange] = ctx.trace.exchanges
    pos = 0
    steps: list[StepResult] = []
    last_matched: Exchange | None = None
    for item in _flatten(scenario.diagram, branch.id if branch else None):
        label = f"{item.source}{'-->>' if item.reply else '->>'}{item.target}: {item.text}"
        if item.pattern is None:
            steps.append(StepResult(label, "unchecked"))
            continue
        if item.reply and last_matched is not None \
                and item.pattern.match(last_matched) is not None:
            response = last_matched.response
            steps.append(StepResult(label, "observed",
                                    [response.line if response else last_matched.first_line]))
            continue
        found = None
        for i in range(pos, len(exchanges)):
            if item.pattern.match(exchanges[i]) is not None:
                found = i
                break
        if found is not None:
            last_matched = exchanges[found]
            steps.append(StepResult(label, "observed", [last_matched.first_line]))
            pos = found + 1
        else:
            steps.append(StepResult(label, "skipped"))
    if divergence and branch is not None and branch.outcome == "failure":
        seen = [i for i, st in enumerate(steps) if st.state == "observed"]
        after = seen[-1] + 1 if seen else 0
        for st in steps[after:]:
            if st.state == "skipped":
                st.state, st.note = "diverged", divergence
                break
    return steps
