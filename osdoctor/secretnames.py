"""Which names say that their value is a secret.

One answer for every place a name stands before a value: JSON and dict keys,
``key=value`` pairs, headers, table fields and columns, command-line options
and the names in ``--parameter``/``--property`` pairs. Both the line redaction
(``osdoctor.redact``) and the command-line redaction (``osdoctor.cmdline``)
ask here, so a name the one masks the other masks too.

A name is secret when it says password, passphrase, secret or token, names a
key (``encryption_key``, ``Temp-URL-Key``, ``X-Auth-Key``) or credentials
(``rabbit_creds``), or is one of the known fields holding one (``blob``,
``access``, ``adminPass``, ``user_data``, ``payload``); it is not when it only
describes one (``password_expires_at``, ``key_name``, ``credential_id``,
``auth_url``).
"""

from __future__ import annotations

from functools import lru_cache

from osdoctor import regex

__all__ = ["MASK", "is_secret_name", "normal_name"]

MASK = "***"
"""What a secret value becomes."""

_SECRET_NAMES = frozenset(
    {
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
    {"key", "keys", "apikey", "privkey", "creds", "cred", "credential", "credentials", "auth"}
)
#: Words that make a "key" or "credential" name describe one rather than hold it.
_DESCRIBING_WORDS = frozenset({"public", "sort", "pair", "primary", "foreign"})
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


def normal_name(name: str) -> str:
    """``name`` as compared: lowercase, ``_`` for ``-`` and spaces, no leading dashes,
    no namespace (``OS-EXT-SRV-ATTR:user_data`` is ``user_data``)."""
    key = name.strip().lstrip("-").lower().replace("-", "_").replace(" ", "_")
    if ":" in key:
        key = key.rpartition(":")[2]
    return key.strip("_")


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
    if key.endswith(_SECRET_SUFFIXES):
        return True
    if key.endswith("_at") or key.startswith(_METADATA_PREFIXES):
        return False
    if any(fragment in key for fragment in _METADATA_FRAGMENTS):
        return False
    if any(fragment in key for fragment in _SECRET_FRAGMENTS):
        return True
    if "key" not in key and "cred" not in key and "auth" not in key:
        return False
    words = _WORDS.findall(key)
    while words and words[-1].isdigit():
        words.pop()
    if not words or not _DESCRIBING_WORDS.isdisjoint(words):
        return False
    return words[-1] in _SECRET_LAST_WORDS or "creds" in words or "cred" in words
