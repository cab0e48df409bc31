"""The scenario pane: the documented sequence, each step marked as the run went."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import ScrollableContainer
from textual.widgets import Static

from osdoctor.kb.loader import KnowledgeBase
from osdoctor.model import Report
from osdoctor.render.common import scenario_runbook
from osdoctor.tui.diagram import LEGEND, MARK, draw


def describe(report: Report | None, kb: KnowledgeBase | None) -> RenderableType:
    if report is None or report.scenario is None:
        lines = Text("No documented scenario recognised", "dim")
        if report is not None and report.candidates:
            lines.append("\n\nConsidered:\n", "bold")
            for c in report.candidates[:6]:
                lines.append(f"  {c.scenario} › {c.branch or '—'}  ", "")
                lines.append("; ".join(c.reasons[:2]) + "\n", "dim")
        return lines
    match = report.scenario
    head = Text()
    head.append(f"{match.title}", "bold")
    head.append(f"   {match.id} › {match.branch or '—'}", "cyan")
    head.append(f"   (runbook {scenario_runbook(match)})\n", "dim")
    scenario = kb.scenarios.get(match.id) if kb is not None else None
    if scenario is None:
        steps = Text()
        for step in match.steps:
            word, style = MARK[step.state]
            steps.append(f"  {word:<12}", style)
            steps.append(f" {step.label}\n")
        return Group(head, steps)
    legend = Text("\n" + LEGEND, "dim")
    return Group(head, draw(scenario, match), legend)


class ScenarioView(ScrollableContainer):
    """Scrolls both ways: diagrams are wider than a narrow pane."""

    def compose(self) -> ComposeResult:
        yield Static(describe(None, None), id="scenario-body")

    def show(self, report: Report | None, kb: KnowledgeBase | None) -> None:
        self.query_one("#scenario-body", Static).update(describe(report, kb))
