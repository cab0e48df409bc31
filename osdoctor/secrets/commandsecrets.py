"""The secrets of a command line: the argv osdoctor runs, and the argv a client echoes.

Every path that shows or saves a command goes through here: through
``osdoctor.run.cmdline.redact_argv`` a live run's report and screens
(``osdoctor.run.live``, the TUI) and the session file's ``#command``; directly,
the ``START with options:`` line osc-lib prints (which ``osdoctor.secrets.redact``
hands over). Nothing here imports the line redaction: it sits below it.

The client masks only some of what the user typed: osc-lib's mask misses
``--os-password``, ``--os-token``, swift's ``-K``, ``--parameter`` values and
any passphrase after its first word.

Three kinds of secret are masked, each value becoming ``***``:

- by option: every option whose name says password, secret, token, key,
  credential, passphrase or auth (``osdoctor.secrets.secretnames``), whether its value
  follows ``=`` or is the next word;
- by position: the arguments of commands known to take a secret there
  (``credential create <user> <data>``, ``ec2 credentials show|delete
  <access>``, ``token revoke <token>``, ``swift tempurl ... <key>``);
- by pair: ``name=value`` words (``--parameter``, ``--property``,
  ``--driver-info``, heat's ``-P a=b;c=d``, swift's ``-m``/``-H`` ``Name:
  value``, an ``env`` prefix's ``VAR=value``) whose name is secret.

An argv keeps one word per word, so a passphrase with spaces is one word,
masked whole. A line a client printed is the argv joined by spaces, and there
a multi-word value cannot be told from the command that follows: the words
after a secret option are masked up to the last word that starts a known
command (``network`` in ``--os-password correct horse network list``), or to
the next option when none does. Over-masking is the safe side.

Work is linear in the length of the command: one pass over its words.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence

from osdoctor.secrets.secretnames import MASK, is_secret_name
from osdoctor.secrets.secretstream import SecretMemory

__all__ = [
    "TEMPLATE_OPTIONS",
    "known_secrets",
    "mask_words",
    "prints_bare_secret",
    "redact_echoed",
    "redact_echoed_values",
    "redact_typed_values",
    "secret_values",
]

#: Options that take no value, before or inside a command (everything else
#: spelled ``--name`` takes one: osc's global options all do).
_FLAGS = frozenset(
    {
        "--debug",
        "-d",
        "-v",
        "-vv",
        "-vvv",
        "--verbose",
        "-q",
        "--quiet",
        "--insecure",
        "--timing",
        "--no-cache",
        "--os-beta-command",
        "--help",
        "-h",
        "--version",
        "--info",
        "--absolute",
        "--prefix-based",
        "--iso8601",
        "--wait",
        "--long",
        "--dry-run",
        "--yes",
        "-y",
        "--all",
        "--force",
        "--os-no-client-auth",
    }
)
#: Options whose value is a ``name=value`` pair (or several).
_PAIR_OPTIONS = frozenset(
    {
        "--parameter",
        "-P",
        "--property",
        "--properties",
        "--driver-info",
        "--extra",
        "--instance-info",
        "--meta",
        "-m",
        "--header",
        "-H",
        "--env",
        "--hint",
        "--parameters",
        "--param",
        "--set",
        "--bios-setting",
        "--capability",
        "--prop",
        "--os-default-headers",
        "--description",
    }
)
#: Short options that carry a secret in a client (swift's ``-K`` key).
_SECRET_SHORT = frozenset({"-K"})
#: First words of the commands of osc-lib's shells (openstack, baremetal), which
#: echo their argv: they end a multi-word value in an echoed command line.
COMMAND_WORDS = frozenset(
    """
    accelerator access address aggregate alarm application availability baremetal bgp
    bgpvpn block cached catalog cloud coe command complete compute configuration
    consistency console consumer container credential database default dns domain ec2
    endpoint extension federation firewall flavor floating group help host hypervisor
    identity image implied ip keypair limit limits loadbalancer local mapping metric
    module network object orchestration policy port project quota rbac recordset region
    registered request resource role router secret security server service share
    software stack subnet tap tld token trust usage user versions volume vpn workflow
    zone allocation chassis conductor deploy driver node runbook
    """.split()
)

#: Commands with a secret in a positional argument: the command words, and which
#: positional arguments after them (counted from 0; None for all) are secret.
#: (Options with a value are skipped while counting: every ``--name`` not in
#: _FLAGS takes one.)
_POSITIONAL: tuple[tuple[tuple[str, ...], tuple[int, ...] | None], ...] = (
    (("credential", "create"), (1,)),
    (("ec2", "credentials", "delete"), None),
    (("ec2", "credentials", "show"), None),
    (("token", "revoke"), None),
    (("tempurl",), (3,)),
)


def _secret_option(name: str) -> bool:
    """An option whose value is a secret (``--os-password``, ``-K``, and osc-lib's
    own mangled mask ``--os***``)."""
    return (
        name in _SECRET_SHORT
        or name.endswith(MASK)
        or (name.startswith("--") and is_secret_name(name))
    )


def _mask_pairs(value: str, separator: str = "=") -> str:
    """``a=b;db_password=S`` with each secret name's value masked."""
    if separator not in value and "=" not in value:
        return value
    parts = value.split(";")
    for index, part in enumerate(parts):
        sep = "=" if "=" in part else separator
        name, found, rest = part.partition(sep)
        if found and rest.strip() and rest.strip() != MASK and is_secret_name(name):
            parts[index] = name + sep + (" " if rest.startswith(" ") else "") + MASK
    return ";".join(parts)


