"""A stable name for the cause of a failed run, the same across tickets.

A team that loads every saved log into its log store wants to count how often
each cause occurs, as elastic-recheck's graphs did for the gate. Two runs that
failed the same way differ in every id, name, address and number the service
put in its message: those are replaced, so that ``Quota exceeded for
instances: Requested 1, but already used 10 of 10 instances`` on one cloud and
the same message with other figures on another give one fingerprint.
"""

from __future__ import annotations

import re

from osdoctor import regex
from osdoctor.facts import report_facts
from osdoctor.model import Finding, Report
from osdoctor.parse.commands import _NOUNS as COMMAND_WORDS

_NORMALISE: tuple[tuple[regex.Pattern[str], str], ...] = (
    (regex.compile(r"\b[a-z][a-z0-9+.\-]*://\S+", re.I), "<url>"),
    (regex.compile(r"\breq-[0-9a-f\-]{8,}\b", re.I), "<request-id>"),
    (
        regex.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I),
        "<uuid>",
    ),
    (regex.compile(r"\b[0-9a-f]{12,}\b", re.I), "<id>"),
    (regex.compile(r"\b(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?\b"), "<host>"),
    (regex.compile(r"\[[0-9a-f:]*:[0-9a-f:]+\](?::\d+)?", re.I), "<host>"),
    (regex.compile(r"\b(?:[a-z0-9\-]+\.)+[a-z]{2,}(?::\d+)?\b", re.I), "<host>"),
    (regex.compile(r"""(["'\u201c\u2018])[^"'\u201d\u2019]{1,80}["'\u201d\u2019]"""), "<name>"),
    (regex.compile(r"\(\w[\w.\-]*\)"), "(<name>)"),
    (regex.compile(r"\b\d+(?:\.\d+)*\b"), "<n>"),
)
_SPACES = regex.compile(r"\s+")
#: Longest normalised message kept in a fingerprint.
MAX_MESSAGE = 160


def command_names(command: str | None) -> list[str]:
    """The names a command line gave (``web`` of ``openstack server show web``,
    ``m1.small`` of ``--flavor m1.small``): its words that are no option, no
    program and no command noun or verb."""
    if not command:
        return []
    words = command.split()[1:]
    return [
        w.partition("=")[2] if w.startswith("-") else w
        for w in words
        if (not w.startswith("-") or "=" in w) and w not in COMMAND_WORDS and not w.isdigit()
    ]


def normalise(message: str, names: list[str] | None = None) -> str:
    """The message with its ids, names, addresses and numbers replaced, lower-case;
    ``names``: those the command line gave, replaced wherever the message says them."""
    text = message.strip()
    for name in sorted(filter(None, names or []), key=len, reverse=True):
        text = re.sub(rf"(?<![\w.\-]){re.escape(name)}(?![\w.\-])", "<name>", text)
    for pattern, stand_in in _NORMALISE:
        text = pattern.sub(stand_in, text)
    text = _SPACES.sub(" ", text).strip().lower()
    return text[:MAX_MESSAGE].rstrip()


def headline(report: Report) -> Finding | None:
    """The finding a user reads first: the first error, else the first warning."""
    for severity in ("error", "warning"):
        for finding in report.findings:
            if finding.severity == severity:
                return finding
    return None


def fingerprint(report: Report) -> str | None:
    """``rule:service:status:message``, its empty parts left out; None for a run
    that did not fail and has no error finding."""
    lead = headline(report)
    has_error = lead is not None and lead.severity == "error"
    if report.outcome != "failure" and not has_error:
        return None
    facts = report_facts(report)
    parts = [lead.id if has_error and lead is not None else "unexplained"]
    failure = facts.failure
    message = ""
    if failure is not None:
        parts.append(failure.service)
        if failure.status is not None:
            parts.append(str(failure.status))
        elif failure.transport is not None:
            parts.append(failure.transport.kind)
        if failure.fault is not None:
            message = failure.fault.message
        elif failure.transport is not None:
            message = failure.transport.detail
    if not message and facts.exception is not None:
        message = f"{facts.exception.type}: {facts.exception.message}"
    if not message and facts.client_error is not None:
        message = facts.client_error.text
    parts.append(normalise(message, command_names(report.trace.command)))
    return ":".join(p for p in parts if p)
