"""Secret redaction for OpenStack client ``--debug`` output.

Every line osdoctor reads passes through here before it is stored, so a
secret never reaches a report, a saved session or the screen. The clients
mask only part of what they print (keystoneauth hashes token headers,
osc-lib masks ``--password`` and a few ``key=`` pairs, swiftclient keeps 16
characters); request and response bodies, cliff's ``Namespace(...)`` lines,
printed tables, URLs with credentials and several headers go out in clear.

A secret value is replaced by ``***`` and its key stays, so the line is
still readable: ``"password": "***"``, ``X-Auth-Token: ***``,
``temp_url_sig=***``, ``http://user:***@host``. Hashes the clients already
made (``{SHA256}...``, ``{SHA1}...``) are kept: they are not secret and they
correlate requests. Redaction never adds or removes a line break, so line
numbers stay valid, and it is idempotent.

Speed: most debug lines hold no secret. A line is scanned by the rules only
when its lowercased text contains one of a few trigger words; ``redact_lines``
and ``redact_text`` go further and find the trigger words in a whole batch
of lines at once, at C speed, and run the rules on those lines only.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from itertools import accumulate, islice

__all__ = ["MASK", "PemMasker", "contains_secret", "redact_line", "redact_lines", "redact_text"]

MASK = "***"
"""What a secret value becomes."""

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
    "authoriz",
    "_sig",
    "access",
    "data",
    "credential",
)

#: Characters that end a line for ``str.splitlines``: a value never runs past one.
_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
_BREAK_RE = re.compile("[" + _BREAKS + "]")

#: Scalar values that say nothing secret and stay as they are.
_HARMLESS_VALUES = frozenset(
    {"", MASK, "none", "null", "true", "false", "<redacted>", "******", "unset"}
)

# --- which keys hold secrets ---------------------------------------------------

_SECRET_KEYS = frozenset(
    {
        "blob",
        "access",
        "private_key",
        "auth_key",
        "priv_key",
        "api_key",
        "access_key",
        "secret_key",
        "temp_url_key",
        "temp_url_key_2",
        "cookie",
        "set_cookie",
        "authorization",
        "proxy_authorization",
    }
)
_SECRET_KEY_SUFFIXES = ("_auth_key", "_priv_key", "_private_key", "temp_url_key", "temp_url_key_2")
#: Fragments of key names that carry a secret.
_SECRET_FRAGMENTS = ("pass", "secret", "token")
#: Fragments of key names that look secret but hold metadata (a date, a flag, a type).
_METADATA_FRAGMENTS = (
    "expir",
    "prompt",
    "lockout",
    "_type",
    "endpoint",
    "_url",
    "_uri",
    "_file",
    "regex",
    "policy",
    "length",
    "hint",
    "passthrough",
    "upon_first_use",
    "_ref",
)
_METADATA_PREFIXES = ("ignore_", "no_", "enable_", "disable_", "is_", "has_")


def _is_secret_key(name: str, allow_data: bool = False) -> bool:
    """Whether a key, option or table field called ``name`` holds a secret value.

    ``allow_data`` adds ``data``, which is the secret blob of ``credential
    create``/``set`` in cliff's Namespace lines and option lists.
    """
    key = name.strip().strip("-").lower().replace("-", "_").replace(" ", "_")
    if key in _SECRET_KEYS or (allow_data and key == "data"):
        return True
    if key.endswith(_SECRET_KEY_SUFFIXES):
        return True
    if not any(fragment in key for fragment in _SECRET_FRAGMENTS):
        return False
    if key.endswith("_at") or key.startswith(_METADATA_PREFIXES):
        return False
    return not any(fragment in key for fragment in _METADATA_FRAGMENTS)


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
    quote: re.compile(r"(?:[^" + quote + r"\\" + _NOT_BREAK + r"]|\\[^" + _NOT_BREAK + r"])*")
    for quote in "'\""
}
_BARE = re.compile(r"[^\s'\",;&)\]}]*")
_NON_SPACE = re.compile(r"\S*")


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

_URL_CREDENTIALS = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*://[^\s/@:'\"]+:)([^\s/@'\"]+)(?=@)")
_TEMP_URL_SIG = re.compile(r"(temp_url_sig=)([^&\s'\"]+)", re.IGNORECASE)
_FERNET = re.compile(r"gAAAAA[A-Za-z0-9_-]{20,}={0,2}")
_JWT = re.compile(r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")
_PEM_INLINE = re.compile(
    r"(-----BEGIN [A-Z ]*PRIVATE KEY-----)(.+?)(-----END [A-Z ]*PRIVATE KEY-----|$)"
)

#: Words, lowercase, of which a secret key's name holds at least one.
_KEY_WORDS = ("pass", "secret", "token", "blob", "key", "access", "data", "cookie", "authoriz")
_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
#: From a key's first character: the key, its closing quote and the separator.
_KEY_TAIL = re.compile(r"[A-Za-z_][\w-]*(?P<rq>\\*['\"]|)[ \t]*(?P<sep>[:=])[ \t]*")
#: A following header in keystoneauth's one-line ``RESP: [200] A: x B: y`` form.
_NEXT_HEADER = re.compile(r"[ \t]+[A-Za-z][A-Za-z0-9-]*:[ \t]")


def _candidates(low: str, words: tuple[str, ...]) -> list[int]:
    """Sorted positions of ``words`` in ``low``."""
    found: list[int] = []
    for word in words:
        pos = low.find(word)
        while pos != -1:
            found.append(pos)
            pos = low.find(word, pos + len(word))
    found.sort()
    return found


def _value_span(
    line: str, start: int, lq: str, rq: str, sep: str, key: str, key_start: int
) -> tuple[int, int] | None:
    """Where the value of a secret key begins and ends, or None when it is a
    structure (whose own keys are looked at one by one) or absent."""
    if start >= len(line):
        return None
    first = line[start]
    if first in "{[(":
        return None
    if first in "'\"":
        return start + 1, _quoted_end(line, start + 1, first)
    if first == "\\":
        # JSON inside a JSON string: \"db_password\": \"S\"
        quote_at = len(line) - len(line[start:].lstrip("\\"))
        if quote_at >= len(line) or line[quote_at] not in "'\"":
            return None
        eol = _line_end(line, start)
        end = line.find(line[start : quote_at + 1], quote_at + 1, eol)
        return quote_at + 1, end if end != -1 else eol
    if lq and not rq:
        # -H "X-Auth-Token: v" or 'db_password=S' in a quoted list item; inside a
        # JSON string the quotes are escaped (-H \"X-Auth-Token: v\"): the value
        # stops before the backslash, which must stay for the JSON to stay valid.
        eol = _line_end(line, start)
        closer = "\\" + lq if key_start >= 1 and line[key_start - 1] == "\\" else lq
        end = line.find(closer, start, eol)
        return start, end if end != -1 else eol
    if sep == ":" and not lq:
        normal = key.lower().replace("-", "_")
        if normal in _HEADER_KEYS:
            # keystoneauth's RESP line: the value runs to the next header.
            eol = _line_end(line, start)
            following = _NEXT_HEADER.search(line, start, eol)
            return start, len(line[: following.start() if following else eol].rstrip())
        if not line[:key_start].strip(" -"):
            # A YAML mapping line ``secret: S``: the value is the rest of the line.
            return start, len(line[: _line_end(line, start)].rstrip())
    return start, _bare_end(line, start)


def _redact_key_values(line: str, low: str) -> str:
    """Mask the value of every secret key: JSON, Python reprs, ``key=value``, YAML,
    headers in curl, RESP and dict forms."""
    positions = _candidates(low, _KEY_WORDS)
    if not positions:
        return line
    allow_data = "Namespace(" in line
    pieces: list[str] = []
    cursor = 0
    last_word = -1
    for pos in positions:
        if pos < cursor:
            continue
        word = pos
        while word > 0 and line[word - 1] in _WORD_CHARS:
            word -= 1
        if word == last_word or word < cursor:
            continue
        last_word = word
        if word and line[word - 1] in "/.":
            # A path or host segment (``/v3/auth/tokens: ...``), not a key.
            continue
        match = _KEY_TAIL.match(line, word)
        if match is None:
            continue
        key = line[word : match.start("rq")]
        lq = line[word - 1] if word and line[word - 1] in "'\"" else ""
        rq = match["rq"].lstrip("\\")
        if (rq and lq != rq) or not _is_secret_key(key, allow_data):
            continue
        span = _value_span(line, match.end(), lq, rq, match["sep"], key, word - len(lq))
        if span is None:
            continue
        value_start, value_end = span
        if not _harmless(line[value_start:value_end].strip()):
            pieces.append(line[cursor:value_start])
            pieces.append(MASK)
            cursor = value_end
    if not pieces:
        return line
    pieces.append(line[cursor:])
    return "".join(pieces)


_OPTION = re.compile(
    r"(?<!\S)(?P<name>--[A-Za-z][\w-]*(?:\*\*\*)?|--os\*\*\*)(?P<sep>=|[ \t]+)(?=[^\s-])"
)
_TABLE_ROW = re.compile(
    r"^(?P<lead>[ \t]*\|[ \t]*)(?P<key>[^|]*?)(?P<mid>[ \t]*\|[ \t]*)(?P<val>.*?)"
    r"(?P<tail>[ \t]*\|[ \t]*)$"
)
_CREDENTIAL_COMMAND = re.compile(r"(?<!application )\bcredential (?:create|set)\b")
#: ``credential create`` options that take a value (the others are flags).
_CREDENTIAL_VALUE_OPTIONS = frozenset({"--type", "--project", "--project-domain", "--user"})


def _mask_span(text: str, start: int, end: int) -> tuple[str, int]:
    """Replace ``text[start:end]`` by the mask unless it is harmless; returns the new
    text and the index just past the (possibly masked) value."""
    value = text[start:end]
    if _harmless(value.strip()):
        return text, end
    return text[:start] + MASK + text[end:], start + len(MASK)


def _redact_options(line: str) -> str:
    allow_data = _CREDENTIAL_COMMAND.search(line) is not None
    pos = 0
    while True:
        match = _OPTION.search(line, pos)
        if match is None:
            return line
        pos = match.end()
        name = match["name"]
        if not (name.endswith(MASK) or _is_secret_key(name, allow_data)):
            continue
        start = match.end()
        first = line[start]
        if first in "'\"":
            end = _quoted_end(line, start + 1, first)
            line, pos = _mask_span(line, start + 1, end)
        else:
            match = _NON_SPACE.match(line, start)
            assert match is not None
            line, pos = _mask_span(line, start, match.end())


def _redact_credential_blob(line: str) -> str:
    """``credential create [--type T] [--project P] <user> <data>``: the data is the
    second positional argument, unmasked in osc-lib's ``START with options``."""
    match = _CREDENTIAL_COMMAND.search(line)
    if match is None or not match.group().endswith("create"):
        return line
    body = line.rstrip(_BREAKS)
    words = body[match.end() :].split(" ")
    positional: list[int] = []
    skip = False
    for index, word in enumerate(words):
        if skip:
            skip = False
        elif word.startswith("-"):
            skip = word in _CREDENTIAL_VALUE_OPTIONS or word.startswith("--os-")
        elif word:
            positional.append(index)
    if len(positional) < 2:
        return line
    index = positional[1]
    if not _harmless(words[index]):
        words[index] = MASK
    return line[: match.end()] + " ".join(words) + line[len(body) :]


