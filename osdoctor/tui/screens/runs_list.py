"""The list of a log's runs: a log that collected several client invocations
opens here, one row per run (command, exit, headline), the failed ones
marked; enter opens the run in the incident screen's panes.

The list shows its first rows as soon as the first run is read and fills as
the reader goes on (``workers.RunLister``), a line saying how far it has got;
the user can open a run meanwhile, and ``l`` comes back to the list, still
growing. Every row's text was redacted by the core pipeline before it got here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.css.query import NoMatches
from textual.reactive import reactive
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer, Label, OptionList
from textual.widgets.option_list import Option

from osdoctor.counts import counted
from osdoctor.render.common import NO_COMMAND
from osdoctor.render.runs_report import counted_notes, runs_heading
from osdoctor.runs.log_runs import LogRuns, RunSummary
from osdoctor.tui.screens.keys import HELP_KEY
from osdoctor.tui.worker_messages import RunsFound, RunsRead

_STYLE = {"failure": "bold red", "success": "green", "unknown": "yellow"}
_MARK = {"failure": "✗", "success": "✓", "unknown": "?"}


def run_row(s: RunSummary) -> Text:
    exit_code = "-" if s.exit_code is None else str(s.exit_code)
    row = Text()
    row.append(f"{_MARK.get(s.outcome, '?')} {s.index + 1:>3}  ", _STYLE.get(s.outcome, ""))
    row.append(f"lines {s.first}-{s.last}".ljust(18))
    row.append(f"exit {exit_code:<4}")
    row.append(s.command or NO_COMMAND, "bold")
    if s.headline:
        row.append(f"\n        {s.headline}", _STYLE.get(s.outcome, ""))
    return row


def _runs(count: int) -> str:
    return counted(count, "run")


def _mb(size: int) -> str:
    if size < 1e6:
        return f"{size / 1e3:.0f} kB"
    return f"{size / 1e6:,.0f} MB" if size >= 10e6 else f"{size / 1e6:.1f} MB"


@dataclass
class RunList:
    """What is known of a log's runs, read so far or to the end: kept by the
    app, shown by every ``RunsScreen`` opened on it."""

    path: Path
    size: int
    summaries: list[RunSummary] = field(default_factory=list)
    """The runs listed, in order (the first ``workers.LISTED``)."""
    runs: int = 0
    failed: int = 0
    read: int = 0
    done: LogRuns | None = None
    """The whole result, once the log is read to its end."""
    seconds: float | None = None
    error: str | None = None
    """Why the reading stopped before the end."""
    chosen: int | None = None
    """The row of the run opened last: the list comes back (``l``) with the cursor
    on it, not on the first failed run."""

    def grew(self, message: RunsRead) -> None:
        self.summaries += message.summaries
        self.runs, self.failed, self.read = message.runs, message.failed, message.read
        self.error = message.error or self.error

    def finished(self, message: RunsFound) -> None:
        self.done, self.seconds = message.runs, message.seconds
        self.runs, self.failed, self.read = message.runs.runs, message.runs.failed, self.size

    def heading(self) -> str:
        """The log and its counts, once read; the log alone before (the counts,
        which change, are on the progress line)."""
        return runs_heading(self.done) if self.done is not None else str(self.path)

    def progress(self) -> str:
        """The line under the heading: how far the reading has got."""
        counts = f"{_runs(self.runs)}, {self.failed:,} failed"
        if self.error is not None:
            return f"reading stopped after {counts}: {self.error}"
        if self.done is None:
            line = f"reading… {counts}, {_mb(self.read)} of {_mb(self.size)}"
            if self.runs > len(self.summaries):
                line += f" · the first {len(self.summaries):,} listed"
            return line
        if self.seconds is not None and self.seconds >= 1:
            return f"read in {self.seconds:.1f}s"
        return ""

    def notes(self) -> list[str]:
        """What was counted, not listed: said once the reading has ended."""
        if self.done is None and self.error is None:
            return []
        notes = counted_notes(self.done, "") if self.done is not None else []
        if self.runs > len(self.summaries):
            notes.append(
                f"{self.runs - len(self.summaries):,} more runs are not listed: "
                "osdoctor explain --format jsonl gives them all"
            )
        return notes


class ProgressLine(Widget):
    """One line that changes often: drawn again, never laid out again."""

    DEFAULT_CSS = "ProgressLine { height: 1; width: 100%; }"
    text: reactive[str] = reactive("", layout=False)

    def render(self) -> Text:
        return Text(self.text, no_wrap=True, overflow="ellipsis")


class RunsHost(Protocol):
    """What keeps a log's run list (the app): the incident screen asks it."""

    run_list: RunList | None
    """The runs of the log opened, when it holds several."""

    def show_runs(self) -> None:
        """Show the list (``l``)."""

    def drop_runs(self) -> None:
        """Forget the list: another log or a command replaces it."""


