"""Command-line helpers every front end shares: which client a command runs,
``--debug`` inserted where that client reads it, whether the command changes
the cloud, and the command redacted for showing and saving.

The CLI (``osdoctor run``), the TUI's command prompt and the session writer
all ask here, so that a command is recognised, confirmed and shown alike
wherever it is typed. Which words are secrets is ``osdoctor.secrets.commandsecrets``'s.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from osdoctor.secrets.commandsecrets import TEMPLATE_OPTIONS, known_secrets, mask_words
from osdoctor.secrets.redact import redact_line
from osdoctor.secrets.secretnames import MASK

#: Clients whose debug output osdoctor reads, by executable name.
DEBUG_CLIENTS = frozenset({"openstack", "heat", "baremetal", "swift"})

_ENV_OPTIONS_WITH_VALUE = frozenset({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"})

#: Words that mark a command that changes or destroys something on the cloud:
#: without a terminal the client will not ask, so osdoctor asks first.
_DESTRUCTIVE = frozenset(
    {
        "delete",
        "remove",
        "clear",
        "purge",
        "unset",
        "abandon",
        "cleanup",
        "rebuild",
        "evacuate",
        "undeploy",
        "clean",
        "rescue",
        "shelve",
        "reboot",
        "stop",
        "suspend",
        "reset",
        "deploy",
        "manage",
        "provide",
        "inspect",
        "update",
        "set",
        "create",
        "signal",
        "cancel",
        "abort",
    }
)
_READ_ONLY = frozenset({"list", "show", "poll", "get", "validate", "preview", "--version", "help"})


def client_name(argv: Sequence[str]) -> str | None:
    """The base name of the executable a command runs (``/usr/bin/openstack``
    and ``env OS_CLOUD=x openstack`` both give ``openstack``), None for none."""
    index = _executable_index(argv)
    return os.path.basename(argv[index]) if index is not None else None


def insert_debug(argv: Sequence[str]) -> list[str]:
    """Return ``argv`` with ``--debug`` right after a known client's executable.

    The client is recognised by its base name (``/usr/bin/openstack`` too),
    also behind a leading ``env [OPTION...] [VAR=value...]``. Nothing changes
    when debug is already asked for (``--debug``, or heat's ``-d``) or when
    the command is not one of DEBUG_CLIENTS.
    """
    words = list(argv)
    index = _executable_index(words)
    if index is None:
        return words
    name = os.path.basename(words[index])
    if name not in DEBUG_CLIENTS:
        return words
    already = {"--debug", "-d"} if name == "heat" else {"--debug"}
    rest = words[index + 1 :]
    if "--" in rest:
        rest = rest[: rest.index("--")]
    if already.intersection(rest):
        return words
    return [*words[: index + 1], "--debug", *words[index + 1 :]]


def _executable_index(words: Sequence[str]) -> int | None:
    if not words:
        return None
    if os.path.basename(words[0]) != "env":
        return 0
    index = 1
    while index < len(words):
        word = words[index]
        if word == "--":
            index += 1
            break
        if word in _ENV_OPTIONS_WITH_VALUE:
            index += 2
        elif word.startswith("-") or ("=" in word and not word.startswith("=")):
            index += 1
        else:
            break
    return index if index < len(words) else None


def destructive_word(argv: Sequence[str]) -> str | None:
    """The word that makes a command change the cloud, or None for read-only ones."""
    words = [w for w in argv[1:] if not w.startswith("-")]
    for word in words:
        if word in _READ_ONLY:
            return None
        if word in _DESTRUCTIVE or word.endswith("-delete") or word.endswith("-clear"):
            return word
    return None


def redact_argv(argv: Sequence[str]) -> list[str]:
    """``argv`` with every secret value replaced by ``***``, one word for one word.

    Each word also goes through the line redaction (URLs with credentials,
    token shapes, ``key=value``), and the values given to parameters that the
    command's Heat templates declare hidden are masked too.
    """
    words = [redact_line(word) if word != MASK else word for word in mask_words(argv)]
    if any(word in TEMPLATE_OPTIONS for word in argv):
        # ``--parameter app_setting=S`` where the template hides app_setting.
        literals = known_secrets(argv).literals
        words = [literals.mask(word) for word in words]
    return words


def command_text(argv: Sequence[str]) -> str:
    """The command as shown to the user and in reports: redacted, without the
    ``--debug`` osdoctor inserted, words joined by spaces."""
    return " ".join(word for word in redact_argv(argv) if word not in ("--debug", "-d"))
