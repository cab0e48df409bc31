"""The reader of the lines that say a request got no answer: keystoneauth's
"Request to URL timed out", "Unable to establish connection to URL: ...",
"SSL exception connecting to URL: ...", and the same words quoted inside
another message (novaclient's "ERROR (ConnectFailure): ...", an exception's
text).

It only reads: each line gives an ``Unanswered`` record or nothing. Which
exchange the record belongs to (a request still waiting, or one the log never
showed) is the parser's pairing (``ConnectionReader._place_unanswered``).
"""

from __future__ import annotations

from dataclasses import dataclass

from osdoctor.model import TransportKind
from osdoctor.parse.transport_kind import named_in

#: The words such a line opens with (see ``UnansweredReader.feed``).
OPENINGS = ("Request to ", "Unable to establish connection to ", "SSL exception connecting to ")


@dataclass(slots=True)
class Unanswered:
    """A request to ``url`` that got no answer, as line ``number`` says it."""

    number: int
    url: str
    kind: TransportKind
    text: str
    """The whole line, kept as the error's words."""
    detail: str | None = None


class UnansweredReader:
    """Reads one line at a time; it keeps no state, as each such line stands alone."""

    def feed(self, number: int, text: str) -> Unanswered | None:
        """The record of a line that opens with one of ``OPENINGS``; None when its
        words name no URL (or, for "Request to", do not say it timed out)."""
        if text.startswith("Request to "):
            if text.endswith(" timed out"):
                return Unanswered(number, text[11:-10], "timeout", text)
            return None
        named = named_in(text)
        if named is None:
            return None
        url, kind, detail = named
        return Unanswered(number, url, kind, text, detail)

    def within(self, number: int, cause: str, text: str) -> Unanswered | None:
        """The record of a failure named inside another message: ``cause`` is the
        part that may name it, ``text`` the words kept; None unless it names an
        http(s) URL."""
        named = named_in(cause)
        if named is None or not named[0].startswith(("http://", "https://")):
            return None
        url, kind, detail = named
        return Unanswered(number, url, kind, text, detail)