def _pair_separator(option: str) -> str:
    return ":" if option in ("-m", "--meta", "-H", "--header") else "="


def _option_flags(words: Sequence[str]) -> list[bool]:
    return [len(w) > 1 and w[0] == "-" and not w[1].isdigit() for w in words]


def _run_ends(words: Sequence[str], options: list[bool]) -> list[int]:
    """For each word of an echoed command, where a secret value that begins just
    before it ends (exclusive): at the last word that starts a known command
    before the next option, else at that option, else at the end. One backward
    pass."""
    total = len(words)
    ends = [total] * (total + 1)
    stop = total
    last_command = -1
    for index in range(total - 1, -1, -1):
        if options[index]:
            stop, last_command = index, -1
        elif last_command == -1 and words[index] in COMMAND_WORDS:
            last_command = index
        ends[index] = stop if last_command == -1 else last_command
    return ends


def _redact_words(words: Sequence[str], echoed: bool) -> tuple[list[str], list[str]]:
    """(the words redacted, the secret values found), in one pass."""
    out: list[str | None] = list(words)
    found: list[str] = []
    options = _option_flags(words)
    ends = _run_ends(words, options) if echoed else None
    secret: dict[str, bool] = {}

    def mask(index: int, end: int | None = None) -> None:
        stop = index + 1 if end is None else end
        value = words[index] if stop == index + 1 else " ".join(words[index:stop])
        if value and value != MASK:
            found.append(value)
        out[index] = MASK
        for later in range(index + 1, stop):
            out[later] = None

    positional: list[int] = []
    index = 0
    total = len(words)
    while index < total:
        word = words[index]
        if not options[index]:
            if word == "--":
                positional.extend(range(index + 1, total))
                break
            if "=" in word and word != MASK:
                paired = _mask_pairs(word)
                out[index] = paired
                if paired != word:
                    found.append(word.partition("=")[2])
            positional.append(index)
            index += 1
            continue
        if "=" in word:
            name, _equals, value = word.partition("=")
            if _secret_option(name):
                if value and value != MASK:
                    found.append(value)
                out[index] = name + "=" + MASK
                if ends is not None and index + 1 < total and not options[index + 1]:
                    # ``--os-password=correct horse network list``
                    end = ends[index + 1]
                    if end > index + 1:
                        found.append(" ".join(words[index + 1 : end]))
                    for later in range(index + 1, end):
                        out[later] = None
            elif name in _PAIR_OPTIONS:
                out[index] = name + "=" + _mask_pairs(value, _pair_separator(name))
            index += 1
            continue
        following = index + 1
        if following >= total or options[following]:
            index = following
            continue
        is_secret = secret.get(word)
        if is_secret is None:
            is_secret = secret[word] = _secret_option(word)
        if is_secret:
            end = following + 1
            if ends is not None and ends[end] > end:
                end = ends[end]
            if end == following + 1:
                value = words[following]
                if value != MASK:
                    found.append(value)
                    out[following] = MASK
            else:
                mask(following, end)
            index = end
            continue
        if word in _PAIR_OPTIONS:
            separator = _pair_separator(word)
            paired = _mask_pairs(words[following], separator)
            out[following] = paired
            if paired != words[following]:
                found.append(words[following].partition(separator)[2].strip())
            index = following + 1
            continue
        if word in _FLAGS:
            index = following
            continue
        index = following + 1  # an option and its value
    _mask_positional(words, out, positional, mask)
    return [word for word in out if word is not None], found


