"""Readers of a body that continues on the lines after its record: a pretty-printed
JSON or HTML answer, a request's quoted data, heatclient's own dump of an answer
(status, headers, a blank line, the body).

Each is fed the lines after the record that opened it, and says whether the line
was its own; the parser then closes it and reads the line as a new record.
"""

from __future__ import annotations

from osdoctor.model import BODY_KEEP, Body, Response
from osdoctor.parse.record_starts import is_record_start


class BodyCollector:
    """Gathers a body that continues on following lines (pretty JSON, HTML)."""

    def __init__(self, body: Body, parts: list[str], closer: str | None) -> None:
        self.body = body
        self.parts = parts
        self.closer = closer

    def feed(self, number: int, text: str) -> bool:
        if is_record_start(text):
            return False
        if self.body.cut and self.closer in ("}", "]") and text[:1] not in JSON_LINE_FIRST:
            # Pretty-printed JSON goes on with indentation, a bracket or a quote: a
            # body whose line the paste cut ends where the client's lines go on.
            return False
        self.body.last_line = number
        self.body.size += len(text) + 1
        if not self.body.truncated:
            kept = sum(len(p) + 1 for p in self.parts)
            if kept + len(text) > BODY_KEEP:
                self.body.truncated = True
            else:
                self.parts.append(text)
        if self.closer is None:
            return True
        stripped = text.strip()
        if self.closer == "'":
            if stripped.endswith("'"):
                if self.parts and not self.body.truncated:
                    self.parts[-1] = self.parts[-1].rstrip()[:-1]
                self.closer = None
                return True
            return True
        if (
            stripped in ("}", "]", "};")
            or (text[:1] in "}]" and self.closer == text[:1])
            or (self.closer == "</html>" and stripped.lower().endswith("</html>"))
        ):
            self.closer = None
        return True

    @property
    def open(self) -> bool:
        return self.closer is not None

    def close(self) -> None:
        self.body.text = "\n".join(self.parts)


#: First characters of the lines of a pretty-printed JSON body.
JSON_LINE_FIRST = frozenset(' \t{}[]"-0123456789tfn,')


class HeatResponseCollector:
    """heatclient's own HTTP client dumps ``HTTP/1.1 200 OK``, headers, a blank, the body."""

    def __init__(self, response: Response) -> None:
        self.response = response
        self.in_body = False
        self.headers: list[str] = []
        self.body_parts: list[str] = []
        self.body_first = 0
        self.open = True

    def feed(self, number: int, text: str) -> bool:
        if is_record_start(text):
            return False
        if not self.in_body:
            if not text.strip():
                self.in_body = True
                return True
            if ": " in text:
                self.headers.append(text)
                self.response.last_line = number
                return True
            return False
        if not text.strip():
            self.open = False
            return True
        if not self.body_parts:
            self.body_first = number
        if sum(len(p) for p in self.body_parts) < BODY_KEEP:
            self.body_parts.append(text)
        self.response.last_line = number
        return True

    def close(self) -> None:
        self.response.raw_headers = "\n".join(self.headers)
        if self.body_parts:
            text = "\n".join(self.body_parts)
            self.response.body = Body(self.body_first, self.response.last_line, text, len(text))
