"""Modal dialogs: confirming a command that changes the cloud, reopening a session."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, OptionList
from textual.widgets.option_list import Option

from osdoctor.run.cmdline import command_text
from osdoctor.run.sessionfile import SUFFIX, SessionFormatError, read_session_header


class _YesNo(ModalScreen[bool]):
    """A question with a safe default: "no" has the focus, escape and n answer no."""

    def buttons(self, yes: str, no: str, variant: str) -> ComposeResult:
        with Horizontal(classes="buttons"):
            yield Button(f"{yes} (y)", variant=variant, id="yes")  # type: ignore[arg-type]
            yield Button(f"{no} (n)", variant="primary", id="no")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)


class ConfirmRun(_YesNo):
    """Asks before running a command that changes the cloud: without a
    terminal the client will not ask itself."""

    BINDINGS = [
        Binding("escape,n", "answer(False)", "Don't run"),
        Binding("y", "answer(True)", "Run it"),
    ]

    def __init__(self, argv: list[str], word: str) -> None:
        super().__init__()
        self.argv, self.word = argv, word

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm", classes="dialog"):
            yield Label(
                f"This command changes the cloud ({self.word}):", classes="title", markup=False
            )
            yield Label(command_text(self.argv), id="confirm-command", markup=False)
            yield Label("The client will not ask for confirmation without a terminal. Run it?")
            yield from self.buttons("Run it", "Don't run", "error")


class ConfirmProbe(_YesNo):
    """Shows every host a probe would contact, and what goes there, before anything
    is sent: probes are read-only, but they reach the live cloud."""

    BINDINGS = [
        Binding("escape,n", "answer(False)", "Don't probe"),
        Binding("y", "answer(True)", "Probe"),
    ]

    def __init__(self, hosts: dict[str, list[str]]) -> None:
        super().__init__()
        self.hosts = hosts

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm", classes="dialog"):
            yield Label("Check the findings against the live cloud (read-only)?", classes="title")
            for host, what in self.hosts.items():
                yield Label(f"{host}:", markup=False)
                for item in what:
                    yield Label(f"    {item}", markup=False)
            yield from self.buttons("Probe", "Don't", "warning")


@dataclass(frozen=True)
class SessionEntry:
    path: Path
    command: str
    when: str


def recent_sessions(folder: Path, limit: int = 50) -> list[SessionEntry]:
    """Saved runs, newest first, with the command each ran (already redacted)."""
    try:
        paths = sorted(folder.glob(f"*{SUFFIX}"), key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        return []
    entries: list[SessionEntry] = []
    for path in paths[:limit]:
        try:
            with path.open(encoding="utf-8", errors="replace") as handle:
                header = read_session_header(handle)
            command = command_text(header.command)
            when = f"{header.started:%Y-%m-%d %H:%M}" if header.started else ""
        except (OSError, SessionFormatError):
            command, when = "(unreadable session)", ""
        if not when:
            when = datetime.fromtimestamp(path.stat().st_mtime).strftime("%Y-%m-%d %H:%M")
        entries.append(SessionEntry(path, command, when))
    return entries


class RecentSessions(ModalScreen[Path | None]):
    """Pick a saved run to reopen."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Close")]

    def __init__(self, folder: Path) -> None:
        super().__init__()
        self.entries = recent_sessions(folder)
        self.folder = folder

    def compose(self) -> ComposeResult:
        with Vertical(id="sessions", classes="dialog"):
            yield Label(f"Recent sessions in {self.folder}", classes="title", markup=False)
            if self.entries:
                yield OptionList(
                    *[
                        Option(Text(f"{e.when}  {e.command}"), id=str(i))
                        for i, e in enumerate(self.entries)
                    ],
                    id="session-list",
                )
            else:
                yield Label("No saved runs yet: each command run here is saved.")
            yield Label("enter opens · escape closes", classes="hint")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.entries[event.option_index].path)
