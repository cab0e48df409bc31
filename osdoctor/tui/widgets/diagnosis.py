"""The diagnosis: the headline finding pinned on top with its next steps, then
why, the scenario and branch, and the other findings grouped by severity, each
with its own next steps (notes folded away)."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.markup import escape
from textual.widgets import Collapsible, OptionList, Static
from textual.widgets.option_list import Option

from osdoctor.model import Finding, Report, Severity
from osdoctor.render.common import headline_finding, scenario_runbook, summary_line
from osdoctor.tui.palette import warn
from osdoctor.tui.steps import step_command

SEVERITY_STYLE: dict[Severity, str] = {
    "error": "bold white on red",
    "warning": "bold black on yellow",
    "info": "bold white on blue",
}
OUTCOME_STYLE = {
    "failure": "bold white on red",
    "cancelled": "bold white on red",
    "success": "bold black on green",
    "unknown": "bold black on yellow",
    "running": "bold black on cyan",
}
#: The headings of the other findings, by severity, in the order they come.
GROUPS: dict[Severity, str] = {"error": "Also failing", "warning": "Warnings", "info": "Notes"}
RUNNING_STEP = "x cancels the client (what it asked the cloud to do keeps running)"
SUCCESS_STEP = "Nothing to do: the command did what it was asked."
CANCELLED_STEP = (
    "Check the state of what the command asked for (show or list it) "
    "before running it again: the cloud may still be doing it."
)


def is_running(report: Report, final: bool) -> bool:
    """While the command runs, a branch that looks healthy so far is not a
    success: only the exit code says that."""
    return not final and report.trace.exit_code is None


def cancelled(report: Report) -> bool:
    return any(m.kind == "cancelled" for m in report.trace.messages[-3:])


def headline(report: Report, final: bool) -> tuple[str, Finding | None]:
    """The sentence to lead with, and the finding it comes from (if any)."""
    first = headline_finding(report)
    if first is not None:
        return first.title, first
    if is_running(report, final):
        return "Nothing has failed so far.", None
    if cancelled(report):
        return "Cancelled before the command ended: nothing failed before that.", None
    return summary_line(report), None


def first_step(report: Report, final: bool) -> str:
    """The one thing to type next, for the line that stays in view."""
    _title, first = headline(report, final)
    if first is not None:
        return first.next_steps[0] if first.next_steps else "No next step is documented for it."
    if is_running(report, final):
        return RUNNING_STEP
    if cancelled(report):
        return CANCELLED_STEP
    if report.outcome == "success":
        return SUCCESS_STEP
    if report.outcome == "unknown":
        return "Read the log pane (4) from the end: the log does not say how the command ended."
    return "Read the log pane (4) from the end: no rule explains this failure yet."


def verdict(report: Report, final: bool, scenario: bool = True) -> Text:
    """The line at the top of the screen: outcome, the cause (wrapped, never cut),
    and scenario › branch when there is room for it."""
    text = Text()
    running = is_running(report, final)
    outcome = "running" if running else "cancelled" if cancelled(report) else report.outcome
    text.append(f" {outcome.upper()} ", OUTCOME_STYLE.get(outcome, "bold"))
    title, _first = headline(report, final)
    text.append(f" {title}", "bold")
    match = report.scenario
    if match is not None and scenario:
        text.append(f"   {match.id}", "dim")
        text.append(f" › {match.branch or '(no branch yet)'}", "cyan")
        if running:
            text.append(" so far", "dim")
    return text


#: What leads the line of the next step.
NEXT_LABEL = " next ▸ "


def next_line(report: Report | None, final: bool) -> Table:
    """The headline's first next step, under the verdict: wrapped under its
    label, never cut, since a command cut short is another command (``-c
    stack_name`` without its ``-f value``); a word wider than the line is
    folded onto the next."""
    line = Table.grid(expand=True)
    line.add_column(no_wrap=True)
    line.add_column(ratio=1, overflow="fold")
    if report is None:
        line.add_row(Text(NEXT_LABEL, "bold"), Text("waiting for the first requests…", "dim"))
        return line
    step = first_step(report, final)
    _title, first = headline(report, final)
    # The command itself: the step's prose is in the diagnosis pane.
    line.add_row(Text(NEXT_LABEL, "bold"), Text(step_command(step) if first is not None else step))
    return line


PROBE_STYLE = {
    "confirmed": "bold red",
    "not-reproduced": "bold green",
    "could-not-check": "bold yellow",
}


def _badge(finding: Finding) -> Text:
    head = Text()
    head.append(f" {finding.severity.upper()} ", SEVERITY_STYLE[finding.severity])
    head.append(f" {finding.title}", "bold")
    head.append(f"  [{finding.id}]", "dim")
    return head


def _why(
    finding: Finding, probe: tuple[str, str, str] | None = None, dark: bool = True
) -> RenderableType:
    """Explanation, live check, evidence and references: what follows a title."""
    parts: list[RenderableType] = [Text(finding.explanation)]
    if probe is not None:
        name, status, detail = probe
        line = Text("Live check ", "bold")
        line.append(status.replace("-", " ").upper(), PROBE_STYLE.get(status, "bold"))
        line.append(f"  {name}: {detail}")
        parts.append(line)
    if finding.evidence:
        ev = Text("Evidence:\n", "bold")
        for item in finding.evidence:
            ev.append(f"  {item.where:<12} ", "dim")
            ev.append(item.text[:200] + "\n", warn(dark))
        ev.rstrip()
        parts.append(ev)
    if finding.runbook:
        parts.append(Text("See the runbook page " + finding.runbook, "dim italic"))
    return Group(*parts)


def describe(
    report: Report | None,
    final: bool,
    probes: dict[int, tuple[str, str, str]] | None = None,
    dark: bool = True,
) -> RenderableType:
    """What follows the pinned headline: why, then the scenario and branch."""
    if report is None:
        return Text("Waiting for the first lines…", "dim")
    parts: list[RenderableType] = []
    first = headline_finding(report)
    if first is not None:
        parts += [_why(first, (probes or {}).get(report.findings.index(first)), dark), Text("")]
    match = report.scenario
    if match is not None:
        scen = Text()
        scen.append("Scenario  ", "bold")
        scen.append(f"{match.title}  (runbook {scenario_runbook(match)})\n")
        scen.append("Branch    ", "bold")
        if match.branch is not None:
            scen.append(f"{match.branch}: {match.branch_title or ''}")
        else:
            scen.append("none fits yet" if not final else "none of the documented branches", "dim")
        if match.divergence and (final or match.branch is not None):
            # Mid-run, "no branch fits yet" is not a divergence: the run is not over.
            scen.append("\nDiverged  ", "bold red")
            scen.append(match.divergence, "red")
        parts.append(scen)
    problems = report.trace.problems
    if problems:
        parts.append(Text("\nReading problems: " + "; ".join(problems[:3]), warn(dark)))
    if not report.findings:
        parts.append(Text("\nNo findings" + ("." if final else " yet."), "dim"))
    return Group(*parts)


def _signature(report: Report | None, probes: dict[int, tuple[str, str, str]]) -> object:
    if report is None:
        return None
    return [
        (
            f.id,
            f.severity,
            f.title,
            f.explanation,
            tuple(f.next_steps),
            tuple(e.line for e in f.evidence),
            probes.get(i),
        )
        for i, f in enumerate(report.findings)
    ]


class FindingBox(Collapsible):
    """One finding below the headline: title, why, and its own next steps."""

    def __init__(
        self, finding: Finding, probe: tuple[str, str, str] | None, collapsed: bool, dark: bool
    ) -> None:
        self.finding = finding
        children: list[Static | OptionList] = [Static(_why(finding, probe, dark), classes="why")]
        if finding.next_steps:
            children.append(Static(Text("Next steps", "bold"), classes="steps-title"))
            children.append(
                OptionList(*[Option(Text(s)) for s in finding.next_steps], classes="finding-steps")
            )
        super().__init__(
            *children,
            title=escape(f"{finding.severity.upper()}  {finding.title}"),
            collapsed=collapsed,
            classes=f"finding -{finding.severity}",
        )


class DiagnosisView(Vertical):
    """What osdoctor concluded, refreshed as the run goes."""

    def compose(self) -> ComposeResult:
        with Vertical(id="headline"):
            yield Static(Text("Waiting for the first lines…", "dim"), id="headline-title")
            yield Static(
                Text("Next steps  (c copies the highlighted command)", "bold"), id="steps-title"
            )
            yield OptionList(id="steps")
        with VerticalScroll(id="diagnosis-more"):
            yield Static(describe(None, False), id="diagnosis-body")
            yield Vertical(id="others")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.probes: dict[int, tuple[str, str, str]] = {}
        """Live-check results by finding index: (probe, status, detail)."""
        self.probed: Report | None = None
        """The report those results belong to."""
        self._shown: object = None
        self._collapsed: dict[str, bool] = {}

    def show(self, report: Report | None, final: bool) -> None:
        probes = self.probes if report is not None and report is self.probed else {}
        self.query_one("#headline-title", Static).update(self._title(report, final))
        dark = self.app.current_theme.dark
        self.query_one("#diagnosis-body", Static).update(describe(report, final, probes, dark))
        first = headline_finding(report) if report is not None else None
        steps = self.query_one("#steps", OptionList)
        wanted = list(first.next_steps) if first is not None else []
        current = [str(steps.get_option_at_index(i).prompt) for i in range(steps.option_count)]
        if wanted != current:
            highlighted = steps.highlighted
            steps.clear_options()
            steps.add_options([Option(Text(s)) for s in wanted])
            if wanted:
                steps.highlighted = min(highlighted or 0, len(wanted) - 1)
        self.query_one("#headline").set_class(not wanted, "-no-steps")
        signature = (_signature(report, probes), dark)
        if signature != self._shown:
            self._shown = signature
            self._show_others(report, first, probes, dark)

    @staticmethod
    def _title(report: Report | None, final: bool) -> Text:
        if report is None:
            return Text("Waiting for the first lines…", "dim")
        title, first = headline(report, final)
        if first is not None:
            return _badge(first)
        text = Text()
        outcome = "running" if is_running(report, final) else report.outcome
        text.append(f" {outcome.upper()} ", OUTCOME_STYLE.get(outcome, "bold"))
        text.append(f" {title}", "bold")
        text.append(f"\n{first_step(report, final)}", "dim")
        return text

    def _show_others(
        self,
        report: Report | None,
        first: Finding | None,
        probes: dict[int, tuple[str, str, str]],
        dark: bool,
    ) -> None:
        others = self.query_one("#others", Vertical)
        for box in others.query(FindingBox):
            self._collapsed[box.finding.id] = box.collapsed
        others.remove_children()
        if report is None:
            return
        widgets: list[Static | FindingBox] = []
        group = None
        for index, finding in enumerate(report.findings):
            if finding is first:
                continue
            if finding.severity != group:
                group = finding.severity
                count = sum(1 for f in report.findings if f.severity == group and f is not first)
                widgets.append(
                    Static(
                        Text(f"{GROUPS.get(group, group.title())} ({count})", "bold underline"),
                        classes="group-title",
                    )
                )
            collapsed = self._collapsed.get(finding.id, finding.severity == "info")
            widgets.append(FindingBox(finding, probes.get(index), collapsed, dark))
        if widgets:
            others.mount_all(widgets)

    def selected_command(self) -> str | None:
        """The highlighted step of the focused list, else of the headline's."""
        focused = self.app.focused
        steps = (
            focused
            if isinstance(focused, OptionList) and self in focused.ancestors
            else self.query_one("#steps", OptionList)
        )
        index = steps.highlighted
        if index is None and steps.option_count:
            index = 0
        if index is None:
            return None
        return step_command(str(steps.get_option_at_index(index).prompt))
