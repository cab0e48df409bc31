"""The regular expressions written in osdoctor's source and knowledge, compiled once
per installation instead of once per run.

CPython's ``re`` parses and compiles a pattern in pure Python; for the few hundred
patterns osdoctor defines (the parser's, redaction's, the rules') that was the
largest part of the start-up of ``osdoctor explain``. ``compile`` hands the
regex engine the code an earlier run of the same Python produced for the same
pattern and flags, kept in a private cache file, and compiles with ``re`` what
the cache does not hold; those are added to the file at exit.

What the engine receives is exactly what ``re.compile`` would give it: an entry
is written only after the pattern built from it compared equal (pattern, flags
and engine code) to ``re.compile``'s, and the file is keyed on the exact Python
build and the engine's version. The file (0600, in the private cache folder) is
checksummed; one that is unreadable, damaged, foreign or someone else's is
ignored and rewritten. Only patterns from the source or the knowledge come here,
never one built from a log's text, so the cache holds nothing of the user's.
"""

from __future__ import annotations

import atexit
import importlib
import marshal
import os
import re
import sys
import zlib
from pathlib import Path
from typing import Any, AnyStr

_HEADER = b"osdoctor-regex-cache-1\n"
#: At most this many patterns are kept; above it only those of the last run are.
_LIMIT = 4000

_Key = tuple[str | bytes, int]
_Entry = tuple[int, list[int], int, dict[str, int], tuple[str | None, ...]]

_table: dict[_Key, _Entry] | None = None
_used: set[_Key] = set()
_missing: list[_Key] = []
_engine: Any = None
_saving = False


def compile(pattern: AnyStr, flags: int = 0) -> re.Pattern[AnyStr]:  # noqa: A001 - as re's
    """``re.compile(pattern, flags)``, taken from the cache when it holds the pattern."""
    global _saving
    flags = int(flags)
    table = _table if _table is not None else _load()
    key: _Key = (pattern, flags)
    entry = table.get(key)
    if entry is not None:
        try:
            compiled: re.Pattern[AnyStr] = _engine.compile(pattern, *entry)
        except Exception:  # noqa: BLE001 - a damaged entry: compile as usual, rewrite it
            pass
        else:
            _used.add(key)
            return compiled
    compiled = re.compile(pattern, flags)
    if not flags & re.DEBUG:
        if not _saving:
            _saving = True
            atexit.register(_save)
        _missing.append(key)
    return compiled


def _tag() -> str | None:
    """What the cached code depends on, or None where it cannot be used."""
    global _engine
    if sys.implementation.name != "cpython":
        return None
    try:
        _engine = importlib.import_module("_sre")
        parts = (sys.version, _engine.MAGIC, _engine.CODESIZE, _engine.MAXREPEAT)
    except (ImportError, AttributeError):
        return None
    return _digest(repr(parts).encode())


def _digest(data: bytes) -> str:
    return f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}"


def _path() -> Path | None:
    tag = _tag()
    if tag is None:
        return None
    try:
        from osdoctor.paths import cache_dir

        return cache_dir() / f"regex-{tag}.marshal"
    except (OSError, ValueError):
        return None


def _load() -> dict[_Key, _Entry]:
    global _table
    _table = {}
    path = _path()
    if path is None:
        return _table
    try:
        with path.open("rb") as handle:
            info = os.fstat(handle.fileno())
            if info.st_uid != os.getuid() or info.st_mode & 0o077:
                return _table
            data = handle.read()
    except OSError:
        return _table
    head = len(_HEADER) + 16
    if not data.startswith(_HEADER) or data[len(_HEADER) : head].decode("ascii", "replace") != (
        _digest(data[head:])
    ):
        return _table
    try:
        table = marshal.loads(data[head:])  # noqa: S302 - our own checksummed file
    except (ValueError, EOFError, TypeError):
        return _table
    if isinstance(table, dict):
        _table = table
    return _table


def _entry(pattern: str | bytes, flags: int) -> _Entry | None:
    """The engine's arguments for ``pattern``, if they make what ``re.compile`` makes."""
    parser: Any = importlib.import_module("re._parser")
    compiler: Any = importlib.import_module("re._compiler")
    try:
        parsed = parser.parse(pattern, flags)
        code = [int(op) for op in compiler._code(parsed, flags)]
        groupindex = dict(parsed.state.groupdict)
        indexgroup: list[str | None] = [None] * parsed.state.groups
        for name, index in groupindex.items():
            indexgroup[index] = name
        entry: _Entry = (
            int(flags | parsed.state.flags),
            code,
            parsed.state.groups - 1,
            groupindex,
            tuple(indexgroup),
        )
        same = bool(_engine.compile(pattern, *entry) == re.compile(pattern, flags))
    except Exception:  # noqa: BLE001 - not cacheable: compiled by re every time
        return None
    return entry if same else None


def _save() -> None:
    """Add the patterns ``re`` compiled in this run to the cache file."""
    path = _path()
    if path is None or _table is None:
        return
    try:
        from osdoctor.paths import private_dir, write_private

        private_dir(path.parent)  # before the work: a folder refused is no cache
        table = {key: _table[key] for key in _used} if len(_table) > _LIMIT else dict(_table)
        for key in dict.fromkeys(_missing):
            entry = _entry(*key)
            if entry is not None:
                table[key] = entry
            else:
                table.pop(key, None)
        payload = marshal.dumps(table)
        write_private(path, _HEADER + _digest(payload).encode("ascii") + payload)
    except Exception:  # noqa: BLE001 - a cache that cannot be written is only slower
        pass
