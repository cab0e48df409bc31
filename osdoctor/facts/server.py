"""The service's side of a run: its log records joined to the client's exchanges
(see ``osdoctor.servicelog.join``), and the words rules quote from them.

A rule's ``server`` condition picks one joined record; these are its values
as template placeholders (``{server_service}``, ``{server_message}``,
``{server_where}``...), so the explanation can name the service, its words
and the file and line that prove them, and say how strong the tie is.
"""

from __future__ import annotations

from osdoctor import regex
from osdoctor.facts.known_names import service_name
from osdoctor.model import Evidence, Trace
from osdoctor.servicelog.join import Joined
from osdoctor.servicelog.record import at_least
from osdoctor.servicelog.service_names import peer_named

_SHORT = 200
#: Cinder's and Glance's taskflow name the task that failed before the reason:
#: "Failed to run task cinder.scheduler.flows.create_volume.ScheduleCreateVolumeTask;
#: volume:create: <reason>".
_TASKFLOW = regex.compile(r"Failed to run task [\w.]+;[\w:.-]+: ")
#: The seam of "<reason>: <module>.<Exception>: <reason>", a reason said twice around
#: its class.
_CLASS_SEAM = regex.compile(r": (?:[a-z_]\w*\.)+(?P<cls>[A-Z]\w+): ")

#: How each kind of tie reads in a report.
MATCHES = {
    "request-id": "its request id",
    "global-request-id": "its request id, as the global request id of the call made for it",
    "answer": "being the service's own answer to it (a traceback as the body)",
    "time": "its time and service only, without a request id (a weaker match)",
    "last-words": "being the service's last record before it, without a request id "
    "(a weaker match)",
    "pasted": "having been pasted beside the client's output, without a request id "
    "(a weaker match)",
    "alone": "being the only failure in a paste of the service's log, with no client "
    "output to tie it to (a weaker match)",
}
#: The placeholders a ``server`` condition always gives (empty when unknown).
NAMES = (
    "server_service",
    "server_logger",
    "server_level",
    "server_exception",
    "server_exception_type",
    "server_message",
    "server_words",
    "server_where",
    "server_frame",
    "server_frame_note",
    "server_match",
    "server_match_note",
    "server_peer",
    "server_request_id",
    "server_host",
)


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _SHORT else text[: _SHORT - 1].rstrip() + "…"


def words(joined: Joined) -> str:
    """Everything the record says, for a rule's regexes: its message, its next
    lines, its exception."""
    r = joined.record
    parts = [r.message, *r.more]
    if r.exception and r.exception_line not in r.message:
        parts.append(r.exception_line)
    return "\n".join(p for p in parts if p)


def said(joined: Joined) -> str:
    """The record's words in one short line: its message, and its exception when
    the message does not already hold it."""
    r = joined.record
    text, line = reason_of(r.message), r.exception_line.partition("\n")[0]
    if line and line[:80] not in r.message:
        text = f"{text} — {line}" if text else line
    return _short(text)


def reason_of(message: str) -> str:
    """A record's message without the task that carried it and without its reason
    said a second time around the exception's class (both Cinder's taskflow)."""
    m = _TASKFLOW.match(message)
    if m:
        message = message[m.end() :]
    for seam in _CLASS_SEAM.finditer(message):
        # Only a seam in the middle can part two equal halves: one comparison at most.
        if seam.start() == len(message) - seam.end() and message.endswith(message[: seam.start()]):
            return f"{message[: seam.start()]} ({seam['cls']})"
    return message


def _frame(frame: str) -> str:
    """A frame's path from its package on (``glanceclient/v2/images.py:12 in get``)."""
    return frame.rpartition("-packages/")[2] if "-packages/" in frame else frame


def values(joined: Joined, trace: Trace | None = None, failing: str = "") -> dict[str, str]:
    """The placeholders of one joined record; ``failing`` names the service of the
    run's failure, for a record whose writer is unknown (a bare traceback)."""
    r = joined.record
    service = r.service
    if not service and trace is not None and joined.exchange is not None:
        for ex in trace.exchanges:
            if ex.index == joined.exchange and ex.service:
                service = service_name(ex.service)
    # "the service" is what a failure of no known service is called: no name.
    service = service or (failing if failing != "the service" else "")
    weak = not joined.by_id
    frame = _frame(r.innermost_frame)
    tie: str = joined.kind
    if tie == "pasted" and trace is not None and trace.command is None and not trace.exchanges:
        tie = "alone"  # a service log pasted on its own: no client's output beside it
    return {
        "server_service": service,
        "server_logger": r.logger,
        "server_level": r.level,
        "server_exception": r.exception_short,
        "server_exception_type": r.exception,
        "server_message": said(joined),
        "server_words": words(joined),
        "server_where": r.where,
        "server_frame": frame,
        "server_frame_note": f" Its traceback ends in {frame}." if frame else "",
        "server_match": MATCHES[tie],
        "server_match_note": f" (tied by {MATCHES[tie]})" if weak else "",
        "server_peer": peer_named(f"{r.message}\n{r.exception_message}"),
        "server_request_id": joined.request_id or r.request_id,
        "server_host": r.host,
    }


def evidence(joined: Joined) -> Evidence:
    """The record as a finding's evidence: its file and line, in its own words (an
    evidence line quotes its log). A bare traceback is quoted at its last line,
    the exception, rather than at its "Traceback (most recent call last):"."""
    r = joined.record
    if r.format == "python" and r.exception and r.last_line > r.line:
        return Evidence(r.last_line, _short(r.exception_line.partition("\n")[0]), r.source)
    return Evidence(r.line, _short(r.text.strip()), r.source)


def leading(facts_server: list[Joined]) -> dict[str, str]:
    """The values of the record a report leads with when no rule chose one: the
    strongest-tied record at ERROR or above; empty ones when there is none."""
    for joined in facts_server:
        if at_least(joined.record.level, "ERROR"):
            return values(joined)
    return dict.fromkeys(NAMES, "")
