"""Recognising which documented scenario a run is, and which branch it took.

Branches are tried in the order the knowledge file lists them; the first
whose conditions all hold is the branch. Branches marked ``any_command`` (an
authentication failure, say) apply to every command and are tried first,
because nothing else in the run happened after them. When no branch holds,
the report keeps every candidate with the first condition that failed, so a
user (``--why-not``) and a rule author can see why.
"""

from __future__ import annotations

from osdoctor.kb.conditions import Context, Match, RequestPattern, evaluate_all
from osdoctor.kb.index import atoms_of, index_for
from osdoctor.kb.loader import KnowledgeBase
from osdoctor.kb.schema import Branch, DiagramBlock, DiagramItem, Scenario
from osdoctor.kb.text_placeholders import fill
from osdoctor.model import Candidate, Exchange, ScenarioMatch, StepResult, StepState

#: The divergence of a run of a documented scenario that took none of its branches.
NO_BRANCH = "no documented branch fits"


def selects(scenario: Scenario, ctx: Context) -> bool:
    """Whether the scenario's commands include the run's (any, when it is not known)."""
    command = ctx.trace.command
    if not command:
        return True
    found = ctx._selected.get(scenario.id)
    if found is None:
        found = ctx._selected[scenario.id] = any(rx.search(command) for rx in scenario.commands)
    return found


def _selected(kb: KnowledgeBase, ctx: Context) -> list[Scenario]:
    return [s for s in kb.scenarios.values() if selects(s, ctx)]


def match_scenario(
    kb: KnowledgeBase, ctx: Context
) -> tuple[ScenarioMatch | None, Match | None, list[Candidate]]:
    candidates: list[Candidate] = []
    index = index_for(kb)
    # Tried first, on every command: only those whose requirements the run meets.
    tried = (
        [
            (scenario, branch)
            for scenario in sorted(kb.scenarios.values(), key=lambda s: s.id)
            for branch in scenario.branches
            if branch.any_command
        ]
        if index is None
        else index.any_command.select(atoms_of(ctx))
    )
    for scenario, branch in tried:
        m, held, failed = evaluate_all(branch.when, ctx)
        if m is not None:
            return _result(scenario, branch, m, ctx), m, candidates
    selected = _selected(kb, ctx)
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
        divergence = None
        if not ctx.live:  # mid-run, no branch fits YET: the run is not over
            # Which branch came nearest is --why-not's to say (``kb.nearest``), in
            # the words the diagnosis then adds here: one answer for both.
            divergence = NO_BRANCH
        result = ScenarioMatch(
            scenario.id,
            scenario.title,
            None,
            scenario.seed,
            scenario.section,
            divergence,
            _steps(scenario, None, ctx, None),
        )
        return result, None, candidates
    return None, None, candidates[:10]


def branch_values(captured: dict[str, str], ctx: Context) -> dict[str, str]:
    """A branch's placeholders: what its conditions captured, and the command."""
    values = dict(captured)
    values.setdefault("command", ctx.trace.command or "")
    return values


def _result(scenario: Scenario, branch: Branch, m: Match, ctx: Context) -> ScenarioMatch:
    values = branch_values(m.captures, ctx)
    divergence: str | None = None
    if branch.divergence:
        divergence = fill(branch.divergence, values)
    elif branch.outcome == "failure" and m.evidence:
        last = max(m.evidence, key=lambda e: e.line)
        divergence = f"left the documented path at line {last.line}: {last.text}"
    return ScenarioMatch(
        scenario.id,
        scenario.title,
        branch.id,
        scenario.seed,
        scenario.section,
        divergence,
        _steps(scenario, branch, ctx, divergence),
        fill(branch.title, values),
    )


def _flatten(items: list[DiagramItem], branch: str | None) -> list[DiagramItem]:
    out: list[DiagramItem] = []
    for item in items:
        if item.kind == "message":
            out.append(item)
        elif item.kind in ("alt", "loop"):
            for block in _taken(item, branch):
                out.extend(_flatten(block.items, branch))
    return out


def _taken(item: DiagramItem, branch: str | None) -> list[DiagramBlock]:
    """The blocks of a loop or an alternative that the branch goes through."""
    if item.kind == "loop":
        return list(item.blocks)
    return [b for b in item.blocks if not b.branches or branch in b.branches]


def step_label(item: DiagramItem) -> str:
    return f"{item.source}{'-->>' if item.reply else '->>'}{item.target}: {item.text}"


