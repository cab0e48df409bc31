"""Which names say that their value is a secret.

One answer for every place a name stands before a value: JSON and dict keys,
``key=value`` pairs, headers, table fields and columns, command-line options
and the names in ``--parameter``/``--property`` pairs. Both the line redaction
(``osdoctor.secrets.redact``) and the command-line redaction (``osdoctor.run.cmdline``)
ask here, so a name the one masks the other masks too.

A name is judged by its words, however it is written: snake case
(``encryption_key``), dashes (``X-Auth-Key``), CamelCase as TripleO and Heat
templates write it (``HeatAuthEncryptionKey`` is heat, auth, encryption, key),
and a dotted path (``auth.password`` is the name ``password`` under ``auth``).
It is secret when it says password, passphrase, secret or token, when its
last word holds one (a key, a kek, credentials as in ``rabbit_creds``, a
cookie, an authkey, a signature as in ``X-Goog-Signature``, a bearer, a psk),
when it is a hash suffix or prefix (``SwiftHashSuffix``), or when it is one of
the known fields holding one (``blob``, ``access``, ``adminPass``,
``user_data``, ``payload``); it is not when it only describes one
(``password_expires_at``, ``key_name``, ``credential_id``, ``auth_url``,
``public_key``) or names another field (``output_key``, ``parameter_key``:
their value is a name, see ``osdoctor.secrets.secretsiblings``).
"""

from __future__ import annotations

from functools import lru_cache

from osdoctor import regex

__all__ = ["MASK", "is_secret_name", "normal_name"]

MASK = "***"
"""What a secret value becomes."""

_SECRET_NAMES = frozenset(
    {
        "psk",
        "blob",
        "access",
        "user_data",
        "userdata",
        "payload",
        "cookie",
        "set_cookie",
        "authorization",
        "proxy_authorization",
        "signature",
        "sig",
        "temp_url_sig",
        "configdrive",
        "config_drive_data",
    }
)
_SECRET_SUFFIXES = ("temp_url_key", "temp_url_key_2", "_auth_key", "_priv_key", "_private_key")
#: Fragments of a name that carry a secret wherever they stand.
_SECRET_FRAGMENTS = ("pass", "secret", "token", "pwd")
#: Last words of a name that hold a secret (``encryption_key``, ``rabbit_creds``).
_SECRET_LAST_WORDS = frozenset(
    {
        "key",
        "keys",
        "apikey",
        "privkey",
        "authkey",
        "kek",
        "creds",
        "cred",
        "credential",
        "credentials",
        "auth",
        "cookie",
        "signature",
        "sig",
        "bearer",
        "psk",
    }
)
#: Words without "key", "cred" or "auth" that may end a secret name.
_OTHER_LAST_WORDS = ("kek", "cookie", "signature", "sig", "bearer", "psk", "suffix", "prefix")
#: Words that make a "key" or "credential" name describe one rather than hold it,
#: or name another field (``output_key`` holds the name of ``output_value``).
_DESCRIBING_WORDS = frozenset(
    {
        "public",
        "sort",
        "pair",
        "primary",
        "foreign",
        "output",
        "parameter",
        "param",
        "resource",
        "attribute",
        "property",
        "metadata",
        "tag",
        "label",
    }
)
#: The last words of a hash's salt (Swift's ``swift_hash_path_suffix``, TripleO's
#: ``SwiftHashSuffix``): secret after the word ``hash``.
_SALT_WORDS = frozenset({"suffix", "prefix"})
#: Last parts of a dotted name that hold the value of the part before
#: (``db.password.value``).
_HOLDER_PARTS = frozenset({"value", "data", "content"})
#: Fragments of names that look secret but hold metadata (a date, a flag, a type).
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
    "_method",
    "_plugin",
    "_id",
    "_name",
    "_count",
)
_METADATA_PREFIXES = ("ignore_", "no_", "enable_", "disable_", "is_", "has_")
_WORDS = regex.compile(r"[a-z]+|[0-9]+")
#: Where CamelCase starts a word: ``heatAuth``, ``Key0Name``, ``HAProxy``.
_CAMEL = regex.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def normal_name(name: str) -> str:
    """``name`` as compared: its words in lowercase joined by ``_`` (CamelCase,
    dashes and spaces split), no leading dashes, no namespace
    (``OS-EXT-SRV-ATTR:user_data`` is ``user_data``), and of a dotted path its
    last part (``auth.password`` is ``password``; ``db.password.value`` is
    ``password``)."""
    key = name.strip().lstrip("-")
    if ":" in key:
        key = key.rpartition(":")[2]
    if "." in key:
        parts = [part for part in key.split(".") if part]
        while len(parts) > 1 and parts[-1].lower() in _HOLDER_PARTS:
            parts.pop()
        key = parts[-1] if parts else ""
    if not key.islower():
        key = _CAMEL.sub("_", key).lower()
    return key.replace("-", "_").replace(" ", "_").strip("_")


@lru_cache(maxsize=4096)
def is_secret_name(name: str, allow_data: bool = False) -> bool:
    """Whether a key, option, field or column called ``name`` holds a secret value.

    ``allow_data`` adds ``data``: the secret blob of ``credential create``/``set``
    in cliff's Namespace lines and option lists, and the Data column of
    ``credential list``. Cached: the same few names come back on every line.
    """
    key = normal_name(name)
    if not key:
        return False
    if key in _SECRET_NAMES or (allow_data and key == "data"):
        return True
    if "_" in key and not name.islower() and key.replace("_", "") in _SECRET_NAMES:
        return True  # ``ConfigDrive`` is ``configdrive``, not Nova's flag ``config_drive``
    if key.endswith(_SECRET_SUFFIXES):
        return True
    if key.endswith("_at") or key.startswith(_METADATA_PREFIXES):
        return False
    if any(fragment in key for fragment in _METADATA_FRAGMENTS):
        return False
    if any(fragment in key for fragment in _SECRET_FRAGMENTS):
        return True
    if (
        "key" not in key
        and "cred" not in key
        and "auth" not in key
        and not key.endswith(_OTHER_LAST_WORDS)
        and not any(word in key for word in _OTHER_LAST_WORDS)
    ):
        return False
    words = _WORDS.findall(key)
    while words and words[-1].isdigit():
        words.pop()
    if not words or not _DESCRIBING_WORDS.isdisjoint(words):
        return False
    if words[-1] in _SALT_WORDS:
        return "hash" in words
    return words[-1] in _SECRET_LAST_WORDS or "creds" in words or "cred" in words
