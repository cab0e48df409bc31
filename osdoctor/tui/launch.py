"""Starting the TUI from the command line (``osdoctor.main`` hands ``run_tui`` to the
CLI). Textual is imported here, not at the top, so that importing this costs nothing."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

from osdoctor.console import Exit, fail, last_words, outcome_exit, stopped_exit
from osdoctor.intake import read_error


def run_tui(
    command: list[str] | None = None,
    log: str | None = None,
    follow: bool = False,
    assume_yes: bool = False,
    service_log: list[str] | None = None,
) -> int:
    """Run the incident screen; returns the exit status for ``osdoctor``.

    1 when the run or log shown last failed, 0 otherwise. A command still
    running when the user quits is cancelled first, and the user told so.
    ``service_log``: the services' logs to join each report to (local files,
    folders or patterns; nothing is fetched from a host).
    """
    from osdoctor.run.runner import on_stop_signals
    from osdoctor.servicelog.attach import ServiceLogs
    from osdoctor.servicelog.sources import ServiceLogError
    from osdoctor.tui.app import OsdoctorApp

    if log is not None and not Path(log).is_file():
        missing = IsADirectoryError(log) if Path(log).is_dir() else FileNotFoundError(log)
        return fail(read_error(log, missing))
    try:
        service_logs = ServiceLogs.of(service_log) if service_log else None
    except ServiceLogError as error:
        return fail(f"--service-log {error}")
    app = OsdoctorApp(
        command=command,
        log=Path(log) if log else None,
        follow=follow,
        assume_yes=assume_yes,
        service_logs=service_logs,
    )
    app.handle_stop_signals = True
    # Before and after the event loop, a stop signal is remembered, not obeyed at
    # once: the run under way is stopped (and its session closed) first.
    with on_stop_signals(app.stop_signal):
        app.run()
    app.closed.set()
    with on_stop_signals(app.stop_signal):  # the event loop, closing, reset them
        result = app.main.stop()
    words = []
    if app.stopped_by is not None:
        words.append(f"osdoctor: stopped by {signal.Signals(app.stopped_by).name}\n")
    if result is not None and result.cancelled:
        words.append(
            "osdoctor: the command was cancelled on exit; the server-side action keeps running\n"
        )
    path = app.main.source_path
    if path is not None and app.main.run is not None:
        words.append(f"osdoctor: session saved in {path}\n")
    last_words([(sys.stderr, "".join(words))])
    if app.stopped_by is not None:
        return stopped_exit(app.stopped_by)
    report = app.main.report
    return outcome_exit(report.outcome) if report is not None else Exit.SUCCESS
