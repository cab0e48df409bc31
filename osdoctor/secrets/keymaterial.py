"""Values that look like key material, whatever name they stand under: the safety net.

The other rules mask what a name says is secret (``osdoctor.secrets.secretnames``) or
what a known structure holds; every new shape of output used to need one more
of them, and a secret under a name no rule knows went out in clear. These
rules need no name, only the value:

- Fernet tokens (``gAAAAA...``) and JSON Web Tokens (``eyJ...``.``eyJ...``.``...``);
- the body of a PEM block of any kind (a private key, a certificate);
- a run of base64 or base64url characters that looks drawn at random: long
  enough, with a mixed alphabet, not made of words, and of high Shannon entropy.

The entropy limits are detect-secrets' (Base64HighEntropyString 4.5 bits a
character, HexHighEntropyString 3.0), which are both three quarters of the
most a character of their alphabet carries (6 and 4 bits). A string of n
characters carries at most log2(n) bits a character whatever its alphabet, so
that a random 32-character password (5 bits at most) stays under 4.5 one time
in three: the same three quarters are taken of the most a string of its
length can carry, ``min(log2 n, 6)`` (``min(log2 n, 4)`` for hex), which is
detect-secrets' own limit from 64 characters on (16 for hex).

OpenStack's identifiers stay readable: UUIDs, 32-hex ids, request ids
(``req-...``, Swift's ``tx...``), ``AUTH_<id>`` accounts, the hashes the clients
made (``{SHA256}...``), digests under a key that says what they are (checksum,
hash, etag, fingerprint, an id), SSH public keys, and anything made of words
(paths, CamelCase names, snake_case keys). Work is linear in the line: one
search for runs, each run judged once (and remembered: a log repeats them).
"""

from __future__ import annotations

import math
from collections import Counter
from functools import lru_cache

from osdoctor import regex
from osdoctor.secrets.secretnames import MASK, normal_name

__all__ = [
    "FERNET",
    "PEM_BEGIN",
    "PEM_END",
    "PEM_INLINE",
    "is_pem_body",
    "jwt_spans",
    "key_material_spans",
    "looks_random",
    "mask_jwts",
    "shannon_entropy",
]

#: Shortest run judged by its entropy: shorter ones are words and small ids.
MIN_RUN = 16
#: detect-secrets' limits, as the share of the most a character can carry.
_SHARE = 0.75
_BASE64_BITS = 6.0
_HEX_BITS = 4.0

