"""A line is split into words only when its first word may start a client command.

``recognise`` is asked about nearly every printed line of a log; splitting a
long line (a JSON body, a table) into words only to find that its first word
is no client was a large part of reading it. The quick way must answer as the
plain split does, for every first word, every whitespace Python knows, and the
``sudo``/``time``/``env VAR=x`` prefixes.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from osdoctor.parse import commands

_WORDS = st.sampled_from(
    ["openstack", "/usr/bin/nova", "heat", "sudo", "time", "env", "OS_CLOUD=x", "server", "list"]
    + ["--debug", "grep", '{"token":', "|", "swift", "baremetal", "é", ""]
)
_SPACES = st.sampled_from([" ", "\t", "\u00a0", "\u2003", "\x1c", "\n", "  "])


def _plain(text: str) -> list[str] | None:
    words = text.split()
    if not words:
        return None
    if words[0] in ("sudo", "time", "env") and len(words) > 1:
        words = words[1:]
        while words and "=" in words[0]:
            words = words[1:]
        if not words:
            return None
    return words if commands.client_of(words[0]) != "unknown" else None


@settings(max_examples=800, deadline=None)
@given(st.lists(st.tuples(_SPACES, _WORDS), max_size=8), _SPACES)
def test_a_line_gives_the_words_the_plain_split_gives(
    pieces: list[tuple[str, str]], end: str
) -> None:
    text = "".join(space + word for space, word in pieces) + end
    assert commands._client_words(text) == _plain(text)


def test_a_long_line_that_starts_with_no_client_is_no_command() -> None:
    assert commands.recognise('{"servers": [' + '{"id": "x"}, ' * 100 + "]}") is None
    assert commands.recognise("openstack server list --long") == (
        "openstack server list --long",
        "openstackclient",
        False,
    )
