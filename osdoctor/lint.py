"""``osdoctor kb lint``: the knowledge is valid, and proven on real client logs.

Above ``diagnose`` (it explains the fixtures with it), and so outside
``osdoctor.kb``, which diagnose itself stands on.

Beyond the schema, a rule is only trusted when it fires on a fixture log that
a real client produced, and a branch only when some fixture takes it. Each
fixture ``NAME.log`` sits beside ``NAME.expected.yaml`` (scenario, branch,
findings), written by the lab's capture.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from osdoctor.diagnose import base_values, diagnose, reflow, rule_values
from osdoctor.intake import parse_fixture
from osdoctor.kb.conditions import Context, match_all
from osdoctor.kb.holes import holes
from osdoctor.kb.loader import KnowledgeBase, builtin_dir
from osdoctor.kb.matcher import branch_values
from osdoctor.kb.schema import Issue, RemovedRule, Rule, completeness_issues
from osdoctor.kb.text_placeholders import captures, render, template_problems
from osdoctor.kb.yamlfile import YamlError, load_yaml
from osdoctor.model import Report, Trace
from osdoctor.runbook.seeds import seed_issues
from osdoctor.runs.log_runs import RunSummary, read_runs_of_path


@dataclass(slots=True)
class FixtureResult:
    name: str
    expected: dict[str, Any]
    report: Report
    problems: list[str] = field(default_factory=list)


@dataclass(slots=True)
class LintResult:
    issues: list[Issue] = field(default_factory=list)
    fixtures: list[FixtureResult] = field(default_factory=list)
    uncovered_branches: list[str] = field(default_factory=list)
    silent_rules: list[str] = field(default_factory=list)
    coverage_checked: bool = False
    seeds_checked: bool = False

    @property
    def errors(self) -> int:
        return sum(1 for i in self.issues if i.severity == "error")


def default_fixtures_dir() -> Path | None:
    """The fixture logs of the source checkout osdoctor runs from (``tests/fixtures/logs``
    beside the built-in knowledge), None for an installed osdoctor: what ``kb lint``
    and ``runbook`` use unless given ``--fixtures``."""
    candidate = builtin_dir().parent / "tests" / "fixtures" / "logs"
    return candidate if candidate.is_dir() else None


def default_log_dirs() -> list[Path]:
    """The real logs people posted, beside the fixtures of the source checkout
    (``tests/fixtures/public``, ``public-2``, ``wild``): every rule's texts are
    rendered on them too. None for an installed osdoctor."""
    fixtures = default_fixtures_dir()
    if fixtures is None:
        return []
    return [d for d in (fixtures.parent / n for n in ("public", "public-2", "wild")) if d.is_dir()]


def explain_fixtures(kb: KnowledgeBase, folder: Path) -> list[FixtureResult]:
    results = []
    for expected_path in sorted(folder.glob("*.expected.yaml")):
        name = expected_path.name.removesuffix(".expected.yaml")
        log = folder / f"{name}.log"
        try:
            expected = load_yaml(expected_path) or {}
        except YamlError as exc:
            results.append(
                FixtureResult(name, {}, Report(trace=_empty(), outcome="unknown"), [str(exc)])
            )
            continue
        if not log.is_file():
            results.append(
                FixtureResult(
                    name,
                    dict(expected),
                    Report(trace=_empty(), outcome="unknown"),
                    [f"{log.name} is missing"],
                )
            )
            continue
        report = diagnose(fixture_trace(log), kb)
        results.append(FixtureResult(name, dict(expected), report, compare(dict(expected), report)))
    return results


def fixture_trace(log: Path) -> Trace:
    """A fixture log's trace with its services' logs (see ``intake.parse_fixture``)."""
    return parse_fixture(log)


def _empty() -> Any:
    from osdoctor.model import Trace

    return Trace()


def compare(expected: dict[str, Any], report: Report) -> list[str]:
    """Differences between a fixture's expectations and its report, in words."""
    problems = []
    got_scenario = report.scenario.id if report.scenario else None
    got_branch = report.scenario.branch if report.scenario else None
    if expected.get("scenario", got_scenario) != got_scenario:
        problems.append(f"scenario: expected {expected.get('scenario')}, got {got_scenario}")
    if expected.get("branch", got_branch) != got_branch:
        problems.append(f"branch: expected {expected.get('branch')}, got {got_branch}")
    if "outcome" in expected and expected["outcome"] != report.outcome:
        problems.append(f"outcome: expected {expected['outcome']}, got {report.outcome}")
    # A fallback a finding of higher priority replaced still fired: a fixture whose
    # service logs name the cause leads with that, and keeps the client's class.
    got_ids = {f.id for f in report.findings + report.outranked}
    for fid in expected.get("findings", []) or []:
        if fid not in got_ids:
            problems.append(f"finding {fid} expected but did not fire")
    if expected.get("outcome") == "success":
        for f in report.findings:
            if f.severity == "error":
                problems.append(f"a healthy run has an error finding: {f.id}")
    return problems


