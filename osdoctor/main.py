"""The ``osdoctor`` program: the command line with the interactive screen plugged in.

The CLI (``osdoctor.cli``) and the TUI (``osdoctor.tui``) never import each
other; this module, above both, hands the TUI's launcher to the CLI. The
launcher is imported only when the screen starts, and Textual only then, so
``osdoctor explain`` loads neither.
"""

from __future__ import annotations


def run_tui(
    command: list[str] | None = None,
    log: str | None = None,
    follow: bool = False,
    assume_yes: bool = False,
    service_log: list[str] | None = None,
) -> int:
    """The TUI's launcher (``osdoctor.tui.launch.run_tui``), imported when called."""
    from osdoctor.tui.launch import run_tui as launch

    return launch(
        command=command, log=log, follow=follow, assume_yes=assume_yes, service_log=service_log
    )


def main(argv: list[str] | None = None) -> int:
    from osdoctor.cli import main as cli_main

    return cli_main(argv, screens=run_tui)
