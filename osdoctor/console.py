"""What the command-line front ends (``osdoctor explain``, ``run``, ``probe``...) say
on the terminal, said once: the exit codes, the one-line error, the yes/no
question before something is sent or run, whether to colour, and the knowledge
loaded with its errors told.

``osdoctor probe`` once had its own copies of these, and coloured its report
whatever ``NO_COLOR`` said; the TUI asks its questions in dialogs instead.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable, Iterable, Sequence
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


#: The exit status of osdoctor when the reader of its output went away
#: (``osdoctor explain | head``): what a shell reports of ``cat`` or ``grep`` that
#: SIGPIPE ended. Python ignores SIGPIPE (a closed socket must not kill the lab's
#: stub or a probe), so osdoctor gets an error instead and ends the same way itself.
CLOSED_OUTPUT_EXIT = 128 + signal.SIGPIPE


def stopped_exit(signum: int) -> int:
    """The exit code of osdoctor stopped by signal ``signum`` (SIGINT: 130), as a shell
    reports a process a signal ended."""
    return 128 + signum


def output_closed() -> int:
    """What osdoctor does once the reader of its output has gone: nothing more
    reaches anyone, so stdout and stderr go to /dev/null (what is still buffered,
    and Python's own flush at exit, then raise nothing) and the exit status is
    ``CLOSED_OUTPUT_EXIT``. Never a message: nobody is there to read it, and a
    message on stderr would blame whatever osdoctor was doing."""
    to_devnull(sys.stdout, sys.stderr)
    return CLOSED_OUTPUT_EXIT


def to_devnull(*streams: TextIO) -> None:
    """Point the streams' files at /dev/null: nothing written to them later, nor
    Python's flush at exit, can fail any more. A stream with no file of its own
    (a test's capture) is left as it is."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        for stream in streams:
            try:
                os.dup2(devnull, stream.fileno())
            except (OSError, ValueError, AttributeError):
                continue
    finally:
        os.close(devnull)


def last_words(parts: Sequence[tuple[TextIO, str]]) -> OSError | None:
    """Write osdoctor's last lines, in order; returns the first write error.

    A stream that takes nothing more (a terminal closed, the very reason for a
    SIGHUP; a reader gone, ``| head``) must not turn the exit into a traceback,
    nor silence the other stream: its file goes to /dev/null (``to_devnull``)
    and the words for the other stream are still written."""
    first: OSError | None = None
    failed: list[TextIO] = []
    for stream, text in parts:
        if any(stream is gone for gone in failed):
            continue
        try:
            stream.write(text)
            stream.flush()
        except OSError as error:
            first = first or error
            failed.append(stream)
            to_devnull(stream)
    return first


def guard_output(command: Callable[[], int]) -> int:
    """``command()``'s exit status, or ``output_closed()``'s once a write meets a
    reader that went away (``| head``), however deep the write was. The output
    is flushed here, also when argparse ends the command (``--help``), so that a
    closed pipe is met now, not in Python's flush at exit (which would print
    "Exception ignored" and exit 120)."""
    try:
        try:
            return command()
        finally:
            sys.stdout.flush()
    except BrokenPipeError:
        return output_closed()


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
