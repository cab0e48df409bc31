"""Secret redaction for OpenStack client ``--debug`` output.

Every line osdoctor reads passes through here before it is stored, so a
secret never reaches a report, a saved session or the screen. The clients
mask only part of what they print (keystoneauth hashes token headers,
osc-lib masks ``--password`` and a few ``key=`` pairs, swiftclient keeps 16
characters); request and response bodies, cliff's ``Namespace(...)`` lines,
printed tables, URLs with credentials and several headers go out in clear.

A secret value is replaced by ``***`` and its key stays, so the line is
still readable: ``"password": "***"``, ``X-Auth-Token: ***``,
``temp_url_sig=***``, ``http://user:***@host``. Beside the rules that know
where a secret stands (its key, its option, a sibling field naming it:
``osdoctor.secrets.secretsiblings``; a console's list: ``osdoctor.secrets.passwordlists``),
a safety net masks what looks like key material whatever its name
(``osdoctor.secrets.keymaterial``). Hashes the clients already made
(``{SHA256}...``, ``{SHA1}...``) and OpenStack's identifiers are kept: they
are not secret and they correlate requests. Redaction never adds or removes
a line break, so line numbers stay valid, and it is idempotent.

Speed: most debug lines hold no secret. A line is scanned by the rules only
when its lowercased text contains one of a few trigger words, and by the
safety net only when it holds a run long enough to judge; ``redact_lines``
and ``redact_text`` go further and find both in a whole batch of lines at
once, at C speed, and run the rules on those lines only.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from itertools import accumulate, islice

from osdoctor import regex
from osdoctor.run.programs import PROGRAMS
from osdoctor.secrets.commandsecrets import redact_echoed_values, redact_typed_values
from osdoctor.secrets.keymaterial import (
    FERNET,
    PEM_BEGIN,
    PEM_END,
    PEM_INLINE,
    continue_token,
    ends_in_token,
    jwt_spans,
    key_material_spans,
    next_run,
)
from osdoctor.secrets.optiondump import mask_options
from osdoctor.secrets.passwordlists import PasswordList, password_list_spans, starts_a_list
from osdoctor.secrets.secretnames import MASK, is_secret_name
from osdoctor.secrets.secretsiblings import SiblingFields, sibling_spans
from osdoctor.secrets.secretstream import SecretMemory, TableColumns, hidden_parameters

__all__ = [
    "MASK",
    "PemMasker",
    "SecretMemory",
    "StreamRedactor",
    "contains_secret",
    "redact_line",
    "redact_lines",
    "redact_text",
]

#: Lowercase words of which at least one is in every line a rule can change.
_TRIGGERS = (
    "pass",
    "secret",
    "token",
    "key",
    "@",
    "gaaaaa",
    "eyj",
    "blob",
    "cookie",
    "auth",
    "sig",
    "access",
    "data",
    "cred",
    "pwd",
    "payload",
    " -k",
    "tempurl",
    "hash",
    "kek",
    "psk",
    "bearer",
    " -u",
    "-user",
    "value",
    "chpasswd",
)

#: Characters that end a line for ``str.splitlines``: a value never runs past one.
_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
_BREAK_RE = regex.compile("[" + _BREAKS + "]")

#: Scalar values that say nothing secret and stay as they are.
_HARMLESS_VALUES = frozenset(
    {"", MASK, "none", "null", "true", "false", "<redacted>", "******", "unset"}
)

# --- which keys hold secrets ---------------------------------------------------


def _is_secret_key(name: str, allow_data: bool = False) -> bool:
    """Whether a key, option or table field called ``name`` holds a secret value
    (see ``osdoctor.secrets.secretnames``)."""
    return is_secret_name(name, allow_data)


def _harmless(value: str) -> bool:
    """A value that needs no masking: empty, null-like, already masked or a client hash."""
    return value.lower() in _HARMLESS_VALUES or value.startswith(("{SHA256}", "{SHA1}"))


_HEADER_KEYS = frozenset(
    {
        "x_auth_token",
        "x_subject_token",
        "x_service_token",
        "x_storage_token",
        "x_auth_key",
        "authorization",
        "proxy_authorization",
        "cookie",
        "set_cookie",
        "temp_url_key",
        "temp_url_key_2",
        "x_account_meta_temp_url_key",
        "x_account_meta_temp_url_key_2",
        "x_container_meta_temp_url_key",
        "x_container_meta_temp_url_key_2",
    }
)
"""Headers whose ``Name: value`` may run to the next header (``Authorization: Bearer x``)."""


def _line_end(text: str, start: int) -> int:
    match = _BREAK_RE.search(text, start)
    return match.start() if match else len(text)


_NOT_BREAK = "\n\r\v\f\x1c-\x1e\x85\u2028\u2029"
#: A quoted value's inside, honouring backslash escapes, stopping at a line break.
_QUOTED = {
    quote: regex.compile(r"(?:[^" + quote + r"\\" + _NOT_BREAK + r"]|\\[^" + _NOT_BREAK + r"])*")
    for quote in "'\""
}
_BARE = regex.compile(r"[^\s'\",;&)\]}]*")
_NON_SPACE = regex.compile(r"\S*")


def _quoted_end(text: str, start: int, quote: str) -> int:
    """Index of the quote closing a value whose inside starts at ``start``; the line
    end when it is not closed."""
    match = _QUOTED[quote].match(text, start)
    assert match is not None  # the pattern matches the empty string
    return match.end()


def _bare_end(text: str, start: int) -> int:
    match = _BARE.match(text, start)
    assert match is not None
    return match.end()


# --- the rules -----------------------------------------------------------------
#
# Every rule is one forward pass over the line (``str.find`` and anchored
# matches from known positions), and each rule masks by collecting spans: no
# rule rescans what it has passed, so any line is redacted in linear time.

_TEMP_URL_SIG = regex.compile(r"(temp_url_sig=)([^&\s'\"]+)", re.IGNORECASE)
#: A URL's authority (``user:password@host:port``, or several joined by ``,`` as
#: oslo.messaging's ``transport_url`` has them), from just after ``://``.
_AUTHORITY = regex.compile(r"[^\s/?#'\"<>\\]*")
#: A query parameter, after ``?``/``&`` or their URL-encoded forms (a console URL's
#: ``?path=%3Ftoken%3D...``, encoded once or twice more): its value is masked when
#: its name is secret, by family (``X-Amz-Signature``, ``X-Goog-Signature``,
#: ``X-Goog-Credential``, ``X-Amz-Security-Token``, ``sig``, ``token``...).
_QUERY = regex.compile(
    r"(?:[?&;]|%(?:25){0,2}(?:3[Ff]|26))(?P<name>[A-Za-z][A-Za-z0-9_.-]{0,63})"
    r"(?P<sep>=|%(?:25){0,2}3[Dd])"
)
_QUERY_VALUE = regex.compile(r"[^&\s'\"#<>]*")
_ENCODED_VALUE = regex.compile(r"(?:[^%&\s'\"#<>\\]|%(?!(?:25){0,2}26)[0-9A-Fa-f]{2})*")
#: A JSON patch operation's ``"path"`` (Ironic's ``node set``); its value is masked
#: when the path's last segment names a secret.
_PATCH_PATH = regex.compile(r"\"path\"[ \t]*:[ \t]*\"(?P<path>[^\"\\]*)\"")
_PATCH_VALUE = regex.compile(r"\"value\"[ \t]*:[ \t]*")

#: Words, lowercase, of which a secret key's name holds at least one.
_KEY_WORDS = (
    "pass",
    "secret",
    "token",
    "blob",
    "key",
    "access",
    "data",
    "cookie",
    "authoriz",
    "cred",
    "pwd",
    "sig",
    "payload",
    "auth",
    "hash",
    "kek",
    "psk",
    "bearer",
)
_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
_WORD_RUN = regex.compile(r"[A-Za-z0-9_-]*")
#: From a key's first character: the key, its closing quote and the separator.
_KEY_TAIL = regex.compile(r"[A-Za-z_][\w.-]*(?P<rq>\\*['\"]|)[ \t]*(?P<sep>[:=])[ \t]*")
#: What may stand before an environment variable's ``NAME=value`` at the start of a
#: line (an ``env`` dump, a pasted profile).
_SHELL_PREFIXES = ("", "export", "declare -x", "set")
_SHELL_PREFIX_MAX = 16
_SHELL_NAME = regex.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: How far back a dotted key (``auth.application_credential_secret``) is followed.
_DOTTED_REACH = 128
_BACKSLASHES = regex.compile(r"\\*")
#: A following header in keystoneauth's one-line ``RESP: [200] A: x B: y`` form.
_NEXT_HEADER = regex.compile(r"[ \t]+[A-Za-z][A-Za-z0-9-]*:[ \t]")
#: How far back before a ``:`` a namespaced key (``"OS-EXT-SRV-ATTR:user_data"``)
#: looks for its opening quote.
_NAMESPACE_REACH = 64


def _candidates(low: str, words: Iterable[str]) -> list[int]:
    """Sorted positions of ``words`` in ``low``."""
    found: list[int] = []
    for word in words:
        pos = low.find(word)
        while pos != -1:
            found.append(pos)
            pos = low.find(word, pos + len(word))
    found.sort()
    return found


class _LineEnds:
    """The first line break at or after a position, remembered: positions asked
    for only grow, so the line is searched once."""

    __slots__ = ("line", "end")

    def __init__(self, line: str) -> None:
        self.line = line
        self.end = -1

    def at(self, start: int) -> int:
        if self.end < start:
            self.end = _line_end(self.line, start)
        return self.end


def _rstrip_end(line: str, start: int, end: int) -> int:
    while end > start and line[end - 1] in " \t":
        end -= 1
    return end


def _value_span(
    line: str,
    start: int,
    quotes: tuple[str, str],
    sep: str,
    key: str,
    key_start: int,
    ends: _LineEnds,
    indent: int,
) -> tuple[int, int] | None:
    """Where the value of a secret key begins and ends, or None when it is a
    structure (whose own keys are looked at one by one) or absent."""
    lq, rq = quotes
    if start >= len(line):
        return None
    first = line[start]
    if first in "{[(":
        return None
    if first in "'\"":
        return start + 1, _quoted_end(line, start + 1, first)
    if first == "\\":
        # JSON inside a JSON string: \"db_password\": \"S\"
        run = _BACKSLASHES.match(line, start)
        assert run is not None
        quote_at = run.end()
        if quote_at >= len(line) or line[quote_at] not in "'\"":
            return None
        eol = ends.at(start)
        end = line.find(line[start : quote_at + 1], quote_at + 1, eol)
        return quote_at + 1, end if end != -1 else eol
    if lq and not rq:
        # -H "X-Auth-Token: v" or 'db_password=S' in a quoted list item; inside a
        # JSON string the quotes are escaped (-H \"X-Auth-Token: v\"): the value
        # stops before the backslash, which must stay for the JSON to stay valid.
        eol = ends.at(start)
        closer = "\\" + lq if key_start >= 1 and line[key_start - 1] == "\\" else lq
        end = line.find(closer, start, eol)
        return start, end if end != -1 else eol
    if sep == ":" and not lq:
        normal = key.lower().replace("-", "_")
        if normal in _HEADER_KEYS:
            # keystoneauth's RESP line: the value runs to the next header.
            eol = ends.at(start)
            following = _NEXT_HEADER.search(line, start, eol)
            return start, _rstrip_end(line, start, following.start() if following else eol)
        if key_start <= indent:
            # A YAML mapping line ``secret: S``: the value is the rest of the line.
            return start, _rstrip_end(line, start, ends.at(start))
        if line[:1] == "|":
            # YAML in a table cell (``| | RabbitCookie: S |``): the rest of the cell.
            eol = ends.at(start)
            bar = line.find(" |", start, eol)
            return start, _rstrip_end(line, start, bar if bar != -1 else eol)
    end = _bare_end(line, start)
    if (
        sep == "="
        and not lq
        and end < len(line)
        and line[end] in " \t"
        and key_start <= _SHELL_PREFIX_MAX
        and line[:key_start].strip() in _SHELL_PREFIXES
        and _SHELL_NAME.fullmatch(key) is not None
    ):
        # ``OS_PASSWORD=purple monkey dishwasher`` in an env dump: unquoted, the
        # value is all the rest of the line.
        return start, _rstrip_end(line, start, ends.at(start))
    return start, end


def _opening_quote(line: str, word: str, at: int) -> int:
    """Where the opening quote of the key starting at ``at`` is (-1: none); a key
    behind a namespace (``"OS-EXT-SRV-ATTR:user_data"``) has it before that."""
    if at and line[at - 1] in "'\"":
        return at - 1
    if at and line[at - 1] == ":":
        probe = at - 1
        floor = max(0, at - _NAMESPACE_REACH)
        while probe > floor and (line[probe - 1] in _WORD_CHARS or line[probe - 1] == ":"):
            probe -= 1
        if probe and line[probe - 1] in "'\"":
            return probe - 1
    return -1


class _Splice:
    """The masked spans of one line, in order, put together once at the end: a
    rule never rebuilds the line per value (which made it quadratic)."""

    __slots__ = ("line", "cursor", "_pieces", "_found")

    def __init__(self, line: str, found: list[str] | None) -> None:
        self.line = line
        self.cursor = 0
        self._pieces: list[str] = []
        self._found = found

    def mask(self, start: int, end: int, replacement: str = MASK) -> None:
        """Replace ``line[start:end]`` (after the previous span); a mask is noted
        in ``found``."""
        if self._found is not None and replacement == MASK:
            self._found.append(self.line[start:end])
        self._pieces.append(self.line[self.cursor : start])
        self._pieces.append(replacement)
        self.cursor = end

    def result(self) -> str:
        if not self._pieces:
            return self.line
        self._pieces.append(self.line[self.cursor :])
        return "".join(self._pieces)


def _redact_key_values(
    line: str, low: str, extra: frozenset[str] = frozenset(), found: list[str] | None = None
) -> str:
    """Mask the value of every secret key: JSON, Python reprs, ``key=value``, YAML,
    headers in curl, RESP and dict forms. ``extra`` adds names learnt from the
    log itself (hidden Heat parameters)."""
    separators = low.count(":") + low.count("=")
    if not separators:
        return line
    # Every key word found once: as many as ``low.count`` would count of each.
    positions = _candidates(low, _KEY_WORDS)
    if len(positions) > separators:
        # Fewer separators than key words (a command line of ``--pass x``): start
        # from the separators instead, each giving the key just before it.
        positions = _keys_before_separators(line)
    elif extra:
        positions = sorted(positions + _candidates(line, extra))
    if not positions:
        return line
    allow_data = "Namespace(" in line
    ends = _LineEnds(line)
    indent = len(line) - len(line.lstrip(" -"))
    splice = _Splice(line, found)
    skip = 0
    for pos in positions:
        if pos < skip:
            continue
        word = pos
        while word > skip and line[word - 1] in _WORD_CHARS:
            word -= 1
        if word > skip and line[word - 1] == ".":
            # A dotted key (``auth.password``, ``"auth.application_credential_secret"``):
            # from its first part, judged by its last.
            floor = max(skip, word - _DOTTED_REACH)
            while word > floor and (line[word - 1] in _WORD_CHARS or line[word - 1] == "."):
                word -= 1
        run = _WORD_RUN.match(line, pos)
        assert run is not None
        skip = max(run.end(), pos + 1)
        if word and line[word - 1] in "/.":
            # A path or host segment (``/v3/auth/tokens: ...``), not a key.
            continue
        if _VERB_BEFORE.search(line, max(0, word - 12), word):
            # The object of a verb in a sentence (keystonemiddleware's "Bad response
            # code while validating token: 400", "Unable to validate token: Failed
            # ..."): what follows is the error, not the token.
            continue
        match = _KEY_TAIL.match(line, word)
        if match is None:
            continue
        key = line[word : match.start("rq")]
        quote_at = _opening_quote(line, key, word)
        lq = line[quote_at] if quote_at >= 0 else ""
        rq = match["rq"].lstrip("\\")
        if (rq and lq != rq) or not (is_secret_name(key, allow_data) or key in extra):
            continue
        key_start = quote_at if quote_at >= 0 else word
        span = _value_span(line, match.end(), (lq, rq), match["sep"], key, key_start, ends, indent)
        if span is None:
            continue
        value_start, value_end = span
        skip = max(skip, value_end)
        if not _harmless(line[value_start:value_end].strip()):
            splice.mask(value_start, value_end)
    return splice.result()


_SEPARATOR = regex.compile(r"[:=]")
#: A verb just before a key word: the word is prose, not a key.
_VERB_BEFORE = regex.compile(r"\bvalidat(?:e|ing) $")


def _keys_before_separators(line: str) -> list[int]:
    """The last character of the word before each ``:`` or ``=`` (past spaces,
    quotes and backslashes), in order."""
    found: list[int] = []
    for match in _SEPARATOR.finditer(line):
        pos = match.start()
        floor = found[-1] + 1 if found else 0
        while pos > floor and line[pos - 1] in " \t\\'\"":
            pos -= 1
        if pos > floor and line[pos - 1] in _WORD_CHARS:
            found.append(pos - 1)
    return found


_OPTION = regex.compile(
    r"(?<!\S)(?P<name>--[A-Za-z][\w-]*(?:\*\*\*)?|--os\*\*\*)(?P<sep>=|[ \t]+)(?=[^\s-])"
)
_CREDENTIAL_COMMAND = regex.compile(r"(?<!application )\bcredential (?:create|set)\b")
_START = "start with options:"
#: A client's name where a typed command line starts it (after a shell prompt, an
#: xtrace ``+``, a quote or a backtick): from there on the line is an argv, and the
#: secrets only an argv reveals (swift's ``-K``, ``tempurl``'s key, ``credential
#: create``'s blob, ``token revoke``'s token) are found by the command-line rules.
_TYPED_CLIENT = regex.compile(
    r"(?:^|(?<=[\s$#>+`'\"(]))(?:"
    + "|".join(re.escape(p) for p in sorted(PROGRAMS, key=len, reverse=True))
    + r")(?=[ \t])"
)


def _redact_options(line: str, found: list[str] | None = None) -> str:
    """``--secret-option value`` and ``--secret-option=value`` anywhere in a line
    (a command pasted into a log, a wrapper's echo)."""
    allow_data = _CREDENTIAL_COMMAND.search(line) is not None
    splice = _Splice(line, found)
    for match in _OPTION.finditer(line):
        if match.start() < splice.cursor:
            continue
        name = match["name"]
        if not (name.endswith(MASK) or _is_secret_key(name, allow_data)):
            continue
        start = match.end()
        if line[start] in "'\"":
            start += 1
            end = _quoted_end(line, start, line[start - 1])
        else:
            run = _NON_SPACE.match(line, start)
            assert run is not None
            end = run.end()
        if not _harmless(line[start:end].strip()) and not _names_an_alternative(line, match, end):
            splice.mask(start, end)
    return splice.result()


#: What follows ``or`` when a client's message lists where a value may come from
#: ("--os-auth-token or env[OS_AUTH_TOKEN]", "--os-password or --os-cloud").
_ALTERNATIVE = regex.compile(r"[ \t]+(?:--?[A-Za-z]|env\[|\$?OS_[A-Z])")


def _names_an_alternative(line: str, match: re.Match[str], end: int) -> bool:
    """``--os-auth-token or env[OS_AUTH_TOKEN]`` in a client's message is prose: the
    word after the option joins it to the next place the value may come from."""
    return (
        match["sep"] != "="
        and line[match.end() : end] in ("or", "and", "nor")
        and _ALTERNATIVE.match(line, end) is not None
    )


#: curl's ``-u user:password`` (``--user``, ``--proxy-user``; spaced, ``=`` or
#: attached): the password after the first colon. (swift's ``-U account:user``
#: holds no password.)
_USER_OPTION = regex.compile(
    r"(?<!\S)(?:-u|--user|--proxy-user)(?:=|[ \t]+|(?=[^\s-]))['\"]?[^\s:'\"]*:(?P<pw>[^\s'\"]+)"
)


def _redact_user_option(line: str, found: list[str] | None = None) -> str:
    """``curl -u client:S``, ``curl --user client:S`` pasted beside a run."""
    splice = _Splice(line, found)
    for match in _USER_OPTION.finditer(line):
        if match["pw"] != MASK:
            splice.mask(match.start("pw"), match.end("pw"))
    return splice.result()


def _redact_start(line: str, low: str, found: list[str] | None = None) -> str:
    """osc-lib's ``START with options: <argv joined by spaces>``: the command-line
    redaction (``osdoctor.run.cmdline``), multi-word values included."""
    at = low.find(_START)
    if at == -1:
        return line
    head = at + len(_START)
    body_end = len(line.rstrip(_BREAKS))
    rest = line[head:body_end]
    lead = len(rest) - len(rest.lstrip(" "))
    redacted, values = redact_echoed_values(rest[lead:])
    if found is not None:
        found.extend(values)
    if redacted == rest[lead:]:
        return line
    return line[: head + lead] + redacted + line[body_end:]


def _redact_typed(line: str, low: str, found: list[str] | None = None) -> str:
    """A command line somebody typed or a wrapper echoed (``$ swift -K key stat``): the
    command-line redaction from the client's name on, as for osc-lib's START line."""
    # Words without which no typed line holds an argv-only secret.
    if not (" -k" in low or "tempurl" in low or "credential" in low or "revoke" in low):
        return line
    match = _TYPED_CLIENT.search(line)
    if match is None:
        return line
    head = match.start()
    body_end = len(line.rstrip(_BREAKS).rstrip("`'\")"))
    redacted, values = redact_typed_values(line[head:body_end])
    if found is not None:
        found.extend(values)
    return line[:head] + redacted + line[body_end:]


def _redact_url_credentials(line: str, found: list[str] | None = None) -> str:
    """``scheme://user:password@host``: the password of every userinfo, with or
    without a user (``redis://:password@host``), and of each host of a URL that
    names several (``rabbit://u:p1@ctl1:5672,u:p2@ctl2:5672/``)."""
    splice = _Splice(line, found)
    pos = line.find("://")
    while pos != -1:
        start = pos + 3
        authority = _AUTHORITY.match(line, start)
        assert authority is not None
        end = authority.end()
        if pos and line[pos - 1].isalnum() and "@" in authority.group():
            part_start = start
            for part in authority.group().split(","):
                at = part.rfind("@")
                colon = part.find(":", 0, at) if at > 0 else -1
                if colon != -1 and at > colon + 1 and part[colon + 1 : at] != MASK:
                    splice.mask(part_start + colon + 1, part_start + at)
                part_start += len(part) + 1
        pos = line.find("://", max(end, start))
    return splice.result()


def _redact_query(line: str, found: list[str] | None = None) -> str:
    """Secret query parameters in URLs: ``?token=S``, ``&signature=S``, and their
    URL-encoded forms inside another parameter (``?path=%3Ftoken%3DS``)."""
    splice = _Splice(line, found)
    for match in _QUERY.finditer(line):
        if match.start() < splice.cursor or not is_secret_name(match["name"]):
            continue
        start = match.end()
        encoded = match["sep"] != "=" or match.group()[0] == "%"
        value = (_ENCODED_VALUE if encoded else _QUERY_VALUE).match(line, start)
        assert value is not None
        end = value.end()
        if end > start and not _harmless(line[start:end]):
            splice.mask(start, end)
    return splice.result()


def _redact_patch(line: str, found: list[str] | None = None) -> str:
    """A JSON patch operation whose path names a secret: its ``"value"``
    (``{"op": "add", "path": "/driver_info/ipmi_password", "value": "S"}``)."""
    splice = _Splice(line, found)
    for match in _PATCH_PATH.finditer(line):
        segment = match["path"].rstrip("/").rpartition("/")[2]
        if not is_secret_name(segment):
            continue
        begin = line.rfind("{", splice.cursor, match.start())
        close = line.find("}", match.end())
        begin = splice.cursor if begin == -1 else begin
        close = len(line) if close == -1 else close
        value = _PATCH_VALUE.search(line, begin, close)
        if value is None or value.end() >= len(line) or line[value.end()] in "{[":
            continue
        start = value.end()
        if line[start] == '"':
            start += 1
            end = _quoted_end(line, start, '"')
        else:
            end = _bare_end(line, start)
        if start < splice.cursor or _harmless(line[start:end].strip()):
            continue
        splice.mask(start, end)
    return splice.result()


#: A key ``token`` whose value is an object: Keystone v2's ``{"access": {"token":
#: {"id": T}}}`` and the token method of an auth request (``"token": {"id": T}``).
_TOKEN_OBJECT = regex.compile(r"""(?P<q>['"])token(?P=q)[ \t]*:[ \t]*\{""", re.IGNORECASE)
#: What the walk through that object steps on: a quoted string or a bracket. A
#: string not closed runs to the line's end, and no quantifier gives back: a
#: string is never looked through twice, so the walk stays linear.
_OBJECT_ATOM = regex.compile(
    r""""(?:[^"\\]++|\\.?)*+(?:"|$)|'(?:[^'\\]++|\\.?)*+(?:'|$)|[{}\[\]]"""
)
#: What lies up to the next bracket, strings whole, as ``_OBJECT_ATOM`` steps on it.
_NO_BRACKET = regex.compile(
    r"""(?:[^"'{}\[\]]++|"(?:[^"\\]++|\\.?)*+(?:"|$)|'(?:[^'\\]++|\\.?)*+(?:'|$))*+"""
)
#: After a key ``id``: the separator and the value's opening quote (``u'`` in a repr).
_ID_VALUE = regex.compile(r"""[ \t]*:[ \t]*u?(?P<q>['"])""")


def _redact_token_ids(line: str, found: list[str] | None = None) -> str:
    """The ``id`` of a token object is the token itself, under a key that names no
    secret: only its own ``id`` is masked, not the ids of the objects inside it
    (Keystone v2's ``"tenant": {"id": ...}``, v3's ``"user": {"id": ...}``)."""
    splice = _Splice(line, found)
    pos = 0
    while (match := _TOKEN_OBJECT.search(line, pos)) is not None:
        depth = 0
        pos = len(line)
        scan = match.end() - 1
        while True:
            if depth >= 2:
                # Deeper than the token's own keys: only brackets matter, found
                # past the strings in one match (a catalog holds thousands).
                skipped = _NO_BRACKET.match(line, scan)
                assert skipped is not None
                scan = skipped.end()
            atom = _OBJECT_ATOM.search(line, scan)
            if atom is None:
                break
            scan = atom.end()
            text = atom.group()
            if text in ("{", "["):
                depth += 1
            elif text in ("}", "]"):
                depth -= 1
                if depth == 0:
                    pos = atom.end()
                    break
            elif depth == 1 and text[1:-1] == "id" and atom.start() >= splice.cursor:
                value = _ID_VALUE.match(line, atom.end())
                if value is None:
                    continue
                start = value.end()
                end = _quoted_end(line, start, value["q"])
                if not _harmless(line[start:end].strip()):
                    splice.mask(start, end)
    return splice.result()


def _redact_tokens(line: str, found: list[str] | None = None) -> str:
    """Fernet tokens and JSON Web Tokens, by their shape."""
    if "gAAAAA" in line:
        splice = _Splice(line, found)
        for match in FERNET.finditer(line):
            splice.mask(match.start(), match.end())
        line = splice.result()
    if "eyJ" in line:
        splice = _Splice(line, None)
        for start, end, masked in jwt_spans(line):
            if found is not None:
                found.append(line[start:end])
            splice.mask(start, end, masked)
        line = splice.result()
    return line


def _redact_key_material(line: str, found: list[str] | None = None) -> str:
    """The safety net: values that look like key material under any name or none
    (``osdoctor.secrets.keymaterial``)."""
    return _mask_spans(line, key_material_spans(line), found)


def _mask_spans(line: str, spans: list[tuple[int, int]], found: list[str] | None) -> str:
    """``line`` with each of ``spans`` (in order, not overlapping) masked."""
    if not spans:
        return line
    splice = _Splice(line, found)
    for start, end in spans:
        if start >= splice.cursor:
            splice.mask(start, end)
    return splice.result()


def _redact_table_row(line: str, found: list[str] | None = None) -> str:
    """``| secret | S |``: a Field/Value table row whose field names a secret."""
    body_end = len(line.rstrip(_BREAKS))
    first = line.find("|", 0, body_end)
    if first == -1 or line[:first].strip(" \t"):
        return line
    second = line.find("|", first + 1, body_end)
    last = line.rfind("|", 0, body_end)
    if second == -1 or last <= second or line[last + 1 : body_end].strip(" \t"):
        return line
    if not _is_secret_key(line[first + 1 : second].strip(" \t")):
        return line
    value = line[second + 1 : last]
    inner = value.strip(" \t")
    if _harmless(inner) or inner[:1] in "{[":
        return line
    if found is not None:
        found.append(inner)
    lead = len(value) - len(value.lstrip(" \t"))
    trail = len(value) - len(value.rstrip(" \t"))
    return line[: second + 1 + lead] + MASK + line[last - trail :]


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _positional_lower(line: str) -> str:
    """``line`` lowercased with every character at its place (``"İ".lower()`` is two)."""
    return line.lower() if line.isascii() else line.translate(_ASCII_LOWER)


def _redact(
    line: str, low: str, extra: frozenset[str] = frozenset(), found: list[str] | None = None
) -> str:
    """Run every rule whose trigger word is in ``low`` (the lowercased line).

    ``extra`` names more secret keys (learnt from the log); ``found``, when given,
    receives every value a rule masked by where it stood.
    """
    if len(low) != len(line):
        low = _positional_lower(line)  # so that positions in ``low`` match ``line``
    given = line
    if "value" in low:
        line = _mask_spans(line, sibling_spans(line), found)
    if "chpasswd" in low or ("\\n" in line and starts_a_list(low)):
        line = _mask_spans(line, password_list_spans(line), found)
    if line is not given:
        low = _positional_lower(line)
    original = line
    if "-----begin " in low:
        line = PEM_INLINE.sub(lambda m: m[1] + MASK + m[3], line)
    if "@" in low and "://" in low:
        line = _redact_url_credentials(line, found)
    if "temp_url_sig" in low:
        line = _TEMP_URL_SIG.sub(lambda m: m[1] + MASK, line)
    if "=" in low or "%3d" in low:
        line = _redact_query(line, found)
    if _START in low:
        line = _redact_start(line, low, found)
    else:
        line = _redact_typed(line, low, found)
        if "--" in low:
            line = _redact_options(line, found)
    if " -u" in low or "-user" in low or low.startswith("-u"):
        line = _redact_user_option(line, found)
    if '"path"' in low:
        line = _redact_patch(line, found)
    if "token" in low and "{" in line:
        line = _redact_token_ids(line, found)
    line = _redact_key_values(
        line, low if line is original else _positional_lower(line), extra, found
    )
    if "|" in low:
        line = _redact_table_row(line, found)
    if "=" in line:
        line = mask_options(line, found)  # a configuration dump's value, spaces and all
    line = _redact_tokens(line, found)
    return _redact_key_material(line, found)


def _may_hold_secret(low: str) -> bool:
    return (
        "pass" in low
        or "secret" in low
        or "token" in low
        or "key" in low
        or "@" in low
        or "gaaaaa" in low
        or "eyj" in low
        or "blob" in low
        or "cookie" in low
        or "auth" in low
        or "sig" in low
        or "access" in low
        or "data" in low
        or "cred" in low
        or "pwd" in low
        or "payload" in low
        or " -k" in low
        or "tempurl" in low
        or "hash" in low
        or "kek" in low
        or "psk" in low
        or "bearer" in low
        or " -u" in low
        or "-user" in low
        or "value" in low
        or "chpasswd" in low
    )


def redact_line(line: str) -> str:
    """``line`` with every secret value replaced by ``***``; the rest unchanged.

    A trailing line break is kept. Idempotent: redacting twice changes nothing more.
    """
    low = line.lower()
    if not _may_hold_secret(low):
        return _redact_key_material(line)
    return _redact(line, low)


def contains_secret(line: str) -> bool:
    """Whether ``redact_line`` would change ``line``."""
    return redact_line(line) != line


# --- many lines at once ------------------------------------------------------------


#: Lines longer than this are redacted each time, not remembered.
_REMEMBER_LINE = 4096
#: Results remembered per stream (a polling log repeats its lines thousands of times).
_REMEMBER_LINES = 4096


class StreamRedactor:
    """Redacts the lines of one stream in order: ``redact_line``, plus what only
    the lines before can tell (see ``osdoctor.secrets.secretstream``): the body of a
    multi-line PEM private key (``keypair create`` prints one), whose lines
    carry no trigger word of their own; the cells of a table's secret columns;
    values masked earlier wherever they show again (a bare ``-f value``
    line, an access key in a URL path); hidden Heat parameters.

    The redactors of one log's streams share a ``SecretMemory``. ``bare``
    marks a stream that holds nothing but secret values (the stdout of
    ``-f value -c secret``): each of its lines is masked whole.
    """

    __slots__ = (
        "memory",
        "bare",
        "_pem",
        "_tables",
        "_siblings",
        "_passwords",
        "_wrapped",
        "_seen",
        "_generation",
        "_seen_at",
        "_older",
        "_older_at",
    )

    def __init__(self, memory: SecretMemory | None = None, bare: bool = False) -> None:
        self.memory = memory if memory is not None else SecretMemory()
        self.bare = bare
        self._pem = False
        self._tables = TableColumns()
        self._siblings = SiblingFields()
        self._passwords = PasswordList()
        # The last line ended inside a token a terminal wrapped.
        self._wrapped = False
        self._seen: dict[str, str] = {}
        self._generation = self.memory.generation
        # What the results in ``_seen`` were redacted with (forms learnt, names).
        self._seen_at = self._mark()
        # The results of the memory before the last lesson, and what they knew.
        self._older: dict[str, str] = {}
        self._older_at = self._seen_at

    @property
    def inside(self) -> bool:
        """True inside a private key block, a table, a list of passwords, a pair of
        sibling fields or a wrapped token: lines depend on the ones before."""
        return (
            self._pem
            or self._tables.active
            or self._siblings.active
            or self._passwords.active
            or self._wrapped
        )

    def feed(self, line: str) -> str:
        """``line`` redacted, with everything learnt so far."""
        if self._pem:
            end = PEM_END.search(line)
            if end is None:
                body = line.rstrip(_BREAKS)
                return (MASK if body.strip() else body) + line[len(body) :]
            self._pem = False
            return self._full(line)
        if self.bare:
            body = line.rstrip(_BREAKS)
            return (MASK if body.strip() else body) + line[len(body) :]
        raw = line.rstrip(_BREAKS)
        again = False
        if self._wrapped:
            # The rest of a token the line before ended with, wrapped by a terminal.
            masked, piece, again = continue_token(raw)
            if piece:
                self.memory.literals.add([piece])
                line = masked + line[len(raw) :]
        if "-----BEGIN" in line:
            begins = list(PEM_BEGIN.finditer(line))
            if begins and PEM_END.search(line, begins[-1].end()) is None:
                self._pem = True
            done = self._full(line)
        elif line[:1] in "+|" or self.inside or len(line) > _REMEMBER_LINE:
            done = self._full(line)
        else:
            done = self._remembered(line)
        self._wrapped = again or ends_in_token(raw, done.rstrip(_BREAKS))
        return done

    def _remembered(self, line: str) -> str:
        """``line`` redacted, from what was remembered of it when that still holds."""
        literals = self.memory.literals  # its generation is the memory's
        if self._generation != literals.generation:
            self._age()  # learnt elsewhere (a token in a response, the other stream)
        seen = self._seen
        done = seen.get(line)
        if done is None:
            done = self._earlier(line)
            if done is None:
                done = self._full(line)
                if self._generation != literals.generation:
                    # Learnt from this line: what was remembered is of an older memory.
                    self._age()
                    seen = self._seen
            if self.inside:
                return done  # it began a state: the same line again must begin it too
            if len(seen) >= _REMEMBER_LINES:
                seen.clear()
            seen[line] = done
        return done

    def carry_on(self, previous: StreamRedactor) -> None:
        """Take over what ``previous`` (the previous run's redactor, whose memory
        this one's copied) remembered: a log of many runs repeats its settings
        lines in every run, and each run learns a token of its own."""
        if previous.memory.names == self.memory.names and (
            previous.memory.literals.forms() == self.memory.literals.forms()
        ):
            self._seen = {}
            self._seen_at = self._mark()
            self._generation = self.memory.literals.generation
            self._older, self._older_at = previous._seen, previous._seen_at

    def _across_lines(self, line: str, low: str, found: list[str]) -> str:
        """What the lines before say of this one: a value whose name a sibling field
        gave (or the value that a sibling field names afterwards, learnt), and a
        password in a list that a line above announced."""
        body = line.rstrip(_BREAKS)
        if self._siblings.active or "value" in low or _may_hold_secret(low):
            spans, learnt = self._siblings.feed(body)
            line = _mask_spans(line, spans, found)
            found.extend(learnt)
            body = line.rstrip(_BREAKS)
        if self._passwords.active or starts_a_list(low):
            line = _mask_spans(line, self._passwords.feed(body), found)
        return line

    def _mark(self) -> tuple[int, frozenset[str]]:
        return self.memory.literals.learnt, self.memory.names

    def _age(self) -> None:
        """The memory learnt: the results so far become the older ones."""
        self._older, self._older_at = self._seen, self._seen_at
        self._seen = {}
        self._seen_at = self._mark()
        self._generation = self.memory.literals.generation

    def _earlier(self, line: str) -> str | None:
        """A result of the memory before the last lesson, if still true: nothing
        learnt since (no new name, no new value) is in ``line``. A value since
        forgotten stays masked in it, which is the safe way to be wrong."""
        done = self._older.get(line)
        if done is None:
            return None
        learnt, names = self._older_at
        if names != self.memory.names:
            return None
        fresh = self.memory.literals.since(learnt)
        if fresh is None or any(form in line for form in fresh):
            return None
        return done

    def _full(self, line: str) -> str:
        memory = self.memory
        literals = memory.literals
        line = literals.mask(line)
        if "hidden" in line:
            names, defaults = hidden_parameters(line)
            if names:
                memory.learn_names(names)
                literals.add(defaults)
                line = literals.mask(line)
        low = line.lower()
        found: list[str] = []
        line = self._across_lines(line, low, found)
        if found:
            low = _positional_lower(line)
        # A name learnt from the log (a hidden Heat parameter) matters only on a
        # line that holds it: the others take the same rules as any line.
        if _may_hold_secret(low) or (memory.names and any(name in line for name in memory.names)):
            line = _redact(line, low, memory.names, found)
        else:
            line = _redact_key_material(line, found)
        if found:
            before = literals.generation
            literals.add(found)
            if literals.generation != before:
                line = literals.mask(line)
        if line[:1] in "+|" or self._tables.active:
            line = self._tables.feed(line, line.rstrip(_BREAKS))
        return line


#: The name this class had when it masked private keys only.
PemMasker = StreamRedactor


def _redact_batch(lines: list[str], stream: StreamRedactor) -> list[str]:
    """Redact ``lines`` in place. Without any state in play, the trigger words, and
    the runs the safety net judges, are looked for over the joined batch at C
    speed, and only the lines holding one go through the rules (and the lines
    after one that begins a state, until it ends); otherwise line by line."""
    text = "".join(lines)
    memory = stream.memory
    if (
        stream.inside
        or stream.bare
        or memory.literals
        or memory.names
        or "-----BEGIN" in text
        or "\n+-" in text
        or "\n|" in text
        or text[:1] in "+|"
    ):
        return [stream.feed(line) for line in lines]
    low = _positional_lower(text)
    ends = list(accumulate(map(len, lines)))
    hits: set[int] = set()
    for trigger in _TRIGGERS:
        pos = low.find(trigger)
        while pos != -1:
            index = bisect_right(ends, pos)
            hits.add(index)
            pos = low.find(trigger, ends[index])
    pos = next_run(text, 0)
    while pos != -1:
        index = bisect_right(ends, pos)
        hits.add(index)
        pos = next_run(text, ends[index])
    following = 0
    for index in sorted(hits):
        if index < following:
            continue
        lines[index] = stream.feed(lines[index])
        following = index + 1
        while stream.inside and following < len(lines):
            lines[following] = stream.feed(lines[following])
            following += 1
    return lines


def redact_lines(lines: Iterable[str], batch: int = 256) -> Iterator[str]:
    """Redact a stream of lines, batch by batch (the fast path for a whole log).

    Lines come out one for one, in order, each with its own line break; a
    multi-line PEM private key is masked line by line.
    """
    iterator = iter(lines)
    stream = StreamRedactor()
    while chunk := list(islice(iterator, batch)):
        yield from _redact_batch(chunk, stream)


def redact_text(text: str) -> str:
    """``text`` with every secret masked, line by line; the line count is unchanged.
    A value learnt only after the line that held it (a sibling field naming it
    below) is masked there too."""
    lines = text.splitlines(keepends=True)
    stream = StreamRedactor()
    redacted = "".join(_redact_batch(lines, stream))
    literals = stream.memory.literals
    return literals.mask(redacted) if literals else redacted
