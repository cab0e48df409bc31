"""The list of a log's runs: a log that collected several client invocations
opens here, one row per run (command, exit, headline), the failed ones
marked; enter opens the run in the incident screen's panes."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, Label, OptionList
from textual.widgets.option_list import Option

from osdoctor.render.runs import counted_notes, runs_heading
from osdoctor.runs import LogRuns, RunSummary

#: Rows listed at most: a list of tens of thousands takes seconds to build, and
#: ``osdoctor explain --format jsonl`` is the tool for that many.
MAX_ROWS = 2000
_STYLE = {"failure": "bold red", "success": "green", "unknown": "yellow"}
_MARK = {"failure": "✗", "success": "✓", "unknown": "?"}


def run_row(s: RunSummary) -> Text:
    exit_code = "-" if s.exit_code is None else str(s.exit_code)
    row = Text()
    row.append(f"{_MARK.get(s.outcome, '?')} {s.index + 1:>3}  ", _STYLE.get(s.outcome, ""))
    row.append(f"lines {s.first}-{s.last}".ljust(18))
    row.append(f"exit {exit_code:<4}")
    row.append(s.command or "(no command line)", "bold")
    if s.headline:
        row.append(f"\n        {s.headline}", _STYLE.get(s.outcome, ""))
    return row


class RunsScreen(Screen[int | None]):
    """Pick a run of the log; dismissed with its index, or None (escape)."""

    BINDINGS = [
        Binding("escape", "dismiss(None)", "Back"),
        Binding("q", "app.quit", "Quit", show=False),
    ]

    def __init__(self, runs: LogRuns) -> None:
        super().__init__()
        self.runs = runs

    def compose(self) -> ComposeResult:
        with Vertical(id="runs"):
            yield Label(runs_heading(self.runs), classes="title", id="runs-title")
            shown = self.runs.summaries[:MAX_ROWS]
            yield OptionList(*[Option(run_row(s), id=str(s.index)) for s in shown], id="run-list")
            for note in counted_notes(self.runs, ""):
                yield Label(note, classes="hint")
            if self.runs.runs > len(shown):
                yield Label(
                    f"{self.runs.runs - len(shown):,} more runs are not listed: "
                    "osdoctor explain --format jsonl gives them all",
                    classes="hint",
                )
            yield Label("enter opens a run · escape goes back", classes="hint")
        yield Footer()

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        shown = self.runs.summaries[:MAX_ROWS]
        failed = [i for i, s in enumerate(shown) if s.outcome == "failure"]
        options.highlighted = failed[0] if failed else 0
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.runs.summaries[event.option_index].index)
