"""The ``osdoctor`` program: the command line with the interactive screen plugged in.

The CLI (``osdoctor.cli``) and the TUI (``osdoctor.tui``) never import each
other; this module, above both, hands the TUI's launcher to the CLI. Textual
is imported only when the screen starts, so ``osdoctor explain`` never loads it.
"""

from __future__ import annotations


def main(argv: list[str] | None = None) -> int:
    from osdoctor.cli import main as cli_main
    from osdoctor.tui.launch import run_tui

    return cli_main(argv, screens=run_tui)