FERNET = regex.compile(r"gAAAAA[A-Za-z0-9_-]{20,}={0,2}")
#: A run of base64 or base64url characters, with its padding.
_RUN = regex.compile(r"[A-Za-z0-9+/_-]{" + str(MIN_RUN) + r",}(?:={1,2}(?![A-Za-z0-9+/_=-]))?")
_JWT_RUN = regex.compile(r"[A-Za-z0-9_.-]+")
_SEPARATORS = regex.compile(r"[/+_-]")
#: The pieces of CamelCase: a word, an acronym, a number (``v3``, ``Key0``), and the
#: last capital of an acronym before a word (``HTTPSConnection``).
_CAMEL_WORDS = regex.compile(
    r"[A-Z]?[a-z]{2,}|[A-Z][a-z]|[A-Z]{2,6}(?![a-z])|[a-z]?[0-9]{1,4}(?:[a-z](?![a-z]))?"
    r"|[A-Z](?=[A-Z][a-z]|$)"
)
#: A word for sure: three lowercase letters, or capitals alone (``AUTH``).
_WORD = regex.compile(r"[a-z]{3,}|^[A-Z]{2,}[0-9]*$")
_VOWEL = regex.compile(r"[aeiouyAEIOUY]")
_CLUSTER = regex.compile(r"[b-df-hj-np-tv-xzB-DF-HJ-NP-TV-XZ]{4,}")
#: Four consonants in a row that English words do have (``Length``, ``Attempts``).
_ENGLISH_CLUSTERS = frozenset(
    {"ngth", "ghts", "mpts", "nstr", "rstr", "ngst", "ndst", "rths", "chts"}
)
_HEX = regex.compile(r"[0-9a-f]+|[0-9A-F]+")
#: Identifiers whose characters look random: UUIDs, request ids, Swift's
#: transaction ids, accounts.
_IDENTIFIER = regex.compile(
    r"(?:req-|tx)?[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}"
    r"|tx[0-9a-f]{21,}-[0-9a-f]{10}[A-Za-z0-9_-]*|AUTH_[0-9a-fA-F]{32}|[0-9a-fA-F]{32}"
)
#: Identifiers inside a run: UUIDs and 32-hex ids in a path, and the digest that
#: names a Nix store path (``/nix/store/<32 of base32>-python3.12-webob-1.8.8``).
_IDENTIFIER_IN = regex.compile(
    r"(?<![0-9a-fA-F])(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
    r"|[0-9a-fA-F]{32})(?![0-9a-fA-F])|(?<=nix/store/)[0-9a-z]{32}(?=-)"
)
#: What stands before a value that is an SSH public key or a client's hash, read
#: backwards from the value (each test below is anchored there: no scan).
_KEPT_AFTER = regex.compile(
    r"[ \t]+(?:asr|ssd|91552de)-hss|[ \t]+\d+ptsin-2ahs-asdce|[ \t]+moc\.hssnepo@\S+-ks|\}\d*AHS\{"
)
#: Words of a key whose value is an identifier or a digest, not a secret.
_IDENTIFYING = frozenset(
    {
        "id",
        "ids",
        "uuid",
        "uuids",
        "checksum",
        "checksums",
        "hash",
        "md5",
        "sha1",
        "sha224",
        "sha256",
        "sha384",
        "sha512",
        "etag",
        "digest",
        "fingerprint",
        "request",
        "trans",
        "commit",
        "revision",
        "serial",
    }
)
_KEY_WORDS = regex.compile(r"[a-z]+|[0-9]+")
#: Before a value: its key, separator and quotes (``"checksum": "``, ``ETag: ``,
#: ``audit_ids=['``), read backwards from the value.
_KEY_BEFORE = regex.compile(r"""(?:['"]u?)?[\[(]?[ \t]*[:=][ \t]*['"]?([\w.-]{1,64})""")
_REACH = 80
_TABLE_KEY = regex.compile(r"[ \t]*\|([^|]{1,64})\|")


def shannon_entropy(text: str) -> float:
    """Bits a character of ``text``, from the frequency of each character in it."""
    size = len(text)
    if not size:
        return 0.0
    return -sum(n / size * math.log2(n / size) for n in Counter(text).values())


def _high_entropy(text: str, bits: float) -> bool:
    most = min(math.log2(len(text)), bits)
    return shannon_entropy(text) >= _SHARE * most


