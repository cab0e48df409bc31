"""The diagnosis: scenario and branch, findings by severity, next steps to copy."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from osdoctor.model import Finding, Report
from osdoctor.render.common import scenario_runbook, summary_line
from osdoctor.tui.steps import step_command

SEVERITY_STYLE = {"error": "bold white on red", "warning": "bold black on yellow",
                  "info": "bold white on blue"}
OUTCOME_STYLE = {"failure": "bold red", "success": "bold green", "unknown": "bold yellow",
                 "running": "bold cyan"}


def verdict(report: Report, final: bool) -> Text:
    """One line for the top of the screen: outcome, scenario › branch, first finding."""
    text = Text(no_wrap=True, overflow="ellipsis")
    # While the command runs, a branch that looks healthy so far is not a success:
    # only the exit code says that.
    running = not final and report.trace.exit_code is None
    outcome = "running" if running else report.outcome
    text.append(f" {outcome.upper()} ", OUTCOME_STYLE.get(outcome, "bold"))
    match = report.scenario
    if match is not None:
        text.append(f"  {match.id}", "bold")
        text.append(f" › {match.branch or '(no branch yet)'}", "bold cyan")
        if running:
            text.append(" so far", "dim")
    else:
        text.append("  no documented scenario recognised yet", "dim")
    if running and not any(f.severity == "error" for f in report.findings):
        text.append("  —  still running: nothing has failed so far", "dim")
    else:
        text.append("  —  " + summary_line(report))
    return text


PROBE_STYLE = {"confirmed": "bold red", "not-reproduced": "bold green",
               "could-not-check": "bold yellow"}


def _finding(finding: Finding, probe: tuple[str, str, str] | None = None) -> RenderableType:
    head = Text()
    head.append(f" {finding.severity.upper()} ", SEVERITY_STYLE.get(finding.severity, "bold"))
    head.append(f" {finding.title}", "bold")
    head.append(f"  [{finding.id}]", "dim")
    parts: list[RenderableType] = [head, Text(finding.explanation)]
    if probe is not None:
        name, status, detail = probe
        line = Text("Live check ", "bold")
        line.append(status.replace("-", " ").upper(), PROBE_STYLE.get(status, "bold"))
        line.append(f"  {name}: {detail}")
        parts.append(line)
    if finding.evidence:
        ev = Text("Evidence:\n", "bold")
        for item in finding.evidence:
            ev.append(f"  line {item.line:<7} ", "dim")
            ev.append(item.text[:200] + "\n", "yellow")
        parts.append(ev)
    if finding.runbook:
        parts.append(Text("See the runbook page " + finding.runbook, "dim italic"))
    parts.append(Text(""))
    return Group(*parts)


def describe(report: Report | None, final: bool,
             probes: dict[int, tuple[str, str, str]] | None = None) -> RenderableType:
    if report is None:
        return Text("Waiting for the first lines…", "dim")
    parts: list[RenderableType] = [verdict(report, final)]
    match = report.scenario
    if match is not None:
        scen = Text()
        scen.append("\nScenario  ", "bold")
        scen.append(f"{match.title}  (runbook {scenario_runbook(match)})\n")
        scen.append("Branch    ", "bold")
        scen.append(f"{match.branch or '—'}: {match.branch_title or ''}\n")
        if match.divergence and (final or match.branch is not None):
            # Mid-run, "no branch fits yet" is not a divergence: the run is not over.
            scen.append("Diverged  ", "bold red")
            scen.append(match.divergence + "\n", "red")
        parts.append(scen)
    problems = report.trace.problems
    if problems:
        parts.append(Text("Reading problems: " + "; ".join(problems[:3]) + "\n", "yellow"))
    if not report.findings:
        parts.append(Text("No findings" + ("." if final else " yet."), "dim"))
    parts += [_finding(f, (probes or {}).get(i)) for i, f in enumerate(report.findings)]
    return Group(*parts)


class DiagnosisView(VerticalScroll):
    """What osdoctor concluded, refreshed as the run goes."""

    def compose(self) -> ComposeResult:
        yield Static(describe(None, False), id="diagnosis-body")
        yield Static(Text("Next steps  (c copies the highlighted command)", "bold"),
                     id="steps-title")
        yield OptionList(id="steps")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.probes: dict[int, tuple[str, str, str]] = {}
        """Live-check results by finding index: (probe, status, detail)."""
        self.probed: Report | None = None
        """The report those results belong to."""

    def show(self, report: Report | None, final: bool) -> None:
        probes = self.probes if report is not None and report is self.probed else None
        self.query_one("#diagnosis-body", Static).update(describe(report, final, probes))
        steps = self.query_one("#steps", OptionList)
        wanted = [s for f in (report.findings if report else []) for s in f.next_steps]
        current = [str(steps.get_option_at_index(i).prompt) for i in range(steps.option_count)]
        if wanted != current:
            highlighted = steps.highlighted
            steps.clear_options()
            steps.add_options([Option(s) for s in wanted])
            if wanted:
                steps.highlighted = min(highlighted or 0, len(wanted) - 1)
        self.query_one("#steps-title").display = bool(wanted)
        steps.display = bool(wanted)

    def selected_command(self) -> str | None:
        steps = self.query_one("#steps", OptionList)
        index = steps.highlighted
        if index is None and steps.option_count:
            index = 0
        if index is None:
            return None
        return step_command(str(steps.get_option_at_index(index).prompt))