class RunsScreen(Screen[int | None]):
    """Pick a run of the log; dismissed with its index, or None (escape).

    The first failed run is highlighted as soon as it is listed, unless the
    user has moved the cursor by then."""

    BINDINGS = [
        HELP_KEY,
        Binding("escape", "dismiss(None)", "Back"),
        Binding("q", "app.quit", "Quit", show=False),
    ]

    def __init__(self, runs: RunList) -> None:
        super().__init__()
        self.runs = runs
        self.placed: int | None = None
        """Where the screen put the cursor itself, if it has."""
        self.touched = False
        """Whether the user has moved the cursor: the screen leaves it alone then."""
        self.shown_notes: list[str] = []
        self.shown_heading = ""

    def compose(self) -> ComposeResult:
        with Vertical(id="runs"):
            self.shown_heading = self.runs.heading()
            yield Label(self.shown_heading, classes="title", id="runs-title")
            yield ProgressLine(id="runs-progress")
            yield OptionList(*self._options(0), id="run-list")
            yield Vertical(id="runs-notes")
            yield Label("enter opens a run · escape goes back", classes="hint")
        yield Footer()

    def _options(self, start: int) -> list[Option]:
        return [Option(run_row(s), id=str(s.index)) for s in self.runs.summaries[start:]]

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()
        self.grew()

    def grew(self) -> None:
        """Show what was read since: the new rows, the counts, the notes."""
        try:
            options = self.query_one(OptionList)
            title = self.query_one("#runs-title", Label)
            line = self.query_one(ProgressLine)
        except NoMatches:  # the screen is being closed (the app quits)
            return
        if options.option_count < len(self.runs.summaries):
            options.add_options(self._options(options.option_count))
        heading = self.runs.heading()
        if heading != self.shown_heading:  # once read: a layout, once
            self.shown_heading = heading
            title.update(heading)
        progress = self.runs.progress()
        line.text = progress
        line.display = bool(progress)
        self._notes()
        self._place_cursor()

    def _notes(self) -> None:
        notes = self.runs.notes()
        if notes != self.shown_notes:
            self.shown_notes = notes
            box = self.query_one("#runs-notes", Vertical)
            box.remove_children()
            box.mount_all([Label(note, classes="hint") for note in notes])

    def _place_cursor(self) -> None:
        """On the run opened last, else on the first failed run once listed, else on
        the first run."""
        options = self.query_one(OptionList)
        if self.touched or not options.option_count:
            return
        chosen = self.runs.chosen
        if chosen is not None and chosen < options.option_count:
            options.highlighted = self.placed = chosen
            self.touched = True  # the user's own choice: left where it is
            return
        if self.placed is not None and options.highlighted != self.placed:
            self.touched = True
            return
        summaries = self.runs.summaries
        if self.placed is not None and summaries[self.placed].outcome == "failure":
            return
        failed = next((i for i, s in enumerate(summaries) if s.outcome == "failure"), 0)
        if failed != self.placed:
            options.highlighted = self.placed = failed

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.runs.chosen = event.option_index
        self.dismiss(self.runs.summaries[event.option_index].index)
