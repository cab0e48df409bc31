"""The one entry point every front end uses: a trace and the knowledge in, a report out."""

from __future__ import annotations

from osdoctor.facts import Facts
from osdoctor.facts.known_names import command_words
from osdoctor.facts.quotes import LineWords

# Reading a log is the intake's; these stay importable from here, beside diagnose.
from osdoctor.intake import parse_path as parse_path
from osdoctor.intake import parse_stream as parse_stream
from osdoctor.kb.conditions import Context, Match, match_all
from osdoctor.kb.index import atoms_of, index_for
from osdoctor.kb.loader import KnowledgeBase
from osdoctor.kb.matcher import NO_BRANCH, match_scenario
from osdoctor.kb.nearest import nearest
from osdoctor.kb.schema import Rule
from osdoctor.kb.targets import target_exchanges
from osdoctor.kb.text_placeholders import fill
from osdoctor.model import Evidence, Finding, Outcome, Report, ScenarioMatch, Severity, Trace
from osdoctor.runbook.pages import rule_page

_SEVERITY_ORDER: dict[Severity, int] = {"error": 0, "warning": 1, "info": 2}
_MAX_EVIDENCE = 12


def reflow(text: str) -> str:
    """Knowledge files wrap prose at any width: keep paragraphs, drop the wraps."""
    paragraphs = [" ".join(p.split()) for p in text.strip().split("\n\n")]
    return "\n\n".join(p for p in paragraphs if p)


def provisional_outcome(trace: Trace, facts: Facts | None = None) -> Outcome:
    """What the log itself says about success, before any scenario is known: the
    exit code, else a traceback, an error line or a decisive failure in the facts."""
    if trace.exit_code is not None:
        if trace.exit_code == 0 and facts is not None and facts.failure is not None:
            return "failure"  # the command returned, the resource went to ERROR
        return "success" if trace.exit_code == 0 else "failure"
    if trace.tracebacks or any(m.kind == "error" for m in trace.messages):
        return "failure"
    if facts is not None and facts.failure is not None:
        return "failure"
    if _printed_result(trace):
        return "success"
    return "unknown"


def _printed_result(trace: Trace) -> bool:
    """Whether the command printed its result (a table, a resource in any ``-f``
    format) after its last request and its command line: with no error, that is a
    command that ended well, even in a paste with no exit code."""
    after = max(trace.command_line or 0, trace.exchanges[-1].last_line if trace.exchanges else 0)
    if trace.exchanges and trace.exchanges[-1].response is None:
        return False
    if any(r.line > after for r in trace.resources):
        return True
    return any(m.kind == "output" and m.line > after for m in trace.messages)


def _rule_applies(rule: Rule, match: ScenarioMatch | None) -> bool:
    if rule.scenario is not None and (match is None or match.id != rule.scenario):
        return False
    if rule.branches and (match is None or match.branch not in rule.branches):
        return False
    return True


def _finding(rule: Rule, m: Match, values: dict[str, str], words: LineWords) -> Finding:
    seen: set[tuple[str, int]] = set()
    evidence: list[Evidence] = []
    # The log's own lines in order, each quoted as the log has it, then the
    # service logs' (file by file).
    for ev in sorted(m.evidence, key=lambda e: (e.source, e.line)):
        if ev.line and (ev.source, ev.line) not in seen:
            seen.add((ev.source, ev.line))
            evidence.append(Evidence(ev.line, words.quoted(ev.line, ev.text)) if ev.in_log else ev)
    if len(evidence) > _MAX_EVIDENCE:
        evidence = evidence[: _MAX_EVIDENCE - 2] + evidence[-2:]
    return Finding(
        id=rule.id,
        severity=rule.severity,
        title=fill(rule.title, values),
        explanation=reflow(fill(rule.explanation, values)),
        next_steps=[fill(s, values) for s in rule.next_steps],
        evidence=evidence,
        references=[str(r) for r in rule.references],
        runbook=rule_page(rule.id),
        captures=dict(m.captures),
    )


def _about_target(rule: Rule, m: Match, ctx: Context) -> Match | None:
    """The rule again, seeing only the exchanges of the target it captured."""
    name = m.captures.get(rule.target or "")
    if not name:
        return m
    scoped = Context(
        ctx.trace,
        ctx.outcome,
        _facts=ctx.facts(),
        live=ctx.live,
        scope=target_exchanges(ctx.trace, name),
    )
    return match_all(rule.when, scoped)


