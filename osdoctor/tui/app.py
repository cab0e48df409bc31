"""The Textual application: a thin shell around the main screen, with the
command palette's entries. Everything else lives in ``screens`` and ``widgets``."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from osdoctor.console import stopped_exit
from osdoctor.runner import STOP_SIGNALS
from osdoctor.tui.screens.main import MainScreen

#: Seconds the app has to close down once a stop signal's run has ended. A
#: terminal that has gone can leave Textual's shutdown waiting forever on its
#: output thread; osdoctor then leaves without it (the run is over, the session
#: closed: nothing is lost).
EXIT_GRACE = 5.0


class OsdoctorApp(App[int]):
    CSS_PATH = "app.tcss"
    TITLE = "osdoctor"
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", priority=True),
        Binding("q", "quit", "Quit", show=False),
    ]

    def __init__(
        self,
        command: list[str] | None = None,
        log: Path | None = None,
        follow: bool = False,
        assume_yes: bool = False,
        session_folder: Path | None = None,
        clock: Callable[[], float] = time.monotonic,
        cursor_blink: bool = True,
    ) -> None:
        """``clock`` and ``cursor_blink`` are there for tests: a frozen clock and a
        steady cursor make the screen a function of its input alone."""
        super().__init__()
        self.main = MainScreen(
            command, log, follow, assume_yes, session_folder, clock, cursor_blink
        )
        self.stopped_by: int | None = None
        """The stop signal (SIGTERM, SIGHUP) that ended the app, if one did."""
        self.handle_stop_signals = False
        """Set by the command line: a stop signal then quits the app, so that the
        run is cancelled and its session closed instead of the client orphaned."""
        self.closed = threading.Event()
        """Set by the command line once the app's event loop has returned."""

    def on_mount(self) -> None:
        self.push_screen(self.main)
        if self.handle_stop_signals:
            loop = asyncio.get_running_loop()
            for sig in STOP_SIGNALS:
                loop.add_signal_handler(sig, self.stop_signal, sig)
        if self.stopped_by is not None:  # it came while the app was starting
            self.exit()

    def stop_signal(self, signum: int) -> None:
        """Quit on a stop signal; before or after the event loop, only remember it.

        The run is stopped at once, off the event loop, whatever the app's own
        shutdown does."""
        if self.stopped_by is None:
            self.stopped_by = signum
            threading.Thread(
                target=self._stop_run, args=(signum,), name="osdoctor-stop", daemon=True
            ).start()
        if self.is_running:
            self.exit()

    def _stop_run(self, signum: int) -> None:
        while True:
            try:
                self.main.stop()
            except TimeoutError:
                pass
            if self.closed.wait(EXIT_GRACE):
                return
            if self.main.run is None or self.main.run.done:
                os._exit(stopped_exit(signum))

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        main = self.main
        entries: list[tuple[str, str, Callable[[], object]]] = [
            (
                "Run a command",
                "Type an openstack/heat/baremetal/swift command to run live",
                main.action_prompt,
            ),
            (
                "Cancel the run",
                "Stop the client (the server-side action keeps running)",
                main.action_cancel,
            ),
            ("Copy the next step", "Copy the highlighted next-step command", main.action_copy_step),
            (
                "Export the report as Markdown",
                "Write a private .md file for a ticket",
                main.action_export,
            ),
            ("Recent sessions", "Reopen a saved run", main.action_sessions),
            ("Search the log", "Find text in the raw log", main.action_search),
            (
                "Next evidence line",
                "Show the next log line a finding points at",
                partial(main.action_evidence, False),
            ),
        ]
        for tab in ("diagnosis", "exchange", "scenario", "log", "output"):
            entries.append(
                (f"Show the {tab} pane", f"Switch to the {tab} tab", partial(main.action_tab, tab))
            )
        for title, help_text, callback in entries:
            yield SystemCommand(title, help_text, callback)
