"""Printed messages: the kind of a line the client printed, and the joining of
message lines that a paste wrapped at a fixed width.
"""

from __future__ import annotations

from osdoctor.model import Message, MessageKind, Trace
from osdoctor.parse import wraps
from osdoctor.parse.paste import DEBUG_PREFIXES
from osdoctor.secrets.redact import redact_line


def classify(text: str) -> MessageKind:
    """The kind of a printed line: an error, a table row, a warning, debug, text."""
    if text.startswith(
        ("ERROR: ", "ERROR ", "Error: ", "error: ", "4xx Client error: ", "5xx Server error: ")
    ):
        return "error"
    first = text[0]
    if first in "+|" and (text.startswith(("+-", "| ", "|-")) or text.endswith(("+", "|"))):
        return "output"
    if text.startswith(("WARNING", "Warning", "warning:")) or "Warning: " in text[:40]:
        return "warning"
    if text.startswith(DEBUG_PREFIXES):
        return "debug"
    return "text"


def join_wrapped_messages(trace: Trace, widths: dict[int, int]) -> None:
    """A log pasted through a tool that wraps at a fixed width has many lines of
    exactly that width: a message line of that width continues on the next line.

    Used when the width was not known before parsing (a live run); each run
    of pieces is joined and redacted once, so the cost is linear."""
    long_lines = sum(widths.values())
    if long_lines < 10:
        return
    width, count = max(widths.items(), key=lambda item: item[1])
    if count < 5 or count * 3 < long_lines:
        return
    trace.problems.append(
        f"the log looks wrapped at {width} characters: wrapped message lines were joined"
    )
    joined: list[Message] = []
    parts: list[str] = []

    def close() -> None:
        if len(parts) > 1:
            joined[-1].text = redact_line("".join(parts))
        parts.clear()

    for message in trace.messages:
        last = joined[-1] if joined else None
        # The continuation's own kind says nothing: it is the middle of a line.
        if (
            last is not None
            and parts
            and len(parts[-1]) >= width - 2
            and last.kind != "output"
            and message.kind != "output"
            and message.line == last.last_line + 1
            and message.repeats == 1
            and len(parts) < wraps.MAX_PIECES
        ):
            parts.append(message.text)
            last.last_line = message.last_line
            continue
        close()
        joined.append(message)
        parts.append(message.text)
    close()
    trace.messages = joined