def template_issues(kb: KnowledgeBase) -> list[Issue]:
    """Every placeholder of every text, checked against what its conditions capture."""
    issues = []
    for rule in kb.rules.values():
        known = captures(rule.when)
        known.sure |= set(rule.defaults)
        known.maybe -= known.sure
        if rule.target is not None and rule.target not in known.sure:
            issues.append(
                Issue(
                    rule.path,
                    rule.line,
                    f"rule {rule.id}: target {rule.target!r} "
                    "is not captured whenever the rule holds",
                )
            )
        for what, template in [
            ("title", rule.title),
            ("explanation", rule.explanation),
            *(("next step", s) for s in rule.next_steps),
        ]:
            for problem in template_problems(template, known):
                issues.append(Issue(rule.path, rule.line, f"rule {rule.id} {what}: {problem}"))
    for scenario in kb.scenarios.values():
        for branch in scenario.branches:
            known = captures(branch.when)
            for what, template in [
                ("title", branch.title),
                ("divergence", branch.divergence or ""),
            ]:
                for problem in template_problems(template, known):
                    issues.append(
                        Issue(
                            scenario.path,
                            branch.line,
                            f"branch {scenario.id}/{branch.id} {what}: {problem}",
                        )
                    )
    return issues


def text_issues(kb: KnowledgeBase, report: Report, where: str) -> list[Issue]:
    """Every text the report's findings and branch were filled in, checked for a
    sentence with a hole (``kb.holes``) on this log: ``where`` names it."""
    issues: list[Issue] = []
    ctx = Context(report.trace, report.outcome, _facts=report.facts)
    base = base_values(ctx, report.scenario)
    for finding in [*report.findings, *report.outranked]:
        rule = kb.rules.get(finding.id)
        if rule is None:
            continue
        values = rule_values(rule, base, finding.captures)
        for what, template in [
            ("title", rule.title),
            ("explanation", rule.explanation),
            *(("next step", s) for s in rule.next_steps),
        ]:
            filled = render(reflow(template) if what == "explanation" else template, values)
            for problem in holes(filled, values, prose=what == "explanation"):
                issues.append(
                    Issue(rule.path, rule.line, f"rule {rule.id} {what} on {where}: {problem}")
                )
    match = report.scenario
    scenario = kb.scenarios.get(match.id) if match is not None else None
    branch = scenario.branch(match.branch) if scenario and match and match.branch else None
    if scenario is not None and branch is not None:
        m = match_all(branch.when, ctx)
        values = branch_values(m.captures if m else {}, ctx)
        for what, template in [("title", branch.title), ("divergence", branch.divergence or "")]:
            for problem in holes(render(template, values), values):
                issues.append(
                    Issue(
                        scenario.path,
                        branch.line,
                        f"branch {scenario.id}/{branch.id} {what} on {where}: {problem}",
                    )
                )
    return issues


