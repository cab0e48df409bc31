"""The Textual application: a thin shell around the main screen, with the
command palette's entries, and the list of a log's runs when it holds
several. Everything else lives in ``screens`` and ``widgets``.

A log of several runs opens on its list at once: the incident screen, whose
layout costs more than the list's, is built only once a run is chosen, and
the runs are read in a worker of their own, which keeps going while one of
them is open."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path

from textual import on, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen
from textual.worker import get_current_worker

from osdoctor.console import stopped_exit
from osdoctor.run.runner import STOP_SIGNALS
from osdoctor.servicelog.attach import ServiceLogs
from osdoctor.tui import workers
from osdoctor.tui.screens.incident import MainScreen
from osdoctor.tui.screens.keys import KeysScreen
from osdoctor.tui.screens.runs_list import RunList, RunsScreen
from osdoctor.tui.worker_messages import RunsFound, RunsOpened, RunsRead

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
        service_logs: ServiceLogs | None = None,
    ) -> None:
        """``clock`` and ``cursor_blink`` are there for tests: a frozen clock and a
        steady cursor make the screen a function of its input alone."""
        super().__init__()
        self.main = MainScreen(
            command, log, follow, assume_yes, session_folder, clock, cursor_blink, service_logs
        )
        self.stopped_by: int | None = None
        """The stop signal (SIGTERM, SIGHUP) that ended the app, if one did."""
        self.handle_stop_signals = False
        """Set by the command line: a stop signal then quits the app, so that the
        run is cancelled and its session closed instead of the client orphaned."""
        self.closed = threading.Event()
        """Set by the command line once the app's event loop has returned."""
        self.clock = clock
        self.run_list: RunList | None = None
        """The runs of the log opened, when it holds several (read so far)."""

    def on_mount(self) -> None:
        main = self.main
        log = main.initial_log
        if log is not None and not main.follow and workers.runs_ahead(log):
            main.initial_log = None  # built once a run is chosen
            self.list_runs(log)
        else:
            self.push_screen(main)
        if self.handle_stop_signals:
            loop = asyncio.get_running_loop()
            for sig in STOP_SIGNALS:
                loop.add_signal_handler(sig, self.stop_signal, sig)
        if self.stopped_by is not None:  # it came while the app was starting
            self.exit()

    # -- the runs of a log of several ---------------------------------------
    @on(RunsOpened)
    def _runs_opened(self, message: RunsOpened) -> None:
        """The incident screen's reader found a second run further in the log."""
        self.list_runs(message.path)

    def list_runs(self, path: Path) -> None:
        """Show the list of the runs of ``path`` at once, and fill it as they are read."""
        try:
            size = path.stat().st_size
        except OSError:
            size = 0
        self.run_list = RunList(path, size)
        self._runs_worker(self.run_list)
        self.show_runs()

    @work(thread=True, exclusive=True, group="runs")
    def _runs_worker(self, runs: RunList) -> None:
        worker = get_current_worker()
        lister = workers.RunLister(
            runs.path, self.post_message, lambda: worker.is_cancelled, self.clock
        )
        lister.owner = runs
        lister.read()

    def drop_runs(self) -> None:
        """Another log or a command replaces the log of several runs: its reader
        stops, and a list not read to its end is forgotten."""
        self.workers.cancel_group(self, "runs")
        if self.run_list is not None and self.run_list.done is None:
            self.run_list = None

    @on(RunsRead)
    @on(RunsFound)
    def _runs_grew(self, message: RunsRead | RunsFound) -> None:
        runs = self.run_list
        if runs is not None and message.owner is runs:  # not the list of a log left since
            if isinstance(message, RunsRead):
                runs.grew(message)
            else:
                runs.finished(message)
            for screen in self.screen_stack:
                if isinstance(screen, RunsScreen) and screen.runs is runs:
                    screen.grew()
        if isinstance(message, RunsRead) and message.shown is not None:
            self.call_after_refresh(message.shown.set)

    def show_runs(self) -> None:
        """The list of the runs of the log; enter opens one in the incident screen."""
        found = self.run_list
        main = self.main
        if found is None:
            main.say("This log holds one run.")
            return

        def chosen(index: int | None) -> None:
            if index is not None:
                s = found.summaries[index]
                total = f"{found.runs}" if found.done is not None else f"{found.runs} so far"
                title = f"{found.path} · run {index + 1} of {total}"
                main.open_run(found.path, (s.first, s.last), title, s)
            if main not in self.screen_stack:
                self.push_screen(main)
            elif index is None and main.trace is None:
                main.state = "idle"
                main.refresh_status()

        self.push_screen(RunsScreen(found), chosen)

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

    def action_toggle_help(self) -> None:
        """``?`` and F1: the keys of the screen in view, or back from them."""
        if isinstance(self.screen, KeysScreen):
            self.screen.dismiss()
        else:
            self.push_screen(KeysScreen(self.screen))

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        main = self.main
        if not main.is_mounted:  # a log of several runs, none opened yet
            return
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
        for tab in ("diagnosis", "exchange", "scenario", "log", "output", "service"):
            entries.append(
                (f"Show the {tab} pane", f"Switch to the {tab} tab", partial(main.action_tab, tab))
            )
        for title, help_text, callback in entries:
            yield SystemCommand(title, help_text, callback)
