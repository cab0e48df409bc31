"""Who ran what: the client and the command a log shows, from a command line, osc's
``START with options``, a session file's header, the shells' own words, or the
requests' User-Agent when nothing else says.
"""

from __future__ import annotations

import json

from osdoctor import regex
from osdoctor.model import Command, Exchange, Message, MessageKind, Trace, line_quote
from osdoctor.parse.commands import AGENTS, client_of
from osdoctor.run.cmdline import command_text

#: Command lines kept in ``Trace.commands`` at most (the first ones).
MAX_COMMANDS = 200
#: The standalone baremetal shell logs no command line: these are its own words.
BAREMETAL_SHELL = ("Using bare metal API version ", "usage: baremetal ")
#: Session header lines that are messages: osdoctor's notes, the user's cancel.
SESSION_MESSAGES: dict[str, MessageKind] = {"note": "note", "cancelled": "cancelled"}


def note_command(trace: Trace, number: int, text: str, client: str, typed: str = "") -> None:
    """A command line seen (prompt, xtrace, a note naming it): the first client
    command is the trace's command. ``typed`` is the line as the log has it."""
    t = trace
    if len(t.commands) < MAX_COMMANDS:
        shown = line_quote(typed) if typed and typed.strip() != text else ""
        t.commands.append(Command(number, text, client, shown))
    if client == "unknown":
        return
    t.openstack_lines += 1
    if t.command is None:
        t.command = text
        t.command_line = number
    if t.client == "unknown" and t.command == text:
        t.client = client


def session_meta(trace: Trace, number: int, key: str, value: str) -> None:
    """A session file's header line: the command run, its exit, a note."""
    t = trace
    if key == "command":
        try:
            argv = json.loads(value)
        except ValueError:
            argv = value.split()
        if isinstance(argv, list):
            words = [str(a) for a in argv if a not in ("--debug", "-d")]
            t.command = command_text(words)
            t.command_line = number
            t.client = client_of(words[0]) if words else t.client
            t.commands.append(Command(number, t.command, t.client))
    elif key == "exit":
        try:
            t.exit_code = int(value.split()[0])
            t.exit_line = number
        except (ValueError, IndexError):
            pass
    elif key in SESSION_MESSAGES:
        t.messages.append(Message(number, SESSION_MESSAGES[key], value, last_line=number))


def start_command(trace: Trace, number: int, args: str) -> str:
    """osc's ``START with options`` line: the command run; returns the line's text,
    kept as a debug message."""
    trace.openstack_lines += 1
    if trace.client == "unknown":
        trace.client = "openstackclient"
    words = [w for w in option_words(args) if w not in ("--debug", "-d")]
    command = "openstack " + " ".join(words) if words else "openstack"
    if trace.command is None or trace.command.startswith("openstack "):
        trace.command = command
        trace.command_line = number
    if not trace.commands or trace.commands[-1].text != command:
        if len(trace.commands) < MAX_COMMANDS:
            trace.commands.append(Command(number, command, "openstackclient"))
    return "START with options: " + args


def client_from_agents(exchanges: list[Exchange]) -> str:
    """The client named by the first requests' User-Agent, for a log with no command."""
    for ex in exchanges:
        agent = ex.request.header("User-Agent") or ""
        for word, client in AGENTS:
            if word in agent:
                return client
    return "unknown"


_LIST_WORD = regex.compile(r"u?'((?:[^'\\]|\\.)*)'|u?\"((?:[^\"\\]|\\.)*)\"")


def option_words(args: str) -> list[str]:
    """osc's ``START with options`` words: plain (``--debug server list``) or, from
    older releases, a Python list (``[u'--debug', u'server', u'list']``)."""
    stripped = args.strip()
    if stripped.startswith("[") and stripped.endswith("]"):
        words = _LIST_WORD.findall(stripped)
        if words:
            return [a or b for a, b in words]
    return stripped.split()
