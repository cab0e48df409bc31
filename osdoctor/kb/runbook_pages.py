"""Where each page of the runbook lives, for the runbook itself and for reports:
a finding points at its rule's page, which a user has (``osdoctor runbook``
writes it), rather than at a seed document, which they do not."""

from __future__ import annotations


def scenario_page(scenario_id: str) -> str:
    return f"scenarios/{scenario_id}.md"


def rule_page(rule_id: str) -> str:
    return f"rules/{rule_id}.md"


def branch_anchor(scenario_id: str, branch_id: str) -> str:
    """The branch's section of its scenario page (the anchor the page writes)."""
    return f"{scenario_page(scenario_id)}#{branch_id}"
