"""The client's connection sentences that a ticket's editor word-wrapped.

keystoneauth's transport and discovery messages are long: a URL, then the
nested causes of requests and urllib3. A poster's editor, a mail client or a
CI page reflows them at a word boundary, at no fixed width::

    Failed to discover available identity versions when contacting
    http://keystone:5000. Attempting to parse version from URL. Could
    not find versioned identity endpoints when attempting to authenticate. ...

The fixed-width unfolding of ``parse.wraps`` cannot see such a wrap (the lines
are ragged). What shows it is the sentence itself: a line that holds one of
these messages and stops inside it (inside the fixed words of one of its
sentences, after a colon, or with a parenthesis still open) goes on on the
next line, and the pieces are joined with one space. urllib3's cause
(``HTTPConnectionPool(...): Max retries exceeded ... (Caused by ...)``) ends
only with its closing parenthesis. Only these messages are
joined, so a line of anything else is never taken for a wrap.

keystoneauth1's own words (``identity/generic/base.py``, ``exceptions``,
``session.py`` of keystoneauth); the old clients' ``Error communicating with`` (glance,
ceilometer, gnocchi) takes its cause on the same line.
"""

from __future__ import annotations

from osdoctor import regex

#: The fixed words of each sentence of the messages, as the clients print them.
SENTENCES: tuple[str, ...] = (
    "Failed to discover available identity versions when contacting ",
    "Attempting to parse version from URL.",
    "Could not find versioned identity endpoints when attempting to authenticate.",
    "Please check that your auth_url is correct.",
    "Unable to establish connection to ",
    "SSL exception connecting to ",
    "Error communicating with ",
)
#: Where one of the messages starts.
OPENERS = regex.compile(
    r"Failed to discover available identity versions when contacting\b|"
    r"Could not find versioned identity endpoints|"
    r"Unable to establish connection to|"
    r"SSL exception connecting to|"
    r"Error communicating with\b"
)
#: Pieces joined into one sentence at most.
MAX_PIECES = 12
#: What can never continue a sentence: a line of its own.
_NOT_AFTER = ("+", "|", "$ ", "# ", "Traceback", 'File "', "ERROR", "WARNING", "DEBUG", "INFO")


def _mentions(text: str) -> bool:
    """A cheap test before the pattern, asked of every line: every opener holds
    one of these words (spelt out, which costs a fraction of a loop over them)."""
    return "identity " in text or "connect" in text or "communicating " in text


def _open_parens(text: str) -> int:
    return text.count("(") - text.count(")") + text.count("[") - text.count("]")


def _stops_inside_a_sentence(text: str) -> bool:
    """Whether ``text`` ends with the first words of one of the fixed sentences
    (not the whole of one that ends in a period)."""
    for sentence in SENTENCES:
        words = sentence.rstrip()
        if text.endswith(words) and words.endswith("."):
            continue  # that sentence is whole
        # The longest tail of the text, from a word's start, that starts the sentence.
        start = len(text) - len(words)
        for at in range(max(start, 0), len(text)):
            if (at == 0 or text[at - 1] == " ") and words.startswith(text[at:]):
                if len(text) - at >= 5 or text[at:] == words:
                    return True
                break
    return False


def opens(text: str) -> bool:
    """Whether ``text`` holds one of the messages and stops inside it: the
    next line may go on with it."""
    if len(text) < 20 or not _mentions(text):
        return False
    m = OPENERS.search(text)
    if m is None:
        return False
    return still_open(text, m.start())


def still_open(text: str, start: int = 0) -> bool:
    """Whether the message of ``text`` that starts at ``start`` is cut at the
    line's end."""
    tail = text.rstrip()
    if _open_parens(tail[start:]) > 0:
        return True
    if tail.endswith((":", ",")):
        return True
    if "ConnectionPool(" in tail[start:] and not tail.endswith(")"):
        return True  # urllib3's cause ends with its "(Caused by ...)" closed
    return _stops_inside_a_sentence(tail)


def goes_on(following: str) -> bool:
    """Whether ``following`` can be the rest of a wrapped sentence."""
    body = following.strip()
    return bool(body) and not body.startswith(_NOT_AFTER)


def join(held: str, following: str) -> str:
    """The two pieces of a word-wrapped sentence as one."""
    return f"{held.rstrip()} {following.strip()}"


#: keystoneauth logs its discovery warning on a line of its own, before the
#: exception's message: a reflowed paste runs the two together.
_WARNING_END = "Attempting to parse version from URL."


def lines_of(text: str) -> list[str]:
    """A joined sentence as the client's own lines: its discovery warning apart."""
    at = text.find(_WARNING_END)
    if at < 0:
        return [text]
    end = at + len(_WARNING_END)
    rest = text[end:].strip()
    return [text[:end], rest] if rest else [text[:end]]


def after_command(text: str) -> int | None:
    """Where the client's first words start on a command's line that a paste
    joined them to (``+ openstack token issue Failed to discover ...``), or
    None when the line is only the command."""
    if not _mentions(text):
        return None
    m = OPENERS.search(text)
    if m is None or m.start() == 0 or text[m.start() - 1] != " ":
        return None
    return m.start()
