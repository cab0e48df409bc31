"""The incident screen: the run state and the cause always in view at the top,
the timeline and the exchange that decided the failure, the diagnosis with
the headline finding pinned.

The layout follows the width (``HORIZONTAL_BREAKPOINTS``): below 100 columns
one column (the headline's first next step gets its own line at the top, since
the diagnosis pane may be behind another tab); from 100 on, the timeline with
the selected exchange under it on the left and the panes on the right.

The screen owns one source at a time (a running command or an opened log),
fed by a thread worker from ``tui.workers``; it only reacts to the messages
those workers post.
"""

from __future__ import annotations

import shlex
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Input, OptionList, Static, TabbedContent, TabPane
from textual.worker import get_current_worker

from osdoctor.counts import counted
from osdoctor.kb.loader import KnowledgeBase
from osdoctor.model import Report, Trace
from osdoctor.paths import PrivateStorageError, exports_dir, sessions_dir, write_private
from osdoctor.render.rows import opening_row
from osdoctor.run.cmdline import command_text, destructive_word, insert_debug
from osdoctor.run.runner import Run, RunResult
from osdoctor.runs.log_runs import RunSummary
from osdoctor.tui import workers
from osdoctor.tui.linestore import LineStore
from osdoctor.tui.screens.dialogs import ConfirmProbe, ConfirmRun, RecentSessions
from osdoctor.tui.screens.keys import HELP_KEY
from osdoctor.tui.screens.runs_list import RunsHost
from osdoctor.tui.widgets.detail import ExchangeDetail
from osdoctor.tui.widgets.diagnosis import DiagnosisView, next_line, verdict
from osdoctor.tui.widgets.linelist import LineList
from osdoctor.tui.widgets.rawlog import RawLog
from osdoctor.tui.widgets.scenario import ScenarioView
from osdoctor.tui.widgets.servicelog import ServiceLogView
from osdoctor.tui.widgets.timeline import Timeline, TimelineHead
from osdoctor.tui.worker_messages import (
    LoadFinished,
    ReportReady,
    RunFinished,
    RunStarted,
    SourceFailed,
    SourceOpened,
    TraceGrew,
)

if TYPE_CHECKING:
    from osdoctor.probe.probe_runner import ProbePlan
    from osdoctor.servicelog.attach import ServiceLogs

CANCEL_NOTE = (
    "the client was stopped, but what it asked the cloud to do keeps running "
    "server-side (a stack create, a node deploy...): check its state before retrying"
)
TABS = ("diagnosis", "exchange", "scenario", "log", "output", "service")
#: Width from which the panes stand side by side (see the module's docstring).
WIDE = 100
BUSY, BAD, GOOD = "bold black on yellow", "bold white on red", "bold black on green"


