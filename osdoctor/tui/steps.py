"""Next steps as commands to copy: knowledge files write them as prose
followed by the command (``Check the auth URL: openstack configuration show``)."""

from __future__ import annotations

import re

_BACKTICKS = re.compile(r"`([^`]+)`")
_ASIDE = re.compile(r"\s+\((?:or|e\.g\.|see)\b[^()]*\)\s*$")
_COMMANDS = ("openstack", "heat", "baremetal", "swift", "curl", "env", "grep", "ping", "nc",
             "dig", "host", "nslookup", "openssl", "export", "unset", "cat", "ls", "ssh",
             "systemctl", "journalctl", "sudo", "python", "osdoctor", "source", "echo")


def step_command(step: str) -> str:
    """The command in a next step, or the whole step when it names none."""
    quoted = _BACKTICKS.search(step)
    if quoted:
        return quoted.group(1).strip()
    head, sep, tail = step.rpartition(": ")
    if sep and tail.split(" ", 1)[0] in _COMMANDS:
        return _ASIDE.sub("", tail).strip()
    for word in _COMMANDS:
        at = step.find(word + " ")
        if at == 0:
            return step.strip()
    return step.strip()
