"""The reader of httplib's debug dump (``http.client.HTTPConnection.debuglevel``),
which clients of 2011-2013 switched on with ``--debug``: ``send: 'GET /x
HTTP/1.1\\r\\nHost: h\\r\\n...'``, ``reply: 'HTTP/1.1 200 OK\\r\\n'``, ``header: K: V``.

It only reads: each line gives one record or nothing. Which exchange a record
belongs to (the request a ``REQ:`` line showed already, the answer last read)
is the parser's pairing (``LegacyReader._place_httplib``).
"""

from __future__ import annotations

from dataclasses import dataclass

from osdoctor.parse.legacy import Sent, parse_reply, parse_send

#: The words such a line opens with (see ``HttplibReader.feed``).
OPENINGS = ("send: ", "reply: ", "header: ")


@dataclass(slots=True)
class SentRequest:
    """A request's line and headers (and its body, when sent with them)."""

    number: int
    sent: Sent


@dataclass(slots=True)
class SentBody:
    """A body sent apart from its request's line and headers."""

    number: int
    body: str


@dataclass(slots=True)
class SentUnread:
    """A ``send:`` line that holds neither: kept as a debug message."""

    number: int
    text: str


@dataclass(slots=True)
class Reply:
    """The status line of an answer."""

    number: int
    status: int
    reason: str | None


@dataclass(slots=True)
class Header:
    """One header of the answer being read (``K: V``)."""

    number: int
    text: str


HttplibRecord = SentRequest | SentBody | SentUnread | Reply | Header


class HttplibReader:
    """Reads one line at a time; it keeps no state, as each line stands alone."""

    def feed(self, number: int, text: str) -> HttplibRecord | None:
        """The record of a line that opens with one of ``OPENINGS``; None for a
        ``reply:`` that holds no status line, and for any other line."""
        if text.startswith("send: "):
            sent = parse_send(text[6:])
            if isinstance(sent, str):
                return SentBody(number, sent)
            if sent is None:
                return SentUnread(number, text)
            return SentRequest(number, sent)
        if text.startswith("reply: "):
            reply = parse_reply(text)
            return None if reply is None else Reply(number, *reply)
        if text.startswith("header: "):
            return Header(number, text[8:])
        return None