class MainScreen(Screen[None]):
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (WIDE, "-wide")]
    #: In the footer's order: the keys of what is in view first. A key shows
    #: only while it applies (``check_action``); the pane keys are on the tabs.
    BINDINGS = [
        HELP_KEY,
        Binding("ctrl+c", "cancel", "Cancel run", priority=True, show=False),
        Binding("x", "cancel", "Cancel run", tooltip="SIGINT, then SIGTERM, then SIGKILL"),
        Binding("x", "stop_following", "Stop following", tooltip="the file as it grows"),
        Binding("e", "evidence(False)", "Evidence", tooltip="the next log line a finding quotes"),
        Binding("c", "copy_step", "Copy step", tooltip="the highlighted next step"),
        Binding("l", "runs", "Runs", tooltip="the list of this log's runs"),
        Binding("slash", "search", "Search", tooltip="the raw log"),
        Binding("m", "export", "Export", tooltip="the report as Markdown, for a ticket"),
        Binding("p", "probe", "Live check", tooltip="ask the cloud if each finding holds"),
        Binding("r", "prompt", "Run command"),
        Binding("o", "sessions", "Sessions", tooltip="reopen a saved run"),
        Binding("1", "tab('diagnosis')", "Diagnosis pane", show=False),
        Binding("2", "tab('exchange')", "Exchange pane", show=False),
        Binding("3", "tab('scenario')", "Scenario pane", show=False),
        Binding("4", "tab('log')", "Log pane", show=False),
        Binding("5", "tab('output')", "Output pane", show=False),
        Binding("6", "tab('service')", "Service log pane", show=False),
        Binding("n", "search_next(False)", "Next match", show=False),
        Binding("N", "search_next(True)", "Previous match", show=False),
        Binding("E", "evidence(True)", "Previous evidence", show=False),
        Binding("escape", "close_inputs", "Close", show=False),
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
        super().__init__()
        self.initial_command, self.initial_log, self.follow = command, log, follow
        self.service_logs = service_logs
        """The services' logs given (``--service-log``): each finished report is
        joined to them, and the service pane shows the selected request's records."""
        self.cursor_blink = cursor_blink
        self.assume_yes = assume_yes
        self.session_folder = session_folder
        self.clock = clock
        self.trace: Trace | None = None
        self.lines: LineStore | None = None
        self.report: Report | None = None
        self.final = False
        self.run: Run | None = None
        self.result: RunResult | None = None
        self.title_text = ""
        self.source_path: Path | None = None
        self.started: float | None = None
        self.elapsed: float | None = None
        self.counts = (0, 0)
        self.state = "idle"
        self.note = ""
        self.follow_wake = threading.Event()
        self._ticker: Timer | None = None
        self.export_path: Path | None = None
        self.detail_stale = True
        self.load_seconds: float | None = None
        self.initial_window: tuple[int, int] | None = None
        #: The summary of the run being opened: what the runs before it taught of secrets.
        self.run_known: RunSummary | None = None
        """The lines of the one run of ``initial_log`` to open (see ``open_run``)."""
        self.run_title: str | None = None
        self._keys_shown: dict[str, bool] = {}

    # -- layout ------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Static(id="status")
        yield Static(id="verdict")
        yield Static(id="next")
        yield self._input(
            "command to run, e.g. openstack server list  (enter runs it, escape closes)", "prompt"
        )
        with Horizontal(id="body"):
            with Vertical(id="left"):
                yield TimelineHead(id="timeline-head")
                yield Timeline(id="timeline")
                yield ExchangeDetail(id="side-detail")
            with TabbedContent(id="tabs", initial="diagnosis"):
                with TabPane("1 Diagnosis", id="diagnosis"):
                    yield DiagnosisView(id="diagnosis-view")
                with TabPane("2 Exchange", id="exchange"):
                    yield ExchangeDetail(id="detail")
                with TabPane("3 Scenario", id="scenario"):
                    yield ScenarioView(id="scenario-view")
                with TabPane("4 Log", id="log"):
                    yield RawLog(id="rawlog")
                    yield self._input("search the log (enter: find, n/N: next/previous)", "search")
                with TabPane("5 Output", id="output"):
                    yield RawLog(id="stdout")
                with TabPane("6 Service log", id="service"):
                    yield ServiceLogView(id="service-view")
        yield Footer()

    def _input(self, placeholder: str, name: str) -> Input:
        field = Input(placeholder=placeholder, id=name)
        field.cursor_blink = self.cursor_blink
        return field

    @property
    def wide(self) -> bool:
        return self.has_class("-wide")

    def on_resize(self) -> None:
        """Side by side, the exchange is under the timeline: its tab goes."""
        tabs = self.query_one(TabbedContent)
        if self.wide:
            if tabs.active == "exchange":
                tabs.active = "diagnosis"
            tabs.hide_tab("exchange")
        else:
            tabs.show_tab("exchange")
        self.detail_stale = True
        self._show_detail()
        self._show_status()

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)
        self.query_one("#search").display = False
        self._show_status()
        if self.initial_command:
            self.start_command(self.initial_command)
        elif self.initial_log is not None:
            self.open_log(self.initial_log, self.follow, self.initial_window, self.run_title)
        else:
            self.action_prompt()

    def _theme_changed(self, _theme: object) -> None:
        """Some text colours follow the theme's background (see ``tui.palette``)."""
        if self.report is not None:
            self.query_one(DiagnosisView).show(self.report, self.final)
        self.detail_stale = True
        self._show_detail()
        self.query_one(Timeline).refresh()

    # -- starting sources --------------------------------------------------
    @property
    def running(self) -> bool:
        """A command is starting or running: it has no result yet."""
        started = self.run is not None and self.result is None and not self.run.done
        return started or self.state == "starting"

    def start_command(self, command: list[str]) -> None:
        """Run ``command`` after asking, when it changes the cloud."""
        if self.running:
            self.say("A command is running: cancel it first (x).", severity="warning")
            return
        word = destructive_word(command)
        if word is not None and not self.assume_yes:

            def answered(yes: bool | None) -> None:
                if yes:
                    self._launch(command)
                else:
                    self.say("Not run.")
                    if self.trace is None:
                        self.action_prompt()

            self.app.push_screen(ConfirmRun(command, word), answered)
            return
        self._launch(command)

    def _launch(self, command: list[str]) -> None:
        self._app.drop_runs()
        self._reset("starting", command_text(command))
        self.query_one("#prompt").display = False
        self.query_one("#timeline").focus()
        self._run_worker(insert_debug(command))

    @work(thread=True, exclusive=True, group="source")
    def _run_worker(self, argv: list[str]) -> None:
        worker = get_current_worker()
        workers.run_command(
            argv,
            self.post_message,
            lambda: worker.is_cancelled,
            self.session_folder,
            self.service_logs,
        )

    def open_log(
        self,
        path: Path,
        follow: bool = False,
        window: tuple[int, int] | None = None,
        title: str | None = None,
    ) -> None:
        """Open a log; ``window``: the first and last lines of one run of it."""
        if self.running:
            self.say("A command is running: cancel it first (x).", severity="warning")
            return
        if window is None:
            self._app.drop_runs()
        self.run_title = title
        self._reset("reading", title or str(path))
        self.follow = follow
        self.query_one("#prompt").display = False
        self.query_one("#timeline").focus()
        self._load_worker(path, follow, window)

    @work(thread=True, exclusive=True, group="source")
    def _load_worker(self, path: Path, follow: bool, window: tuple[int, int] | None) -> None:
        worker = get_current_worker()
        self.follow_wake = threading.Event()
        wake = self.follow_wake
        known = self.run_known if window is not None else None
        workers.load_log(
            path,
            self.post_message,
            lambda: worker.is_cancelled,
            follow,
            wake,
            self.clock,
            window,
            known,
            self.service_logs,
        )

    def open_run(
        self, path: Path, window: tuple[int, int], title: str, known: RunSummary | None = None
    ) -> None:
        """Open one run of a log of several (the run list's choice); before the
        screen is mounted, it opens the run once it is. ``known``, the run's
        summary, brings the secrets the runs before it taught."""
        self.run_known = known
        if self.is_mounted:
            self.open_log(path, window=window, title=title)
        else:
            self.initial_log, self.initial_window, self.run_title = path, window, title

    def action_runs(self) -> None:
        """The list of the runs of the log (a log of several runs opens on it)."""
        self._app.show_runs()

    @property
    def _app(self) -> RunsHost:
        return cast(RunsHost, self.app)

    def _reset(self, state: str, title: str) -> None:
        self.trace = self.lines = self.report = None
        self.run = self.result = None
        self.final, self.state, self.title_text, self.note = False, state, title, ""
        self.started = self.elapsed = None
        self.counts = (0, 0)
        self.export_path = None
        self._show_status()

    # -- worker messages -----------------------------------------------------
    @on(SourceOpened)
    def _opened(self, message: SourceOpened) -> None:
        self.trace, self.lines = message.trace, message.lines
        self.title_text, self.source_path = self.run_title or message.title, message.path
        self.query_one("#prompt").display = False
        live = self.state == "starting" or self.follow
        self.query_one(Timeline).show(message.trace, live)
        self.query_one("#rawlog", RawLog).show(message.lines, live=live)
        self.query_one("#stdout", RawLog).show(message.lines, numbers=[], live=live)
        self._show_status()

    @on(RunStarted)
    def _run_started(self, message: RunStarted) -> None:
        self.run, self.state = message.run, "running"
        self.started = self.clock()
        self._ticker = self.set_interval(0.5, self._show_status)
        self._show_status()

    @on(TraceGrew)
    def _grew(self, message: TraceGrew) -> None:
        self.counts = (message.lines, message.exchanges)
        if message.elapsed is not None:
            self.elapsed = message.elapsed
        timeline = self.query_one(Timeline)
        had_rows = timeline.row_count
        timeline.sync()
        self.query_one("#rawlog", RawLog).sync()
        if not had_rows and timeline.row_count:
            self._show_detail()
        self._show_status()

    @on(ReportReady)
    def _report(self, message: ReportReady) -> None:
        self.report, self.final = message.report, message.final
        self.query_one(DiagnosisView).show(message.report, message.final)
        self.query_one(ScenarioView).show(message.report, self._kb())
        log = self.query_one("#rawlog", RawLog)
        log.evidence = {e.line for f in message.report.findings for e in f.evidence if e.in_log}
        log.refresh()
        self.query_one("#stdout", RawLog).sync(message.stdout)
        timeline = self.query_one(Timeline)
        timeline.sync()
        if message.final:
            self._open_on_decisive(message.decisive)
        self._show_detail()
        self._show_service()
        self._show_status()

    def _open_on_decisive(self, decisive: int | None) -> None:
        """Put the cursor on the exchange that decided the failure (else on the
        last, where a run ends), unless the user has already moved it."""
        timeline = self.query_one(Timeline)
        if timeline.touched:
            return
        timeline.move_to(opening_row(timeline.builder, decisive), center=decisive is not None)

    @on(RunFinished)
    def _run_finished(self, message: RunFinished) -> None:
        if self._ticker is not None:
            self._ticker.stop()
        self.result = message.result
        self.query_one(Timeline).live = False
        if message.result is None:
            self.state, self.note = "failed", message.error or "the command did not start"
        else:
            self.elapsed = message.result.duration
            self.state = "cancelled" if message.result.cancelled else "finished"
            if message.result.cancelled:
                self.note = CANCEL_NOTE
                self.say("Cancelled: " + CANCEL_NOTE, severity="warning", timeout=10)
            elif message.result.notes:
                self.note = "; ".join(message.result.notes)
        self._show_status()

    @on(LoadFinished)
    def _loaded(self, message: LoadFinished) -> None:
        self.state = "read"
        self.load_seconds = message.seconds
        self.note = f"read in {message.seconds:.1f}s" if message.seconds >= 1 else ""
        self.query_one(Timeline).live = False
        self._show_status()

    @on(SourceFailed)
    def _failed(self, message: SourceFailed) -> None:
        self.state, self.note = "failed", message.error
        self.say(message.error, severity="error", timeout=10)
        self._show_status()

    @on(Timeline.ColumnsChanged)
    def _columns_changed(self) -> None:
        self.query_one(TimelineHead).refresh()

    @on(LineList.CursorMoved, "#timeline")
    def _cursor(self) -> None:
        self._show_detail()
        self._show_service()

    @on(LineList.Chosen, "#timeline")
    def _chosen(self) -> None:
        self.action_tab("exchange")

    @on(Input.Submitted, "#prompt")
    def _prompt_submitted(self, event: Input.Submitted) -> None:
        try:
            command = shlex.split(event.value)
        except ValueError as error:
            self.say(f"cannot read that command: {error}", severity="error")
            return
        if command:
            self.start_command(command)

    @on(Input.Submitted, "#search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        log = self.query_one("#rawlog", RawLog)
        if not log.find(event.value):
            self.say(f"not found: {event.value}", severity="warning")
        log.focus()

    @on(OptionList.OptionSelected, "#steps, .finding-steps")
    def _step_chosen(self) -> None:
        self.action_copy_step()

    def say(
        self, message: str, severity: SeverityLevel = "information", timeout: float | None = None
    ) -> None:
        """A toast that replaces the one before: stacked toasts hide each other."""
        self.app.clear_notifications()
        self.notify(message, severity=severity, timeout=timeout, markup=False)

    # -- showing -------------------------------------------------------------
    def _kb(self) -> KnowledgeBase | None:
        return workers.knowledge()

    def _show_detail(self) -> None:
        """Describe the exchange under the cursor, if the pane is in view: holding
        a key down over 50,000 rows must not lay out a hidden pane each time."""
        if self.wide:
            pane = self.query_one("#side-detail", ExchangeDetail)
        elif self.query_one(TabbedContent).active == "exchange":
            pane = self.query_one("#detail", ExchangeDetail)
        else:
            self.detail_stale = True
            return
        self.detail_stale = False
        timeline = self.query_one(Timeline)
        pane.show(timeline.row(timeline.cursor), self.lines, timeline.cursor)

    @on(TabbedContent.TabActivated)
    def _tab_shown(self) -> None:
        if self.detail_stale:
            self._show_detail()
        self._show_service()

    def _show_service(self) -> None:
        """The service records of the exchange under the cursor, if the pane is in view."""
        if self.query_one(TabbedContent).active != "service":
            return
        timeline = self.query_one(Timeline)
        row = timeline.row(timeline.cursor)
        self.query_one(ServiceLogView).show(
            self.report, row.shown.index if row is not None else None, self.service_logs is not None
        )

    def _run_state(self) -> str:
        """Running (with the time), the exit code, cancelled: what a glance needs."""
        if self.state == "running" and self.started is not None:
            return f"● running {self.clock() - self.started:.1f}s"
        if self.result is not None:
            mark = "✓" if self.result.exit_code == 0 and not self.result.cancelled else "✗"
            return (
                f"{mark} {self.state}: exit {self.result.exit_code} "
                f"after {self.result.duration:.1f}s"
            )
        if self.state == "reading" and self.follow:
            return "following"
        if self.state == "read" and self.trace is not None:
            code = self.trace.exit_code
            return f"log read: exit {code}" if code is not None else "log read: no exit code"
        return self.state

    def _state_style(self) -> str:
        if self.state in ("running", "starting", "cancelling", "reading"):
            return BUSY
        if self.state in ("cancelled", "failed"):
            return BAD
        code = (
            self.result.exit_code
            if self.result is not None
            else self.trace.exit_code
            if self.trace is not None
            else None
        )
        if code is None:
            return "bold"
        return GOOD if code == 0 else BAD

    def refresh_status(self) -> None:
        self._show_status()

    def _show_status(self) -> None:
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(f" {self._run_state()} ", self._state_style())
        timeline = self.query_one(Timeline)
        polling = (
            timeline.row_state(timeline.row_count - 1)
            if self.state in ("running", "reading", "cancelling")
            else None
        )
        if polling:
            text.append(f" last read: {polling} ", "bold")
        text.append(f" {self.title_text or 'no command yet: press r to run one'} ", "bold")
        lines, exchanges = self.counts
        text.append(f"│ {counted(exchanges, 'request')} │ {counted(lines, 'line')} ", "dim")
        if self.note:
            text.append(f"│ {self.note}", "red" if self.state in ("cancelled", "failed") else "dim")
        self.query_one("#status", Static).update(text)
        banner = (
            verdict(self.report, self.final, scenario=self.wide)
            if self.report is not None
            else Text(" waiting for the first requests…" if self.state != "idle" else "", "dim")
        )
        self.query_one("#verdict", Static).update(banner)
        self.query_one("#next", Static).update(next_line(self.report, self.final))
        self._refresh_keys()

    # -- keys ----------------------------------------------------------------
    def _keys_apply(self) -> dict[str, bool]:
        """Which actions do something now, by name (the others always do)."""
        report, running = self.report, self.running
        findings = report.findings if report is not None else []
        return {
            "cancel": running,
            "stop_following": not running and self.follow and self.state == "reading",
            "prompt": not running,
            "sessions": not running,
            "runs": self._app.run_list is not None,
            "evidence": any(f.evidence for f in findings),
            "copy_step": any(f.next_steps for f in findings),
            "search": self.lines is not None,
            "export": report is not None,
            "probe": report is not None and self.final,
        }

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """A key that would do nothing now is neither shown nor taken (ctrl+c,
        then, is Textual's own: it says how to quit)."""
        return self._keys_apply().get(action, True)

    def _refresh_keys(self) -> None:
        """Tell the footer when what applies has changed: only then, as the
        footer lays itself out again each time it is told."""
        applying = self._keys_apply()
        if applying != self._keys_shown:
            self._keys_shown = applying
            self.refresh_bindings()

    # -- actions -------------------------------------------------------------
    def action_cancel(self) -> None:
        if self.run is not None and not self.run.done:
            self.run.cancel()
            self.state = "cancelling"
            self.note = "stopping the client (SIGINT, then SIGTERM, then SIGKILL)…"
            self._show_status()
        elif self.follow and self.state == "reading":
            self.action_stop_following()
        else:
            self.say("Nothing is running (ctrl+q quits).")

    def action_stop_following(self) -> None:
        self.workers.cancel_group(self, "source")
        self.follow_wake.set()
        self.say("Stopped following the file.")

    def action_prompt(self) -> None:
        prompt = self.query_one("#prompt", Input)
        prompt.display = True
        prompt.focus()

    def action_close_inputs(self) -> None:
        for selector in ("#prompt", "#search"):
            widget = self.query_one(selector, Input)
            if widget.display and (self.trace is not None or selector == "#search"):
                widget.display = False
        self.query_one(Timeline).focus()

    def action_tab(self, tab: str) -> None:
        if tab == "exchange" and self.wide:
            self.query_one("#side-detail").focus()
            return
        self.query_one(TabbedContent).active = tab
        focus = {"diagnosis": "#steps", "log": "#rawlog", "output": "#stdout"}.get(tab)
        if focus and self.query_one(focus).display:
            self.query_one(focus).focus()

    def action_copy_step(self) -> None:
        command = self.query_one(DiagnosisView).selected_command()
        if command is None:
            self.say("No next step to copy yet.", severity="warning")
            return
        self.app.copy_to_clipboard(command)
        self.say(f"Copied: {command}")

    def action_export(self) -> None:
        from osdoctor.render.markdown_report import render_markdown

        if self.report is None:
            self.say("Nothing to export yet.", severity="warning")
            return
        stem = (self.source_path.name if self.source_path else "report").removesuffix(".log")
        path = exports_dir() / f"{stem.removesuffix('.session')}.md"
        try:
            write_private(path, render_markdown(self.report))
        except PrivateStorageError as error:
            self.say(str(error), severity="error")
            return
        self.export_path = path
        self.say(f"Report exported to {path}", timeout=10)

    def action_probe(self) -> None:
        """Plan the live checks of the findings (nothing sent), ask, then run them."""
        kb = self._kb()
        if self.report is None or not self.final or kb is None:
            self.say("Live checks run on a finished report.", severity="warning")
            return
        from osdoctor.probe.probe_runner import prepare

        prepared = prepare(self.report, kb)
        if not prepared.planned:
            self.say("No finding of this report has a live check.")
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.say("Checking against the live cloud…")
                self._probe(prepared)

        if prepared.hosts:
            self.app.push_screen(ConfirmProbe(prepared.hosts), answered)
        else:
            answered(True)

    @work(thread=True, exclusive=True, group="probe")
    def _probe(self, prepared: ProbePlan) -> None:
        from osdoctor.probe.probe_runner import execute

        run = execute(prepared)
        results = {i: (r.probe, r.status, r.detail) for i, r in run.results.items()}
        self.app.call_from_thread(self._probed, prepared.report, results)

    def _probed(self, report: Report, results: dict[int, tuple[str, str, str]]) -> None:
        if report is not self.report:
            return
        view = self.query_one(DiagnosisView)
        view.probes, view.probed = results, report
        view.show(report, self.final)
        confirmed = sum(1 for _p, status, _d in results.values() if status == "confirmed")
        self.say(f"Live check: {confirmed} of {len(results)} confirmed.")

    def action_sessions(self) -> None:
        def chosen(path: Path | None) -> None:
            if path is not None:
                self.open_log(path)

        self.app.push_screen(RecentSessions(self.session_folder or sessions_dir()), chosen)

    def action_search(self) -> None:
        self.action_tab("log")
        search = self.query_one("#search", Input)
        search.display = True
        search.focus()

    def action_search_next(self, backwards: bool) -> None:
        log = self.query_one("#rawlog", RawLog)
        if log.search and not log.find(log.search, backwards):
            self.say(f"not found: {log.search}", severity="warning")

    def action_evidence(self, backwards: bool) -> None:
        self.query_one(TabbedContent).active = "log"
        log = self.query_one("#rawlog", RawLog)
        log.focus()
        if not log.next_evidence(backwards):
            self.say("No evidence lines (yet).")

    def stop(self) -> RunResult | None:
        """Cancel a running command and wait for it: called when the app exits.

        A cancel already under way is waited for, not repeated (which would cut
        its grace periods short)."""
        if self.run is not None and not self.run.done:
            if not self.run.cancelling:
                self.run.cancel()
            return self.run.wait(timeout=30)
        return None