def _wordy(text: str) -> bool:
    """Made of words (``OpenStack``, ``python3``, ``v3applicationcredential``,
    ``HeatAuthEncryptionKey``, ``HTTPSConnectionPool``) rather than drawn at
    random: the whole of it reads as CamelCase words, acronyms and small numbers,
    three characters long on average, with few digits, and its words read as
    words (a vowel, never four consonants in a row but as in ``Length``: random
    letters give ``qzkdf``)."""
    if text.isalpha() and text.isupper():
        return True
    if text.isalpha() and text.islower():
        return _reads_as_a_word(text)
    pieces: list[str] = []
    at = 0
    for match in _CAMEL_WORDS.finditer(text):
        if match.start() != at:
            return False
        pieces.append(match.group())
        at = match.end()
    if at != len(text) or len(text) < 3 * len(pieces):
        return False  # words are longer than random text's pieces (two characters)
    if sum(c.isdigit() for c in text) * 7 > len(text):
        return False
    if sum(piece.isupper() for piece in pieces) > max(1, len(pieces) // 4):
        return False  # acronym after acronym: random capitals
    return not any(
        piece.isalpha() and not piece.isupper() and not _reads_as_a_word(piece) for piece in pieces
    )


def _reads_as_a_word(piece: str) -> bool:
    if _VOWEL.search(piece) is None:
        return False
    return all(cluster.group().lower() in _ENGLISH_CLUSTERS for cluster in _CLUSTER.finditer(piece))


def _explained(segment: str) -> bool:
    """A part of a run that is no secret's: a word, a number, an identifier or a
    hex part of one."""
    return (
        segment.isdigit()
        or (_wordy(segment) and (_WORD.search(segment) is not None or segment.islower()))
        or (len(segment) >= 8 and _HEX.fullmatch(segment) is not None)
        or _IDENTIFIER.fullmatch(segment) is not None
    )


def looks_random(text: str) -> bool:
    """Whether ``text`` (base64 or base64url characters, no padding) looks drawn at
    random: long enough, two of lowercase, uppercase and digits at least, not made
    of words, and of high entropy; hex is judged against hex's alphabet, and an
    id-long hex run (32) is an identifier."""
    if len(text) < MIN_RUN or text.isdigit():
        return False
    if _HEX.fullmatch(text):
        return len(text) != 32 and not text.isalpha() and _high_entropy(text, _HEX_BITS)
    kinds = (
        any(c.islower() for c in text)
        + any(c.isupper() for c in text)
        + any(c.isdigit() for c in text)
    )
    return kinds >= 2 and not _wordy(text) and _high_entropy(text, _BASE64_BITS)


@lru_cache(maxsize=8192)
def _run_spans(run: str) -> tuple[tuple[int, int], ...]:
    """The parts of ``run`` to mask, as (start, end) in it: the whole run when it
    looks random, or, when it is made partly of words or identifiers (a path, a
    name with an id in it), the parts that look random on their own."""
    core = run.rstrip("=")
    lead = len(core) - len(core.lstrip("/+_-"))
    body = core.strip("/+_-")
    if len(body) < MIN_RUN or _IDENTIFIER.fullmatch(body):
        return ()
    if not _SEPARATORS.search(body):
        return ((lead, len(run)),) if looks_random(body) else ()
    spans: list[tuple[int, int]] = []
    # Identifiers inside (a path's UUIDs) are explained whole, dashes and all.
    ids = [match.span() for match in _IDENTIFIER_IN.finditer(body)]
    unexplained: list[str] = []
    # A path (``/nix/store/<hash>-python3``), words between the separators: only
    # the parts that look random on their own are masked.
    words = 0
    at = 0
    for segment in _SEPARATORS.split(body):
        end = at + len(segment)
        if any(start <= at and end <= stop for start, stop in ids):
            pass
        elif _explained(segment):
            words += segment.isalpha() and segment.islower() and len(segment) >= 3
        else:
            unexplained.append(segment)
            if looks_random(segment):
                spans.append((lead + at, lead + end))
        at = end + 1
    rest = "".join(unexplained)
    # Two words (``nix/store``) make a path; base64 seldom draws one by chance.
    if words < 2 and len(rest) * 2 > len(body) and looks_random(rest):
        return ((lead, len(run)),)  # mostly random: separators are base64's own
    return tuple(spans)


def _names_an_identifier(line: str, start: int) -> bool:
    """Whether the value at ``start`` stands after a key that says it is an id or a
    digest, after a client's hash tag or an SSH key type, or in a table row whose
    field says so. The text before it is read backwards, each pattern anchored
    at the value: a line of many values costs one short match each."""
    before = line[max(0, start - _REACH) : start][::-1]
    if _KEPT_AFTER.match(before):
        return True
    key = _KEY_BEFORE.match(before)
    if key is None and line[:1] == "|":
        key = _TABLE_KEY.match(before)
    if key is None:
        return False
    name = key[1][::-1].strip()
    return not _IDENTIFYING.isdisjoint(_KEY_WORDS.findall(normal_name(name)))


def _is_a_key(line: str, end: int) -> bool:
    """Whether the run ending at ``end`` is a key (``"SnmpdReadonlyUserPassword":``,
    ``name=``): a value's name is no secret."""
    while end < len(line) and line[end] in "'\"":
        end += 1
    return end < len(line) and line[end] in ":=" and line[end + 1 : end + 2] != "/"


def key_material_spans(line: str) -> list[tuple[int, int]]:
    """Where in ``line`` values look like key material (see the module's
    docstring), in order, not overlapping; a value already masked is left."""
    spans: list[tuple[int, int]] = []
    if not any(_run_spans(run) for run in _RUN.findall(line)):
        return spans  # nearly every line: one search, each run judged from memory
    for match in _RUN.finditer(line):
        parts = _run_spans(match.group())
        if not parts or _is_a_key(line, match.end()) or _names_an_identifier(line, match.start()):
            continue
        base = match.start()
        spans.extend((base + start, base + end) for start, end in parts)
    return spans


def mask_jwts(run: str) -> str:
    """``run`` (characters of a JWT, dots included) with every ``eyJ...``.``eyJ...``.``...``
    triple masked."""
    parts = run.split(".")
    out: list[str] = []
    index = 0
    while index < len(parts):
        part = parts[index]
        head = part.find("eyJ")
        if (
            head != -1
            and len(part) - head >= 11
            and index + 2 < len(parts)
            and parts[index + 1].startswith("eyJ")
            and len(parts[index + 1]) >= 11
            and len(parts[index + 2]) >= 8
        ):
            out.append(part[:head] + MASK)
            index += 3
            continue
        out.append(part)
        index += 1
    return ".".join(out)


def jwt_spans(line: str) -> list[tuple[int, int, str]]:
    """Runs of JWT characters holding a JSON Web Token: (start, end, the run masked)."""
    found: list[tuple[int, int, str]] = []
    cursor = 0
    pos = line.find("eyJ")
    while pos != -1:
        start = pos
        while (
            start > cursor
            and (line[start - 1].isalnum() or line[start - 1] in "_.-")
            and line[start - 1].isascii()
        ):
            start -= 1
        run = _JWT_RUN.match(line, start)
        assert run is not None
        end = run.end()
        masked = mask_jwts(run.group())
        if masked != run.group():
            found.append((start, end, masked))
            cursor = end
        pos = line.find("eyJ", max(end, pos + 3))
    return found


#: A PEM block's armour, any label (a private key, a certificate, a PGP block).
PEM_BEGIN = regex.compile(r"-----BEGIN [A-Z0-9 ]+-----")
PEM_END = regex.compile(r"-----END [A-Z0-9 ]+-----")
PEM_INLINE = regex.compile(r"(-----BEGIN [A-Z0-9 ]+-----)(.+?)(-----END [A-Z0-9 ]+-----|$)")


_PEM_BODY = regex.compile(r"[A-Za-z0-9+/=]{16,}")


def is_pem_body(text: str) -> bool:
    """Whether ``text`` (a line between a PEM block's armour lines) is its body."""
    return _PEM_BODY.fullmatch(text.strip()) is not None


# --- tokens a terminal wrapped ---------------------------------------------------------

#: A line at least this long that ends inside a masked token was wrapped there (a
#: terminal wraps at 80 columns or more; a value that merely ends a short line
#: does not go on).
WRAP_MIN = 60
#: The widths terminals and ticket tools are set to: a line that ends in a masked
#: token is taken as wrapped when it is exactly that long (or as long as the
#: width the parser found the log wrapped at).
WRAP_WIDTHS = frozenset({72, 76, 78, 79, 80, 100, 120, 128, 132, 140, 150, 160, 180, 200, 240})
_TOKEN_TAIL = regex.compile(r"[A-Za-z0-9+/_=.-]{16,}$")
_TOKEN_HEAD = regex.compile(r"[A-Za-z0-9+/_=.-]+")
#: Heads of lines that begin something new rather than go on with a token: a log
#: level or a record's name (``DEBUG``, ``REQ:``), a date, a time.
_NEW_LINE = regex.compile(r"[A-Z]+(?:[ \t:]|$)|\d{4}-\d\d-\d\d|\d\d:\d\d|[A-Za-z]+[:(]")


def ends_in_token(raw: str, shown: str, width: int | None = None) -> bool:
    """Whether a line, as read (``raw``, without its line break) and as shown,
    ends inside a masked token that a terminal wrapped: as long as a terminal is
    wide (or as ``width``), ending in a run of token characters that was masked."""
    return (
        (len(raw) in WRAP_WIDTHS or len(raw) == width)
        and shown.endswith(MASK)
        and not raw.endswith(MASK)
        and _TOKEN_TAIL.search(raw) is not None
    )


def continue_token(line: str) -> tuple[str, str, bool]:
    """``line`` (without its line break) read as the continuation of a wrapped
    token: (the line with the token's piece masked, the piece, whether the piece
    runs to the line's end, wrapped again). No piece when the line begins
    otherwise (a blank, a log level, a date, a key)."""
    head = _TOKEN_HEAD.match(line)
    if head is None or not any(c.isalnum() for c in head.group()):
        return line, "", False
    end = head.end()
    if _NEW_LINE.match(line) is not None and end < len(line):
        return line, "", False
    if end < len(line) and line[end] not in " \t'\",;)]}|":
        return line, "", False
    return MASK + line[end:], head.group(), end == len(line) and len(line) >= WRAP_MIN


def next_run(text: str, pos: int) -> int:
    """Where the next run long enough to be judged starts in ``text`` from ``pos``
    (-1: none): how a batch of lines finds, at C speed, the ones to look at."""
    match = _RUN.search(text, pos)
    return -1 if match is None else match.start()