def _answer_line(ex: Exchange) -> int:
    if ex.response is not None:
        return ex.response.line
    return ex.error.line if ex.error is not None else ex.first_line


class _Walk:
    """The documented sequence laid over the exchanges.

    A step is observed only by an exchange its pattern matches, status
    included: the first one at or after the documented position, else one
    earlier in the log (the step happened, out of the documented order). A
    reply arrow is first checked against the exchange of the request just
    matched, since the diagram draws a request and its answer as two arrows
    of one exchange. Inside a loop every step may come from any round, so
    each is looked for from the start of the loop.
    """

    def __init__(self, exchanges: list[Exchange], branch: str | None) -> None:
        self.exchanges = exchanges
        self.branch = branch
        self.steps: list[StepResult] = []
        self.optional: list[bool] = []
        """Per step: inside an alternative the branch may take more than one way
        through, so that its absence says nothing."""

    def sequence(
        self,
        items: list[DiagramItem],
        cursor: int,
        loop_start: int | None,
        optional: bool,
        last: Exchange | None,
    ) -> int:
        for item in items:
            if item.kind == "message":
                cursor, last = self.message(item, cursor, loop_start, optional, last)
            elif item.kind == "loop":
                end = cursor
                for block in _taken(item, self.branch):
                    end = max(end, self.sequence(block.items, cursor, cursor, optional, last))
                cursor = end
            elif item.kind == "alt":
                blocks = _taken(item, self.branch)
                several = optional or len(blocks) > 1
                end = cursor
                for block in blocks:
                    end = max(end, self.sequence(block.items, cursor, loop_start, several, last))
                cursor = end
        return cursor

    def message(
        self,
        item: DiagramItem,
        cursor: int,
        loop_start: int | None,
        optional: bool,
        last: Exchange | None,
    ) -> tuple[int, Exchange | None]:
        label = step_label(item)
        self.optional.append(optional)
        pattern = item.pattern
        if pattern is None:
            self.steps.append(StepResult(label, StepState.UNCHECKED))
            return cursor, last
        if item.reply and last is not None and pattern.match(last) is not None:
            self.steps.append(StepResult(label, StepState.OBSERVED, [_answer_line(last)]))
            return cursor, last
        start = cursor if loop_start is None else loop_start
        found = self.find(pattern, start, len(self.exchanges))
        if found is None:
            found = self.find(pattern, 0, start)
        if found is None:
            instead = None
            if item.reply and last is not None:
                final = self.final_hop(last)
                instead = (final.status, _answer_line(final))
            self.steps.append(StepResult(label, StepState.SKIPPED, answered=instead))
            return cursor, last
        ex = self.exchanges[found]
        line = _answer_line(ex) if item.reply else ex.first_line
        self.steps.append(StepResult(label, StepState.OBSERVED, [line]))
        if item.reply:
            return cursor, last
        return (max(cursor, found + 1) if found >= start else cursor), ex

    def final_hop(self, ex: Exchange) -> Exchange:
        """The end of the redirects the client followed from ``ex``: its answer."""
        for later in self.exchanges:  # hops come in order: one pass follows the chain
            if later.redirected_from == ex.index:
                ex = later
        return ex

    def find(self, pattern: RequestPattern, start: int, end: int) -> int | None:
        for i in range(start, end):
            if pattern.match(self.exchanges[i]) is not None:
                return i
        return None


def _steps(
    scenario: Scenario, branch: Branch | None, ctx: Context, divergence: str | None
) -> list[StepResult]:
    """Each documented step of the branch's path, marked as the log shows it.

    For a failing branch, the first step that must happen on its path (not
    one of several alternatives) and is missing after the last one seen is
    where the run left the path; when there is none, the drawing puts the
    divergence after the last step seen.
    """
    walk = _Walk(ctx.trace.exchanges, branch.id if branch else None)
    walk.sequence(scenario.diagram, 0, None, False, None)
    steps = walk.steps
    if divergence and branch is not None and branch.outcome == "failure":
        seen = [i for i, st in enumerate(steps) if st.state is StepState.OBSERVED]
        after = seen[-1] + 1 if seen else 0
        for i in range(after, len(steps)):
            if steps[i].state is StepState.SKIPPED and not walk.optional[i]:
                steps[i].state, steps[i].note = StepState.DIVERGED, divergence
                break
    return steps