def _redact_table_row(line: str) -> str:
    match = _TABLE_ROW.match(line.rstrip(_BREAKS))
    if match is None or not _is_secret_key(match["key"]):
        return line
    value = match["val"]
    if _harmless(value.strip()) or value.lstrip()[:1] in "{[":
        return line
    return match["lead"] + match["key"] + match["mid"] + MASK + match["tail"] + line[match.end() :]


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _positional_lower(line: str) -> str:
    """``line`` lowercased with every character at its place (``"İ".lower()`` is two)."""
    return line.lower() if line.isascii() else line.translate(_ASCII_LOWER)


def _redact(line: str, low: str) -> str:
    """Run every rule whose trigger word is in ``low`` (the lowercased line)."""
    if len(low) != len(line):
        low = _positional_lower(line)  # so that positions in ``low`` match ``line``
    original = line
    if "private key-----" in low:
        line = _PEM_INLINE.sub(lambda m: m[1] + MASK + m[3], line)
    if "@" in low and "://" in low:
        line = _URL_CREDENTIALS.sub(lambda m: m[0] if m[2] == MASK else m[1] + MASK, line)
    if "temp_url_sig" in low:
        line = _TEMP_URL_SIG.sub(lambda m: m[1] + MASK, line)
    if "--" in low:
        line = _redact_options(line)
        if "credential create" in low and "start with options" in low:
            line = _redact_credential_blob(line)
    line = _redact_key_values(line, low if line is original else _positional_lower(line))
    if "|" in low:
        line = _redact_table_row(line)
    if "gAAAAA" in line:
        line = _FERNET.sub(MASK, line)
    if "eyJ" in line:
        line = _JWT.sub(MASK, line)
    return line


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
        or "authoriz" in low
        or "_sig" in low
        or "access" in low
        or "data" in low
        or "credential" in low
    )


