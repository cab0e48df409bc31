"""Where osdoctor keeps its files, and how it writes them privately.

Debug logs carry tokens and passwords, so everything osdoctor stores (sessions,
exports) lives in folders only the user can enter (0700), in files only the
user can read (0600). Nothing is written into the current directory unless the
user names a path there.

The locations follow the platform's conventions (platformdirs). Setting
``OSDOCTOR_HOME`` puts everything under one folder instead (``data/`` and
``config/`` below it): tests use it, and so can users who want one place.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

import platformdirs

#: Environment variable that moves all of osdoctor's files under one folder.
HOME_ENV = "OSDOCTOR_HOME"

_APP = "osdoctor"


class PrivateStorageError(Exception):
    """A private folder or file could not be made safely; the message is one line."""


def _home() -> Path | None:
    value = os.environ.get(HOME_ENV)
    return Path(value).expanduser() if value else None


def data_dir() -> Path:
    """The folder for what osdoctor records: sessions and exports."""
    home = _home()
    return home / "data" if home else platformdirs.user_data_path(_APP)


def config_dir() -> Path:
    """The folder for what the user writes: their own knowledge rules."""
    home = _home()
    return home / "config" if home else platformdirs.user_config_path(_APP)


def cache_dir() -> Path:
    """Disposable data (the compiled knowledge): safe to delete at any time."""
    home = _home()
    return home / "cache" if home else platformdirs.user_cache_path(_APP)


def sessions_dir() -> Path:
    """Recorded runs (see ``osdoctor.run.session``)."""
    return data_dir() / "sessions"


def exports_dir() -> Path:
    """Reports and logs the user asked to export."""
    return data_dir() / "exports"


def user_knowledge_dir() -> Path:
    """The user's own scenarios and rules, read on top of the shipped ones."""
    return config_dir() / "knowledge"


def private_dir(path: Path | str) -> Path:
    """Create ``path`` (and missing parents) as folders only the user can enter.

    Folders created here get mode 0700. An existing final folder owned by the
    user is tightened to 0700; one that is a symlink, not a folder, or owned by
    someone else is refused, since its contents could be read or swapped.
    """
    target = Path(path)
    missing: list[Path] = []
    probe = target
    while not probe.exists() and not probe.is_symlink():
        missing.append(probe)
        if probe.parent == probe:
            break
        probe = probe.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:
            pass
        except OSError as error:
            raise PrivateStorageError(
                f"cannot create folder {folder}: {error.strerror or error}"
            ) from None
    try:
        info = os.lstat(target)
    except OSError as error:
        raise PrivateStorageError(f"cannot use folder {target}: {error.strerror}") from None
    if stat.S_ISLNK(info.st_mode):
        raise PrivateStorageError(f"refusing folder {target}: it is a symbolic link")
    if not stat.S_ISDIR(info.st_mode):
        raise PrivateStorageError(f"refusing folder {target}: it is not a folder")
    if info.st_uid != os.getuid():
        raise PrivateStorageError(f"refusing folder {target}: it belongs to another user")
    _tighten(target)
    for root in _own_roots():
        if root != target and root in target.parents:
            _tighten(root)
    return target


def _own_roots() -> list[Path]:
    """osdoctor's own top folders: made private too when one below them is used, so
    that a folder an older version created open is closed. (``OSDOCTOR_HOME``
    itself may be a folder of the user's that osdoctor did not create: left alone.)"""
    return [data_dir(), config_dir(), cache_dir()]


def _tighten(folder: Path) -> None:
    """Make a folder of the user's 0700 (a symlink or someone else's is left alone:
    ``private_dir`` refuses those where it matters)."""
    try:
        info = os.lstat(folder)
    except OSError:
        return
    if (
        stat.S_ISLNK(info.st_mode)
        or not stat.S_ISDIR(info.st_mode)
        or info.st_uid != os.getuid()
        or stat.S_IMODE(info.st_mode) == 0o700
    ):
        return
    try:
        os.chmod(folder, 0o700)
    except OSError as error:
        raise PrivateStorageError(
            f"cannot make folder {folder} private: {error.strerror}"
        ) from None


def write_private(path: Path | str, data: str | bytes) -> Path:
    """Write ``data`` to ``path`` as a 0600 file, atomically.

    The data goes to a fresh temporary file in the same folder, which then
    replaces the target by rename: a reader sees the old file or the whole new
    one, and a symlink planted at the target is replaced, never followed.
    The folder is made private first (see ``private_dir``).
    """
    target = Path(path)
    private_dir(target.parent)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    try:
        fd, temp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    except OSError as error:
        raise PrivateStorageError(f"cannot write {target}: {error.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp_name, target)
    except OSError as error:
        try:
            os.unlink(temp_name)
        except OSError:
            pass
        raise PrivateStorageError(f"cannot write {target}: {error.strerror}") from None
    return target


def create_private(path: Path | str) -> int:
    """Create a new 0600 file for appending and return its descriptor.

    Fails (PrivateStorageError) if anything already exists at ``path``,
    including a symlink: the file is always a fresh one of our own.
    """
    target = Path(path)
    private_dir(target.parent)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | os.O_CLOEXEC
    flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        return os.open(target, flags, 0o600)
    except OSError as error:
        raise PrivateStorageError(f"cannot create {target}: {error.strerror}") from None
