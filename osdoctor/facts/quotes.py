"""Evidence quotes the log: each line a finding cites is shown in the log's own
words, never in words the log does not have.

The conditions and facts say why a line counts in their own terms (``GET
URL``, ``answered 500``, ``exit code 1``, a fault message read out of a JSON
body): a text that the cited line holds is kept (a fault message is a part of
its body's line), any other is replaced by the line's own words as the
parser read them (redacted, without the paste's prefixes). So a line that
only says ``ERROR (ConnectFailure): Unable to establish connection to URL``
is never shown as a ``GET`` it does not contain.
"""

from __future__ import annotations

from osdoctor.model import QUOTE_KEEP, Trace, line_quote


def _flat(text: str) -> str:
    return " ".join(text.split())


class LineWords:
    """The words of every line of a trace that a finding may cite."""

    __slots__ = ("_texts",)

    def __init__(self, trace: Trace) -> None:
        texts: dict[int, list[str]] = {}

        def add(line: int, text: str | None) -> None:
            if line and text:
                texts.setdefault(line, []).append(text)

        for ex in trace.exchanges:
            add(ex.request.line, ex.request.quote)
            if ex.request.body is not None and ex.request.body.text:
                add(ex.request.body.first_line, ex.request.body.text[:QUOTE_KEEP])
            if ex.response is not None:
                add(ex.response.line, ex.response.quote)
                body = ex.response.body
                if body is not None:
                    add(body.first_line, line_quote(body.text or body.omitted or ""))
            if ex.error is not None:
                add(ex.error.line, ex.error.message)
        for m in trace.messages:
            add(m.line, m.text)
        for tb in trace.tracebacks:
            add(tb.last_line, f"{tb.exc_type}: {tb.message}" if tb.message else tb.exc_type)
        self._texts = texts

    def quoted(self, line: int, text: str) -> str:
        """``text`` when line ``line`` holds it, else that line's own words (``text``
        when the trace does not know them)."""
        said = self._texts.get(line)
        if not said:
            return text
        wanted = _flat(text).removesuffix("…").strip()
        for words in said:
            if wanted and wanted in _flat(words):
                return text
        return said[0]
