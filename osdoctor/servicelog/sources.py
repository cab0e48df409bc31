"""Where service logs come from on the command line: files, folders (a sosreport's
``var/log/``, kolla's ``/var/log/kolla``), patterns, and each file's bytes,
compressed or not, a block at a time.

Only local paths: nothing here ever fetches a log from a host.
"""

from __future__ import annotations

import bz2
import glob
import gzip
import lzma
import os
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, cast

from osdoctor import regex
from osdoctor.servicelog import shapes

#: Bytes read at once.
BLOCK = 1 << 20
#: Bytes of a file's head read to tell a service log from a client's.
SNIFF = 256 * 1024
#: Files of a folder read as service logs: logs and their rotations
#: (``.1``, ``.2.gz``, ``-20240101``), syslog's files, exported journals as text.
_LOG_NAME = regex.compile(
    r"(?:\.log|\.txt|\.json)(?:\.\d+)?(?:[.-]\d{8,10})?(?:\.(?:gz|bz2|xz))?$|"
    r"^(?:messages|syslog|daemon\.log|error_log|access_log|secure)(?:[.-]\d+)*(?:\.(?:gz|bz2|xz))?$"
)
_SKIP_DIRS = frozenset({"journal", "lastlog", "wtmp", "btmp", ".git"})


class ServiceLogError(Exception):
    """A ``--service-log`` word that names nothing readable; one line for the user."""


def expand(words: list[str]) -> list[Path]:
    """The files of each word: a file as it is, a folder walked for its logs, a
    pattern's matches; in order, each once. ``ServiceLogError`` for a word that
    names no file."""
    found: dict[Path, None] = {}
    for word in words:
        path = Path(word)
        if path.is_dir():
            files = list(_walk(path))
            if not files:
                raise ServiceLogError(f"{word}: a folder with no log file in it")
        elif path.is_file():
            files = [path]
        elif glob.has_magic(word):
            files = sorted(Path(p) for p in glob.glob(word, recursive=True) if Path(p).is_file())
            if not files:
                raise ServiceLogError(f"{word}: no file matches")
        elif path.exists():
            raise ServiceLogError(f"{word}: not a file or folder")
        else:
            raise ServiceLogError(f"{word}: no such file or folder")
        for file in files:
            found.setdefault(file, None)
    return list(found)


def _walk(folder: Path) -> Iterator[Path]:
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
        for name in sorted(files):
            if _LOG_NAME.search(name):
                yield Path(root) / name


def beside(log: Path) -> Path | None:
    """The service logs kept beside a fixture log (``NAME.service/`` next to
    ``NAME.log``, as the lab's capture writes them), or None."""
    folder = log.with_name(log.name.removesuffix(".log") + ".service")
    return folder if folder.is_dir() else None


def open_log(path: Path) -> BinaryIO:
    """The file's bytes, decompressed when it is gzip, bzip2 or xz (told by its
    first bytes, not its name)."""
    raw = path.open("rb")
    magic = raw.read(6)
    raw.seek(0)
    if magic[:2] == b"\x1f\x8b":
        raw.close()
        return cast(BinaryIO, gzip.open(path, "rb"))
    if magic[:3] == b"BZh":
        raw.close()
        return cast(BinaryIO, bz2.open(path, "rb"))
    if magic[:6] == b"\xfd7zXZ\x00":
        raw.close()
        return cast(BinaryIO, lzma.open(path, "rb"))
    return raw


def blocks(stream: BinaryIO, size: int | None = None) -> Iterator[bytes]:
    """Blocks of whole lines (the last may lack its newline), of ``BLOCK`` bytes
    or so unless ``size`` says."""
    size = size or BLOCK
    carry = b""
    while True:
        data = stream.read(size)
        if not data:
            if carry:
                yield carry
            return
        data = carry + data
        cut = data.rfind(b"\n")
        if cut < 0:
            carry = data
            continue
        carry = data[cut + 1 :]
        yield data[: cut + 1]


#: What only a client's debug output holds.
_CLIENT_MARKS = (b"REQ: curl", b"RESP BODY:", b" used request id ", b"START with options")


def looks_like_service_log(path: Path) -> bool:
    """Whether a file given beside the client's log is a service's log: its head is
    mostly service records and holds nothing only a client's debug output has."""
    try:
        with open_log(path) as stream:
            head = stream.read(SNIFF)
    except (OSError, EOFError, lzma.LZMAError):
        return False
    if any(mark in head for mark in _CLIENT_MARKS):
        return False
    lines = [x for x in head.decode("utf-8", "replace").splitlines()[:2000] if x.strip()]
    if not lines:
        return False
    records = 0
    for text in lines:
        found = shapes.read(text).head
        if found is None:
            continue
        if found.format != "oslo" or found.logger.partition(".")[0] in shapes.SERVICE_LOGGERS:
            records += 1
    return records >= max(2, len(lines) // 4)