def _mask_positional(
    words: Sequence[str],
    out: list[str | None],
    positional: list[int],
    mask: Callable[[int], None],
) -> None:
    """The commands that take a secret as a positional argument."""
    plain = [words[i] for i in positional]
    firsts = {command[0] for command, _secret in _POSITIONAL}
    starts = [at for at, word in enumerate(plain) if word in firsts]
    for command, secret in _POSITIONAL:
        size = len(command)
        for at in starts:
            if tuple(plain[at : at + size]) != command:
                continue
            rest = positional[at + size :]
            chosen = rest if secret is None else [rest[i] for i in secret if i < len(rest)]
            for index in chosen:
                if out[index] not in (None, MASK):
                    mask(index)
            return


def mask_words(argv: Sequence[str]) -> list[str]:
    """``argv`` with the values of secret options, positions and pairs masked, one
    word for one word (the first step of ``osdoctor.run.cmdline.redact_argv``)."""
    return _redact_words(list(argv), echoed=False)[0]


def redact_echoed(text: str) -> str:
    """A command line as a client printed it (the argv joined by spaces), redacted.

    Spacing is kept where nothing is masked; a masked multi-word value becomes one
    ``***``.
    """
    return redact_echoed_values(text)[0]


def redact_echoed_values(text: str) -> tuple[str, list[str]]:
    """``redact_echoed``, and the secret values it masked."""
    words = text.split(" ")
    redacted, found = _redact_words(words, echoed=True)
    if not found and redacted == words:
        return text, found
    return " ".join(redacted), found


def redact_typed_values(text: str) -> tuple[str, list[str]]:
    """A command line as somebody typed it (shell words: a value with spaces is
    quoted), redacted one word per option value, and the secret values masked."""
    words = text.split(" ")
    redacted, found = _redact_words(words, echoed=False)
    if not found and redacted == words:
        return text, found
    return " ".join(redacted), found


#: Environment variables whose value the clients use as a secret.
_SECRET_ENV_MIN = 6


def secret_values(argv: Sequence[str], env: Mapping[str, str] | None = None) -> list[str]:
    """The secret values in ``argv`` (and in ``env``'s ``OS_*`` secret variables):
    what a live run's output must never show, literally, whatever its shape there.

    A multi-word value also gives the words after its first one (osc-lib masks
    only the first word of ``--password correct horse``).
    """
    _words, found = _redact_words(list(argv), echoed=False)
    values: list[str] = []
    for value in found:
        values.append(value)
        head, space, tail = value.partition(" ")
        if space and len(tail) >= _SECRET_ENV_MIN:
            values.append(tail)
    environment = os.environ if env is None else env
    for name, value in environment.items():
        if name.startswith("OS_") and is_secret_name(name[3:]) and not name.endswith("_FILE"):
            values.append(value)
    return sorted(
        {v for v in values if len(v) >= _SECRET_ENV_MIN and v != MASK}, key=len, reverse=True
    )