def redact_line(line: str) -> str:
    """``line`` with every secret value replaced by ``***``; the rest unchanged.

    A trailing line break is kept. Idempotent: redacting twice changes nothing more.
    """
    low = line.lower()
    if not _may_hold_secret(low):
        return line
    return _redact(line, low)


def contains_secret(line: str) -> bool:
    """Whether ``redact_line`` would change ``line``."""
    return redact_line(line) != line


# --- many lines at once ------------------------------------------------------------

_PEM_BEGIN = re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----")
_PEM_END = re.compile(r"-----END [A-Z ]*PRIVATE KEY-----")


class PemMasker:
    """Redacts line by line like ``redact_line`` and also masks the body of a
    multi-line PEM private key (``keypair create`` prints one), whose lines
    carry no trigger word of their own."""

    __slots__ = ("inside",)

    def __init__(self) -> None:
        self.inside = False

    def feed(self, line: str) -> str:
        """``line`` redacted; a line inside a private key block becomes ``***``."""
        if self.inside:
            end = _PEM_END.search(line)
            if end is None:
                body = line.rstrip(_BREAKS)
                return (MASK if body.strip() else body) + line[len(body) :]
            self.inside = False
            return redact_line(line)
        begins = list(_PEM_BEGIN.finditer(line))
        if begins and _PEM_END.search(line, begins[-1].end()) is None:
            self.inside = True
        return redact_line(line)


