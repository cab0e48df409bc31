"""Starting the TUI from the command line. Textual is imported here, not by
``osdoctor.cli``, so that headless commands never load it."""

from __future__ import annotations

import sys
from pathlib import Path


def run_tui(command: list[str] | None = None, log: str | None = None, follow: bool = False,
            assume_yes: bool = False) -> int:
    """Run the incident screen; returns the exit status for ``osdoctor``.

    1 when the run or log shown last failed, 0 otherwise. A command still
    running when the user quits is cancelled first, and the user told so.
    """
    from osdoctor.tui.app import OsdoctorApp

    if log is not None and not Path(log).is_file():
        what = "a folder, not a log file" if Path(log).is_dir() else "no such file"
        print(f"osdoctor: {log}: {what}", file=sys.stderr)
        return 2
    app = OsdoctorApp(command=command, log=Path(log) if log else None, follow=follow,
                      assume_yes=assume_yes)
    app.run()
    result = app.main.stop()
    if result is not None and result.cancelled:
        print("osdoctor: the command was cancelled on exit; the server-side action keeps "
              "running", file=sys.stderr)
    path = app.main.source_path
    if path is not None and app.main.run is not None:
        print(f"osdoctor: session saved in {path}", file=sys.stderr)
    report = app.main.report
    return 1 if report is not None and report.outcome == "failure" else 0