#: Commands whose plain output holds a secret column (shown with ``-f value`` as
#: bare words): credentials and what issues them.
_SECRET_OUTPUT = (
    ("ec2", "credentials"),
    ("credential",),
    ("application", "credential", "create"),
    ("token", "issue"),
    ("secret", "get"),
)


def prints_bare_secret(argv: Sequence[str]) -> bool:
    """Whether the command's standard output is bare secret values: ``-f value``
    (or ``csv``) with a secret ``-c`` column, or without ``-c`` for a command
    whose columns include one. Such output has no key beside the value to say so."""
    formats: list[str] = []
    columns: list[str] = []
    plain: list[str] = []
    index = 0
    while index < len(argv):
        word = argv[index]
        for short, long, into in (("-f", "--format", formats), ("-c", "--column", columns)):
            if word in (short, long) and index + 1 < len(argv):
                into.append(argv[index + 1])
                index += 1
                break
            if word.startswith(long + "="):
                into.append(word.partition("=")[2])
                break
            if word.startswith(short) and len(word) > 2 and not word.startswith("--"):
                into.append(word[2:])
                break
        else:
            if not word.startswith("-"):
                plain.append(word)
        index += 1
    if not any(value in ("value", "csv") for value in formats):
        return False
    if columns:
        return any(is_secret_name(column, allow_data=True) for column in columns)
    return any(
        tuple(plain[at : at + len(command)]) == command
        for command in _SECRET_OUTPUT
        for at in range(len(plain))
    )


#: Options that name a Heat template file.
TEMPLATE_OPTIONS = frozenset({"-t", "--template", "--template-file"})
_HEAT_TEMPLATE_OPTIONS = frozenset({"-f"})
#: Template files larger than this are not read for hidden parameters.
_MAX_TEMPLATE = 1 << 20


def known_secrets(
    argv: Sequence[str], env: Mapping[str, str] | None = None, cwd: str | None = None
) -> SecretMemory:
    """What a live run knows is secret before the client prints anything: the
    secret values of ``argv`` and of ``env`` (see ``secret_values``), and the
    parameters its Heat templates declare ``hidden: true``, with their defaults
    and the values ``argv`` gives them (``--parameter app_setting=S``), which
    osc-lib echoes before the template shows in a request."""
    memory = SecretMemory(secret_values(argv, env))
    heat = bool(argv) and os.path.basename(argv[0]) == "heat"
    templates: list[str] = []
    for index, word in enumerate(argv[:-1]):
        if word in TEMPLATE_OPTIONS or (heat and word in _HEAT_TEMPLATE_OPTIONS):
            templates.append(argv[index + 1])
    names: set[str] = set()
    for path in templates:
        hidden, defaults = _template_hidden(os.path.join(cwd or os.getcwd(), path))
        names.update(hidden)
        memory.literals.add(defaults)
    if names:
        memory.learn_names(names)
        values: list[str] = []
        for index, word in enumerate(argv[:-1]):
            if word in ("--parameter", "-P"):
                for pair in argv[index + 1].split(";"):
                    name, equals, value = pair.partition("=")
                    if equals and name.strip() in names:
                        values.append(value)
        memory.literals.add(values)
    return memory


def _template_hidden(path: str) -> tuple[list[str], list[str]]:
    """The hidden parameters of the template at ``path`` and their defaults; none
    when it cannot be read."""
    import yaml

    try:
        if os.path.getsize(path) > _MAX_TEMPLATE:
            return [], []
        with open(path, encoding="utf-8", errors="replace") as handle:
            document = yaml.safe_load(handle)
    except (OSError, ValueError, yaml.YAMLError):
        return [], []
    parameters = document.get("parameters") if isinstance(document, dict) else None
    names: list[str] = []
    defaults: list[str] = []
    if isinstance(parameters, dict):
        for name, declared in parameters.items():
            if isinstance(declared, dict) and declared.get("hidden") is True:
                names.append(str(name))
                if declared.get("default") is not None:
                    defaults.append(str(declared["default"]))
    return names, defaults