def _redact_batch(lines: list[str], pem: PemMasker) -> list[str]:
    """Redact ``lines`` in place: the trigger words are looked for over the joined
    batch at C speed, and only the lines holding one go through the rules."""
    text = "".join(lines)
    if pem.inside or "PRIVATE KEY-----" in text:
        return [pem.feed(line) for line in lines]
    low = _positional_lower(text)
    ends = list(accumulate(map(len, lines)))
    hits: set[int] = set()
    for trigger in _TRIGGERS:
        pos = low.find(trigger)
        while pos != -1:
            index = bisect_right(ends, pos)
            hits.add(index)
            pos = low.find(trigger, ends[index])
    for index in hits:
        line = lines[index]
        lines[index] = _redact(line, _positional_lower(line))
    return lines


def redact_lines(lines: Iterable[str], batch: int = 256) -> Iterator[str]:
    """Redact a stream of lines, batch by batch (the fast path for a whole log).

    Lines come out one for one, in order, each with its own line break; a
    multi-line PEM private key is masked line by line.
    """
    iterator = iter(lines)
    pem = PemMasker()
    while chunk := list(islice(iterator, batch)):
        yield from _redact_batch(chunk, pem)


def redact_text(text: str) -> str:
    """``text`` with every secret masked, line by line; the line count is unchanged."""
    lines = text.splitlines(keepends=True)
    return "".join(_redact_batch(lines, PemMasker()))
