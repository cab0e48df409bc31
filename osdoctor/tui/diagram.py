"""Drawing a scenario's documented sequence (the seed's diagram) as text, with
each step marked as the run took it.

Textual-free: it returns a Rich ``Text``, so the same drawing could go into a
terminal report.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import assert_never

from rich.text import Text

from osdoctor.kb.matcher import step_label
from osdoctor.kb.schema import DiagramItem, Participant, Scenario
from osdoctor.model import ScenarioMatch, StepResult, StepState


def _mark(state: StepState) -> tuple[str, str]:
    """The mark and style of a state. A ``match`` that mypy proves exhaustive: a
    new state without a mark is a type error, not a step drawn unmarked."""
    match state:
        case StepState.OBSERVED:
            return "✓ seen", "green"
        case StepState.DIVERGED:
            return "✗ diverged", "bold red"
        case StepState.SKIPPED:
            return "· skipped", "yellow"
        case StepState.UNCHECKED:
            return "○ not logged", "dim"
        case _:
            assert_never(state)


#: The mark and style of each state.
MARK: dict[StepState, tuple[str, str]] = {state: _mark(state) for state in StepState}
#: What the pane's legend says of each mark.
LEGEND = (
    "✓ observed in the log   ✗ where the run left the documented path   "
    "· documented but not in the log   ○ a step a debug log cannot show   "
    "dim: other branches"
)
#: Width of the left column that marks each step.
GUTTER = 14
_MIN_COLUMN = 16


@dataclass
class _Row:
    chars: list[str]
    styles: list[str]
    mark: Text = field(default_factory=Text)

    def put(self, x: int, text: str, style: str = "") -> None:
        end = x + len(text)
        if end > len(self.chars):  # a label may run past the last lifeline
            self.chars.extend(" " * (end - len(self.chars)))
            self.styles.extend([self.styles[-1] if self.styles else ""] * (end - len(self.styles)))
        for i, ch in enumerate(text):
            if x + i >= 0:
                self.chars[x + i] = ch
                self.styles[x + i] = style

    def text(self) -> Text:
        out = Text(no_wrap=True)
        out.append_text(self.mark)
        out.append(" " * max(0, GUTTER - self.mark.cell_len))
        run, style = "", self.styles[0] if self.styles else ""
        for ch, st in zip(self.chars, self.styles, strict=True):
            if st != style:
                out.append(run, style)
                run, style = "", st
            run += ch
        out.append(run.rstrip(), style)
        return out


class _Drawing:
    def __init__(
        self, participants: list[Participant], steps: list[StepResult], branch: str | None
    ) -> None:
        self.centres: dict[str, int] = {}
        x = 0
        for p in participants:
            width = max(_MIN_COLUMN, len(p.label) + 4)
            self.centres[p.id] = x + width // 2
            x += width
        self.width = x
        self.participants = participants
        self.steps = list(steps)
        self.branch = branch
        self.rows: list[_Row] = []
        self.divergence: str | None = None
        self.diverge_after: StepResult | None = None

    def row(self, dim: bool) -> _Row:
        r = _Row([" "] * (self.width + 1), ["dim" if dim else ""] * (self.width + 1))
        for centre in self.centres.values():
            r.put(centre, "│", "dim")
        self.rows.append(r)
        return r

    def header(self) -> None:
        r = self.row(False)
        r.chars = [" "] * (self.width + 1)
        for p in self.participants:
            label = f" {p.label} "
            start = max(0, self.centres[p.id] - len(label) // 2)
            r.put(start, label, "bold underline" if p.actor else "bold reverse")

    def _next_step(self, item: DiagramItem) -> StepResult | None:
        if self.steps and self.steps[0].label == step_label(item):
            return self.steps.pop(0)
        return None

    def message(self, item: DiagramItem, taken: bool) -> None:
        step = self._next_step(item) if taken else None
        if step is not None and step.state is not StepState.UNCHECKED:
            style = MARK[step.state][1]
        else:
            style = "" if taken else "dim"
        a = self.centres.get(item.source, 0)
        b = self.centres.get(item.target, 0)
        left, right = min(a, b), max(a, b)
        label_row = self.row(not taken)
        arrow_row = self.row(not taken)
        line = "╌" if item.reply else "─"
        if a == b:
            label_row.put(a + 1, "─╮ " + item.text, style)
            arrow_row.put(a, "◀╯", style)
        else:
            label_row.put(left + 2, item.text, style)
            arrow_row.put(left + 1, line * (right - left - 1), style)
            arrow_row.put(b + (-1 if b > a else 1), "▶" if b > a else "◀", style)
        if step is not None:
            word, mark_style = MARK[step.state]
            label_row.mark = Text(word, mark_style)
            if step.lines:
                arrow_row.mark = Text(f"  line {step.lines[0]}", "dim")
            elif step.answered is not None:
                status, at = step.answered
                label_row.put(
                    len("".join(label_row.chars).rstrip()) + 2,
                    f"(answered {status or 'nothing'}, line {at})",
                    "dim",
                )
            if step.note:
                self.note_row(step.note)
        if step is not None and step is self.diverge_after:
            self.note_row(self.divergence or "")

    def note_row(self, note: str) -> None:
        r = _Row([], [])
        r.mark = Text(f"✗ diverged: {note}", "bold red")
        self.rows.append(r)

    def note(self, item: DiagramItem, taken: bool) -> None:
        over = [self.centres[p] for p in item.over if p in self.centres] or [0]
        r = self.row(not taken)
        r.put(min(over), f"[{item.text}]", "italic" if taken else "dim italic")

    def block(self, item: DiagramItem, taken: bool) -> None:
        for i, block in enumerate(item.blocks):
            inside = taken and (
                item.kind == "loop" or not block.branches or self.branch in block.branches
            )
            r = self.row(not inside)
            word = item.kind if i == 0 else "else"
            r.put(0, f"┄┄ {word} [{block.label}] ", "bold magenta" if inside else "dim")
            self.items(block.items, inside)
        r = self.row(not taken)
        r.put(0, f"┄┄ end {item.kind}", "magenta" if taken else "dim")

    def items(self, items: list[DiagramItem], taken: bool) -> None:
        for item in items:
            if item.kind == "message":
                self.message(item, taken)
            elif item.kind == "note":
                self.note(item, taken)
            else:
                self.block(item, taken)


def draw(scenario: Scenario, match: ScenarioMatch) -> Text:
    """The documented sequence of ``scenario`` with the run's steps marked."""
    drawing = _Drawing(scenario.participants, match.steps, match.branch)
    if match.divergence and not any(s.state is StepState.DIVERGED for s in match.steps):
        # no documented step failed to appear: the run left the path after the last one seen
        seen = [s for s in match.steps if s.state is StepState.OBSERVED]
        drawing.divergence = match.divergence
        drawing.diverge_after = seen[-1] if seen else None
    drawing.header()
    drawing.items(scenario.diagram, True)
    out = Text(no_wrap=True, overflow="ignore")
    if drawing.divergence and drawing.diverge_after is None:
        drawing.note_row(drawing.divergence)
    for i, r in enumerate(drawing.rows):
        if i:
            out.append("\n")
        out.append_text(r.text())
    return out
