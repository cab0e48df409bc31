"""A cache of parsed knowledge files, so that ``osdoctor explain`` starts fast.

Parsing YAML is most of the cost of loading the knowledge. The parsed
documents of a folder are pickled under the user cache directory, keyed on
a hash of every file's path and content, and of the code that checked them:
an edit (even one that keeps the size and the modification time, as a copy or
a checkout may), a new or a removed file makes a new key. Reading the files
to hash them costs about a millisecond for the built-in knowledge.

The cache is only ever written by osdoctor itself, in a private folder, and
checked before it is read: a file that is not the user's own, that others
could write, or whose content does not match the checksum written with it
(cut short, damaged, of another version) is ignored and rebuilt.
"""

from __future__ import annotations

import os
import pickle
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from osdoctor.kb.yamlfile import YamlError, load_yaml

_VERSION = b"osdoctor-kb-cache-3"
#: The code that checks knowledge: documents cached as valid are trusted, unchecked,
#: only while it is the code that found them valid (an edit or an upgrade makes a
#: new key, so a stricter check sees every file again).
_CHECKERS = tuple(
    Path(__file__).with_name(name) for name in ("schema.py", "loader.py", "conditions.py")
)


#: What this process has read or written, by cache file name, pickled so that every
#: caller gets its own copy: a process that loads the knowledge again into a cache
#: folder that has no file yet (a new OSDOCTOR_HOME: the tests, a batch of homes)
#: does not parse the YAML again. The name is the content key, so an edit is still
#: seen; a file that exists is always read and checked as before.
_SEEN: dict[str, bytes] = {}


def _files(root: Path) -> list[Path]:
    # Sorted by parts: the order of sorting the paths themselves, without a call of
    # Path.__lt__ per comparison.
    return sorted(root.rglob("*.yaml"), key=_parts) + sorted(root.rglob("*.yml"), key=_parts)


def _parts(path: Path) -> tuple[str, ...]:
    return path.parts


def _digest(data: bytes) -> str:
    """A 64-bit hash: the cache is private, so no one crafts a collision, and
    zlib loads far faster than hashlib at every start."""
    return f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}"


def _key(files: list[Path]) -> str:
    from osdoctor import __version__

    parts = [_VERSION, __version__.encode()]
    for path in (*_CHECKERS, *files):
        data = path.read_bytes()
        parts.append(f"{path}\0{len(data)}\0{_digest(data)}\n".encode())
    return _digest(b"".join(parts))


def _read(path: Path) -> list[tuple[str, Any]] | None:
    """The documents cached in ``path``, or None: missing, not the user's own,
    writable by others, or not what was written (the checksum tells)."""
    try:
        with path.open("rb") as handle:
            info = os.fstat(handle.fileno())
            if info.st_uid != os.getuid() or info.st_mode & 0o022:
                return None
            data = handle.read()
    except OSError:
        return None
    head = len(_VERSION) + 1 + 16
    if data[: len(_VERSION) + 1] != _VERSION + b"\n" or data[len(_VERSION) + 1 : head] != (
        _digest(data[head:]).encode()
    ):
        return None
    try:
        docs = pickle.loads(data[head:])  # noqa: S301 - our own file, checked above
    except (pickle.PickleError, EOFError, AttributeError, ImportError, TypeError, ValueError):
        return None
    return docs if isinstance(docs, list) else None


def _written(docs: list[tuple[str, Any]]) -> bytes:
    payload = pickle.dumps(docs, protocol=pickle.HIGHEST_PROTOCOL)
    return _VERSION + b"\n" + _digest(payload).encode() + payload


#: The knowledge files under a folder, in order, and the name of their cache (their
#: content key): listed once, for the cache and for a knowledge base built from them.
Listing = tuple[list[Path], str]


def list_documents(root: Path) -> Listing:
    """The knowledge files under ``root`` and the name of their cache."""
    files = _files(root)
    return files, f"kb-{_key(files)}-{_root_tag(root)}.pickle"


def documents_key(listing: Listing) -> str:
    """What the listed documents are, and where their cache is: a knowledge base
    built from them can be used again while it holds."""
    try:
        from osdoctor.paths import cache_dir

        return f"{cache_dir()}/{listing[1]}"
    except (OSError, ValueError):
        return listing[1]


def load_documents(
    root: Path, listing: Listing | None = None
) -> tuple[list[tuple[str, Any]], bool, Callable[[], None]]:
    """(path, parsed document or YamlError) for every knowledge file under root (the
    path as text: what reports name, and quicker to unpickle than a Path);
    whether they came from the cache (then they were valid when cached); and a
    function that caches them, to call only once they have all validated.
    ``listing``: what ``list_documents`` already found there."""
    files, name = listing if listing is not None else list_documents(root)

    def nothing() -> None:
        return None

    try:
        from osdoctor.paths import cache_dir

        folder = cache_dir()
        cached = folder / name
    except (OSError, ValueError):
        return _parse(files), False, nothing
    seen = _SEEN.get(cached.name)
    if seen is not None and not cached.exists():
        docs = pickle.loads(seen)  # noqa: S301 - our own bytes, from this process
        return docs, True, lambda: _save(folder, cached, root, docs)
    found = _read(cached)
    if found is not None:
        _SEEN[cached.name] = pickle.dumps(found, protocol=pickle.HIGHEST_PROTOCOL)
        return found, True, nothing
    docs = _parse(files)

    def save() -> None:
        _SEEN[cached.name] = pickle.dumps(docs, protocol=pickle.HIGHEST_PROTOCOL)
        _save(folder, cached, root, docs)

    return docs, False, save


def _save(folder: Path, cached: Path, root: Path, docs: list[tuple[str, Any]]) -> None:
    try:
        from osdoctor.paths import private_dir, write_private

        private_dir(folder)
        for old in folder.glob(f"kb-*-{_root_tag(root)}.pickle"):
            old.unlink(missing_ok=True)
        write_private(cached, _written(docs))
    except Exception:  # noqa: BLE001 - a cache that cannot be written is only slower
        pass


def _root_tag(root: Path) -> str:
    return _digest(str(root.resolve()).encode())[:8]


def _parse(files: list[Path]) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for path in files:
        try:
            out.append((str(path), load_yaml(path)))
        except YamlError as exc:
            out.append((str(path), exc))
    return out
