"""What the runbook and the lookup read from the knowledge base, in a stable order.

Both front ends list the same things the same way: scenarios by id, branches
in the file's order, rules by id, and every symptom a user may paste.
"""

from __future__ import annotations

from dataclasses import dataclass

from osdoctor.diagnose import reflow
from osdoctor.kb.loader import KnowledgeBase
from osdoctor.kb.schema import Branch, Rule, Scenario
from osdoctor.kb.text_placeholders import shown


@dataclass(frozen=True, slots=True)
class Symptom:
    """A text a user sees, and the rule or scenario branch that explains it."""

    text: str
    rule: str | None = None
    """The rule's id, when the symptom is one of a rule's ``symptoms``."""
    scenario: str | None = None
    branch: str | None = None
    """Scenario and branch ids, when the symptom is a branch's title."""

    @property
    def target(self) -> str:
        return self.rule if self.rule is not None else f"{self.scenario}/{self.branch}"


def prose(template: str) -> str:
    """An explanation for reading: placeholders shown, line wraps joined."""
    return reflow(shown(template))


def scenarios(kb: KnowledgeBase) -> list[Scenario]:
    return sorted(kb.scenarios.values(), key=lambda s: s.id)


def rules(kb: KnowledgeBase) -> list[Rule]:
    return sorted(kb.rules.values(), key=lambda r: r.id)


def rules_for_branch(kb: KnowledgeBase, scenario: Scenario, branch: Branch) -> list[Rule]:
    """The rules that can fire when this branch is taken: tied to it, or to the
    whole scenario."""
    return [
        r
        for r in rules(kb)
        if r.scenario == scenario.id and (not r.branches or branch.id in r.branches)
    ]


def unbound_rules(kb: KnowledgeBase) -> list[Rule]:
    """Rules that apply whatever the scenario (generic diagnostics)."""
    return [r for r in rules(kb) if r.scenario is None]


def rule_clients(kb: KnowledgeBase, rule: Rule) -> list[str]:
    scenario = kb.scenarios.get(rule.scenario or "")
    return list(scenario.clients) if scenario else []


def symptoms(kb: KnowledgeBase) -> list[Symptom]:
    """Every rule symptom and every branch title, rules first, each in a stable order."""
    out: list[Symptom] = []
    for rule in rules(kb):
        for text in rule.symptoms:
            if text.strip():
                out.append(Symptom(text.strip(), rule=rule.id))
    for scenario in scenarios(kb):
        for branch in scenario.branches:
            if branch.title.strip():
                out.append(Symptom(branch.title.strip(), scenario=scenario.id, branch=branch.id))
    return out
