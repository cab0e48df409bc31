"""The reader of keystoneauth's answer lines: ``RESP: [status] headers``, the dict
reprs older novaclients logged in their place (``RESP:{'status': '200', ...}
{body}``), ``RESP STATUS:``, ``RESP HEADERS:`` and ``RESP BODY:``.

It only reads: each line gives one record or nothing. Which exchange a record
answers (the last request read, a redirect nothing else logged), what is kept
of a big body and which body goes on over the next lines are the parser's
(``ResponseReader._place_answer``).
"""

from __future__ import annotations

from dataclasses import dataclass

from osdoctor.parse.legacy import split_dict_resp


@dataclass(slots=True)
class AnswerLine:
    """``RESP:``: the status (when it says one), the headers, a dict repr's body."""

    number: int
    status: int | None
    headers: str
    body: str | None = None


@dataclass(slots=True)
class AnswerStatus:
    """``RESP STATUS:``: the status code (None when it is not a number), its reason."""

    number: int
    status: int | None
    reason: str | None


@dataclass(slots=True)
class AnswerHeaders:
    """``RESP HEADERS:``: the headers as logged."""

    number: int
    headers: str


@dataclass(slots=True)
class AnswerBody:
    """``RESP BODY:``: the body's first line (it may go on over the next lines)."""

    number: int
    text: str


AnswerRecord = AnswerLine | AnswerStatus | AnswerHeaders | AnswerBody


class AnswerReader:
    """Reads one line at a time; it keeps no state, as each line stands alone."""

    def feed(self, number: int, text: str) -> AnswerRecord | None:
        """The record of a line that opens with ``RESP``; None for any other line."""
        if text.startswith("RESP:{") or text.startswith("RESP:CaseInsensitiveDict("):
            return _answer_line(number, text[5:])
        if text.startswith("RESP BODY:"):
            return AnswerBody(number, text[10:].lstrip(" "))
        if text.startswith("RESP: "):
            return _answer_line(number, text[6:])
        if text.startswith("RESP STATUS: "):
            code, _, reason = text[13:].partition(" ")
            try:
                status: int | None = int(code)
            except ValueError:
                status = None
            return AnswerStatus(number, status, reason or None)
        if text.startswith("RESP HEADERS: "):
            return AnswerHeaders(number, text[14:])
        return None


def _answer_line(number: int, text: str) -> AnswerLine:
    status: int | None = None
    rest = text
    if text.startswith("["):
        code, _, rest = text[1:].partition("]")
        try:
            status = int(code)
        except ValueError:
            status = None
    body: str | None = None
    stripped_rest = rest.strip()
    if stripped_rest[:1] == "{" or stripped_rest.startswith("CaseInsensitiveDict("):
        # requests-era and httplib-era novaclient: a dict repr, perhaps the body after it.
        in_dict, rest, body = split_dict_resp(stripped_rest)
        status = status if status is not None else in_dict
    return AnswerLine(number, status, rest.strip(), body)
