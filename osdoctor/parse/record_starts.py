"""The lines that start a record of their own (a request, an answer, a connection,
a traceback, the end of a run): where a body, a wrapped request line or an
answer's header block that ran on over the lines before them ends.
"""

from __future__ import annotations

from osdoctor import regex
from osdoctor.parse import legacy

URLLIB3 = regex.compile(r'(https?://\S+) "([A-Z]+) (\S+) HTTP/[\d.]+" (\d{3}) (\S+)')


def is_record_start(text: str) -> bool:
    return (
        text.startswith(
            (
                "REQ: ",
                "RESP: ",
                "RESP BODY:",
                "RESP STATUS:",
                "Starting new",
                "Resetting dropped",
                "Making authentication",
                "Traceback (most recent",
                "END return value",
                "clean_up ",
                "curl -g -i",
                "START with options",
                "send: ",
                "reply: ",
                "RESP:{",
            )
        )
        or (text.startswith(("http://", "https://")) and URLLIB3.match(text) is not None)
        or (text.startswith('"') and legacy.BARE_URLLIB3.match(text) is not None)
    )
