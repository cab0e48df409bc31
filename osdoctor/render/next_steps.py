"""Next steps as commands: knowledge files write them as prose followed by the
command (``Check the auth URL: openstack configuration show``), or as the command
alone. The TUI copies the command; the runbook sets it as code."""

from __future__ import annotations

import re

_BACKTICKS = re.compile(r"`([^`]+)`")
_ASIDE = re.compile(r"\s+\((?:or|e\.g\.|see)\b[^()]*\)\s*$")
#: Where prose goes on after a command: ``openstack stack delete web, then ...``.
_PROSE_AFTER = re.compile(r",\s+(?:then|and|or)\s")
_COMMANDS = (
    "openstack",
    "heat",
    "baremetal",
    "swift",
    "curl",
    "env",
    "grep",
    "ping",
    "nc",
    "dig",
    "host",
    "nslookup",
    "openssl",
    "export",
    "unset",
    "cat",
    "ls",
    "ssh",
    "systemctl",
    "journalctl",
    "sudo",
    "python",
    "osdoctor",
    "source",
    "echo",
    "ss",
    "getent",
    "ip",
    "md5sum",
    "crudini",
    "radosgw-admin",
    "pip",
    "python3",
    "nova",
    "cinder",
    "neutron",
    "glance",
    "keystone",
    "system",
)

#: How the runbook shows the ``{command}`` placeholder: the user's whole command.
_WHOLE_COMMAND = "<command> "


def split_step(step: str) -> tuple[str, str, str]:
    """(prose before, the command, text after) of a next step; the command is ""
    when the step names none."""
    quoted = _BACKTICKS.search(step)
    if quoted:
        return step[: quoted.start()], quoted.group(1).strip(), step[quoted.end() :]
    head, sep, tail = step.rpartition(": ")
    if sep and (tail.split(" ", 1)[0] in _COMMANDS or tail.startswith(_WHOLE_COMMAND)):
        aside = _PROSE_AFTER.search(tail) or _ASIDE.search(tail)
        command = tail[: aside.start()] if aside else tail
        return head + sep, command.strip(), tail[len(command.rstrip()) :]
    if step.split(" ", 1)[0] in _COMMANDS and " " in step.strip():
        return "", step.strip(), ""
    return step, "", ""


def step_command(step: str) -> str:
    """The command in a next step, or the whole step when it names none."""
    command = split_step(step)[1]
    return command or step.strip()
