"""The table of openings: which reader takes a line, by the words it opens with.

A client's log is mostly records whose first words say what they are (``RESP:``,
``REQ: curl``, a connection-pool line's ``http://``). The table lists those
words with the reader of each (:data:`OPENINGS`), in the order they are tried;
:func:`bind` groups them by first character and binds each name to a reader's
method, once per parser, so that a line costs one look-up by its first
character and a few ``startswith``.

A reader returns True when it took the line. False lets the line go on: to the
next opening with the same first character, then to the checks that are not
about openings (a traceback's frames, a request id, escaped reports, command
lines), which the parser makes after the table, in their own order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import cast

from osdoctor.parse.clients import BAREMETAL_SHELL

#: A reader of one line: (its number, its text, its time) → whether it took it.
Reader = Callable[[int, str, float | None], bool]
#: The openings of each first character, in order, each with its reader.
Table = dict[str, tuple[tuple[str, Reader], ...]]

#: (opening, "reader.method", or "reader" for a reader that is a function) in the
#: order they are tried; only the order among openings of one first character matters.
OPENINGS: tuple[tuple[str, str], ...] = (
    ("RESP", "responses.answer"),
    ("REQ: ", "requests.request_line"),
    ("Request to ", "connections.unanswered"),
    ("Request returned failure status", "run.failure_status"),
    ("http://", "connections.pool_line"),
    ("https://", "connections.pool_line"),
    ("header: ", "legacy.header_line"),
    ('"', "connections.bare_pool_line"),
    ('"heat ', "run.heat_deprecation"),
    ("send: ", "legacy.send_line"),
    ("reply: ", "legacy.reply_line"),
    ("curl -", "requests.curl_line"),
    ("clean_up ", "run.clean_up"),
    ("command: ", "run.command"),
    ("Making authentication request to ", "requests.auth_request"),
    ('{"token": ', "requests.token_body"),
    ("Traceback (most recent call last)", "traceback"),
    ("Could not find versioned identity endpoints", "connections.discovery_summary"),
    ("Unable to establish connection to ", "connections.refused"),
    ("SSL exception connecting to ", "connections.refused"),
    ("START with options:", "run.start"),
    ("Starting new HTTP", "run.noise"),
    ("ERROR (", "connections.error_line"),
    ("END return value: ", "run.end"),
    (
        "Failed to discover available identity versions when contacting ",
        "connections.discovery_failed",
    ),
    ("HTTP/", "responses.heat_status"),
    *((words, "run.baremetal_shell") for words in BAREMETAL_SHELL),
    ("/v1/", "run.temp_url"),
    ("Negotiated API version is ", "run.negotiated"),
)


def bind(readers: Mapping[str, object], openings: tuple[tuple[str, str], ...] = OPENINGS) -> Table:
    """The table of ``openings`` with each "reader.method" bound to that method of
    ``readers[reader]``, and each "reader" to ``readers[reader]`` itself."""
    table: dict[str, list[tuple[str, Reader]]] = {}
    for opening, name in openings:
        owner, _, method = name.partition(".")
        found = readers[owner]
        read = cast(Reader, getattr(found, method) if method else found)
        table.setdefault(opening[0], []).append((opening, read))
    return {first: tuple(entries) for first, entries in table.items()}


def take(table: Table, number: int, text: str, time: float | None) -> bool:
    """Give ``text`` to the readers its opening names, in order, until one takes it
    (the parser runs the same loop inline)."""
    entries = table.get(text[:1])
    if entries is not None:
        for opening, read in entries:
            if text.startswith(opening) and read(number, text, time):
                return True
    return False
