"""What the command-line front ends (``osdoctor explain``, ``run``, ``probe``...) say
on the terminal, said once: the exit codes, the one-line error, the yes/no
question before something is sent or run, whether to colour, and the knowledge
loaded with its errors told.

``osdoctor probe`` once had its own copies of these, and coloured its report
whatever ``NO_COLOR`` said; the TUI asks its questions in dialogs instead.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from enum import IntEnum
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from osdoctor.kb.loader import KnowledgeBase


class Exit(IntEnum):
    SUCCESS = 0
    """A report was made and the run succeeded (or its outcome is unknown)."""
    FAILURE = 1
    """A report was made and the run failed."""
    USAGE = 2
    """Usage error, unreadable input, input that is not an OpenStack client's log, or
    knowledge that does not load; also a question answered no."""


def stopped_exit(signum: int) -> int:
    """The exit code of osdoctor stopped by signal ``signum`` (SIGINT: 130), as a shell
    reports a process a signal ended."""
    return 128 + signum


def outcome_exit(outcome: str) -> Exit:
    """The exit code of a report's outcome."""
    return Exit.FAILURE if outcome == "failure" else Exit.SUCCESS


def fail(message: str) -> int:
    """Say ``message`` on one line of stderr; the exit code of a usage error."""
    print(f"osdoctor: {message}", file=sys.stderr)
    return Exit.USAGE


def use_colour(stream: TextIO, mode: str) -> bool:
    """``--color always|never|auto``: auto colours a terminal unless ``NO_COLOR`` is set
    (https://no-color.org)."""
    if mode == "always":
        return True
    if mode == "never" or os.environ.get("NO_COLOR"):
        return False
    return stream.isatty()


def ask(question: str, without_terminal: str, assume_yes: bool) -> bool:
    """Ask ``question`` with ``[y/N]`` on the terminal; ``assume_yes`` (``--yes``)
    answers yes. Without a terminal nothing can be asked: ``without_terminal`` is
    said and the answer is no."""
    if assume_yes:
        return True
    if not sys.stdin.isatty():
        print(f"osdoctor: {without_terminal}", file=sys.stderr)
        return False
    print(f"{question} [y/N] ", end="", file=sys.stderr, flush=True)
    return sys.stdin.readline().strip().lower() in ("y", "yes")


def load_kb(folders: Iterable[str] | None, user: bool) -> KnowledgeBase:
    """The built-in knowledge, the user's (``user``) and ``--kb`` folders; errors go
    to stderr, and the knowledge that loads is used."""
    from osdoctor.kb.loader import load_knowledge

    kb = load_knowledge([Path(d) for d in (folders or [])], user=user)
    for issue in kb.issues:
        if issue.severity == "error":
            print(f"osdoctor: knowledge not loaded: {issue}", file=sys.stderr)
    return kb