def _outranked(rule: Rule, others: list[Rule]) -> bool:
    """A fallback is dropped when an error finding of higher priority fired (or a
    non-fallback one of the same priority): the more specific explanation leads."""
    for other in others:
        if other is rule or other.severity != "error":
            continue
        if other.priority > rule.priority or (
            other.priority == rule.priority and not other.fallback
        ):
            return True
    return False


def rule_values(rule: Rule, base: dict[str, str], captured: dict[str, str]) -> dict[str, str]:
    """A rule's placeholders: its defaults, then what the log shows, then its captures."""
    defaults = {k: v for k, v in rule.defaults.items() if not base.get(k)}
    return {**base, **defaults, **captured}


def _values(rule: Rule, base: dict[str, str], m: Match) -> dict[str, str]:
    return rule_values(rule, base, m.captures)


def base_values(ctx: Context, match: ScenarioMatch | None) -> dict[str, str]:
    """The placeholders every rule may use: the facts', the run's own."""
    return {
        **ctx.fact_values(),
        "command": ctx.trace.command or "the command",
        "command_words": command_words(ctx.trace.command or ""),
        "exit_code": str(ctx.trace.exit_code) if ctx.trace.exit_code is not None else "unknown",
        "scenario": match.id if match else "",
        "branch": (match.branch or "") if match else "",
    }


def apply_rules(
    kb: KnowledgeBase,
    ctx: Context,
    match: ScenarioMatch | None,
    outranked: list[Finding] | None = None,
) -> list[Finding]:
    """The findings, most important first; ``outranked`` receives the fallbacks a
    finding of higher priority replaced."""
    base = base_values(ctx, match)
    fired: dict[str, tuple[Rule, Match]] = {}
    index = index_for(kb)
    # Only the rules whose requirements the run meets can fire (see ``kb.index``).
    rules = (
        kb.rules.values()
        if index is None
        else index.rules_for(atoms_of(ctx), match.id if match is not None else None)
    )
    for rule in rules:
        if not _rule_applies(rule, match):
            continue
        m = match_all(rule.when, ctx)
        if m is not None and rule.target is not None:
            m = _about_target(rule, m, ctx)
        if m is not None:
            fired[rule.id] = (rule, m)
    kept = {
        rid: pair
        for rid, pair in fired.items()
        if not any(other in fired for other in pair[0].suppressed_by)
    }
    rules = [r for r, _m in kept.values()]
    words = LineWords(ctx.trace)
    shown: list[tuple[Rule, Finding]] = []
    for rule, m in kept.values():
        if rule.fallback and _outranked(rule, rules):
            if outranked is not None:
                outranked.append(_finding(rule, m, _values(rule, base, m), words))
            continue
        shown.append((rule, _finding(rule, m, _values(rule, base, m), words)))
    # Priority orders the errors (the cause leads); other findings keep the log's order.
    shown.sort(
        key=lambda rf: (
            _SEVERITY_ORDER[rf[1].severity],
            -rf[0].priority if rf[1].severity == "error" else 0,
            rf[1].evidence[0].line if rf[1].evidence else 0,
            rf[1].id,
        )
    )
    return [f for _r, f in shown]


def diagnose(trace: Trace, kb: KnowledgeBase, live: bool = False) -> Report:
    """The report of a trace. ``live``: the command is still running (the TUI's interim
    diagnoses, a followed file), so the request it is waiting on is not reported as
    a hang, and nothing that depends on how it ends is said."""
    ctx = Context(trace, "unknown", live=live)
    outcome = ctx.outcome = provisional_outcome(trace, ctx.facts())
    match, _m, candidates = match_scenario(kb, ctx)
    if outcome == "unknown" and match is not None and match.branch is not None:
        branch = kb.scenarios[match.id].branch(match.branch)
        if branch is not None and branch.outcome != "unknown":
            outcome = ctx.outcome = branch.outcome
    outranked: list[Finding] = []
    findings = apply_rules(kb, ctx, match, outranked)
    near = nearest(kb, ctx, match)
    if match is not None and match.branch is None and match.divergence == NO_BRANCH:
        closest = next((n for n in near if n.scenario == match.id), None)
        if closest is not None:
            match.divergence += (
                f"; the nearest is {closest.branch} ({closest.title}), "
                f"but {closest.missing} did not happen"
            )
    return Report(
        trace=trace,
        outcome=outcome,
        scenario=match,
        findings=findings,
        candidates=candidates,
        outranked=outranked,
        facts=ctx.facts(),
        near=near,
    )