def _log_reports(kb: KnowledgeBase, folder: Path) -> list[tuple[str, Report]]:
    """The report of every run of every log in ``folder``, named for an issue."""
    out: list[tuple[str, Report]] = []
    for log in sorted(folder.glob("*.log")):
        runs: list[Report] = []
        read_runs_of_path(log, lambda t: diagnose(t, kb), on_run=_collect(runs))
        for index, report in enumerate(runs):
            name = f"{folder.name}/{log.name}" + (f" (run {index + 1})" if len(runs) > 1 else "")
            out.append((name, report))
    return out


def _collect(reports: list[Report]) -> Callable[[RunSummary, Report], None]:
    return lambda _summary, report: reports.append(report)


def lint(
    kb: KnowledgeBase,
    fixtures: Path | None,
    logs: list[Path] | None = None,
    seeds: Path | None = None,
) -> LintResult:
    """The knowledge's problems: schema, placeholders, coverage on the fixtures, and
    every text as it reads on the fixtures and on ``logs`` (folders of real logs
    with no expectations); with ``seeds`` (the seed documents, which only
    their holders have), every scenario diagram that no longer says what its seed
    section says."""
    result = LintResult(issues=list(kb.issues) + template_issues(kb))
    for folder in logs or []:
        for name, report in _log_reports(kb, folder):
            result.issues.extend(text_issues(kb, report, name))
    everyone: list[Rule | RemovedRule] = [*kb.rules.values(), *kb.removed.values()]
    for rule in everyone:
        result.issues.extend(completeness_issues(rule))
    if seeds is not None:
        result.seeds_checked = True
        result.issues.extend(seed_issues(kb, seeds))
    if fixtures is None or not fixtures.is_dir():
        return result
    result.coverage_checked = True
    result.fixtures = explain_fixtures(kb, fixtures)
    by_name = {fx.name: fx for fx in result.fixtures}
    for fx in result.fixtures:
        for p in fx.problems:
            result.issues.append(Issue(f"{fixtures}/{fx.name}.expected.yaml", 0, p))
        result.issues.extend(text_issues(kb, fx.report, f"{fx.name}.log"))
    taken = {
        (fx.report.scenario.id, fx.report.scenario.branch)
        for fx in result.fixtures
        if fx.report.scenario
    }
    for scenario in kb.scenarios.values():
        for branch in scenario.branches:
            if (scenario.id, branch.id) not in taken:
                result.uncovered_branches.append(f"{scenario.id}/{branch.id}")
                result.issues.append(
                    Issue(
                        scenario.path,
                        branch.line,
                        f"branch {scenario.id}/{branch.id} is taken by no fixture",
                        "error" if scenario.origin == "built-in" else "warning",
                    )
                )
    # A fallback proves itself where its conditions held, even when a finding of
    # higher priority replaced it in the report.
    fired = {f.id for fx in result.fixtures for f in fx.report.findings + fx.report.outranked}
    for rule in kb.rules.values():
        if rule.id not in fired:
            result.silent_rules.append(rule.id)
            result.issues.append(
                Issue(
                    rule.path,
                    rule.line,
                    f"rule {rule.id} fires on no fixture",
                    "error" if rule.origin == "built-in" else "warning",
                )
            )
        for name in rule.fires:
            example = by_name.get(name)
            if example is None:
                result.issues.append(
                    Issue(
                        rule.path,
                        rule.line,
                        f"rule {rule.id}: example fixture '{name}' not found",
                        field="examples.fires",
                    )
                )
            elif rule.id not in {f.id for f in example.report.findings + example.report.outranked}:
                result.issues.append(
                    Issue(
                        rule.path,
                        rule.line,
                        f"rule {rule.id} should fire on {name} but does not",
                        field="examples.fires",
                    )
                )
        for name in rule.silent:
            example = by_name.get(name)
            if example is None:
                result.issues.append(
                    Issue(
                        rule.path,
                        rule.line,
                        f"rule {rule.id}: example fixture '{name}' not found",
                        field="examples.silent",
                    )
                )
            elif rule.id in {f.id for f in example.report.findings}:
                result.issues.append(
                    Issue(
                        rule.path,
                        rule.line,
                        f"rule {rule.id} should stay silent on {name}",
                        field="examples.silent",
                    )
                )
    return result
