"""Private storage: locations, 0700 folders, 0600 files, no symlink following."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import platformdirs
import pytest

from osdoctor import paths
from osdoctor.paths import PrivateStorageError, create_private, private_dir, write_private


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@pytest.fixture
def open_umask() -> Iterator[None]:
    """A permissive umask, so that the modes come from the code, not the umask."""
    previous = os.umask(0)
    yield
    os.umask(previous)


def test_locations_follow_osdoctor_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(paths.HOME_ENV, str(tmp_path))
    assert paths.data_dir() == tmp_path / "data"
    assert paths.config_dir() == tmp_path / "config"
    assert paths.sessions_dir() == tmp_path / "data" / "sessions"
    assert paths.exports_dir() == tmp_path / "data" / "exports"
    assert paths.user_knowledge_dir() == tmp_path / "config" / "knowledge"


def test_locations_default_to_the_platform(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(paths.HOME_ENV, raising=False)
    assert paths.data_dir() == platformdirs.user_data_path("osdoctor")
    assert paths.config_dir() == platformdirs.user_config_path("osdoctor")


def test_asking_for_a_location_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(paths.HOME_ENV, str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    paths.sessions_dir()
    paths.user_knowledge_dir()
    assert list(tmp_path.iterdir()) == []


def test_private_dir_creates_every_missing_folder_0700(tmp_path: Path, open_umask: None) -> None:
    target = tmp_path / "a" / "b" / "c"
    assert private_dir(target) == target
    for folder in (tmp_path / "a", tmp_path / "a" / "b", target):
        assert mode(folder) == 0o700


def test_private_dir_tightens_an_existing_folder(tmp_path: Path) -> None:
    folder = tmp_path / "open"
    folder.mkdir()
    folder.chmod(0o755)
    private_dir(folder)
    assert mode(folder) == 0o700


def test_private_dir_refuses_a_symlink_or_a_file(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir(mode=0o755)
    link = tmp_path / "link"
    link.symlink_to(real)
    with pytest.raises(PrivateStorageError, match="symbolic link"):
        private_dir(link)
    assert mode(real) == 0o755
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "nowhere")
    with pytest.raises(PrivateStorageError, match="symbolic link"):
        private_dir(dangling)
    assert not (tmp_path / "nowhere").exists()
    plain = tmp_path / "plain"
    plain.write_text("x")
    with pytest.raises(PrivateStorageError, match="not a folder"):
        private_dir(plain)


def test_private_dir_refuses_a_folder_of_another_user(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "theirs"
    folder.mkdir(mode=0o755)
    monkeypatch.setattr(os, "getuid", lambda: os.stat(folder).st_uid + 1)
    with pytest.raises(PrivateStorageError, match="belongs to another user"):
        private_dir(folder)
    assert mode(folder) == 0o755


def test_write_private_writes_0600_atomically(tmp_path: Path, open_umask: None) -> None:
    target = tmp_path / "exports" / "report.txt"
    write_private(target, "first")
    assert target.read_text() == "first" and mode(target) == 0o600
    assert mode(target.parent) == 0o700
    write_private(target, b"second \xff")
    assert target.read_bytes() == b"second \xff" and mode(target) == 0o600
    assert [p.name for p in target.parent.iterdir()] == ["report.txt"]


def test_write_private_replaces_a_planted_symlink(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep me")
    folder = private_dir(tmp_path / "out")
    target = folder / "report.txt"
    target.symlink_to(victim)
    write_private(target, "secret report")
    assert victim.read_text() == "keep me"
    assert not target.is_symlink() and target.read_text() == "secret report"
    assert mode(target) == 0o600


def test_write_private_error_is_one_line(tmp_path: Path) -> None:
    folder = private_dir(tmp_path / "out")
    (folder / "taken").mkdir()
    with pytest.raises(PrivateStorageError, match=r"^cannot write .*taken: ") as caught:
        write_private(folder / "taken", "x")
    assert "\n" not in str(caught.value)
    assert sorted(p.name for p in folder.iterdir()) == ["taken"]


def test_create_private_makes_a_fresh_0600_file_only(tmp_path: Path, open_umask: None) -> None:
    target = tmp_path / "sessions" / "run.session.log"
    fd = create_private(target)
    os.write(fd, b"one\n")
    os.close(fd)
    assert mode(target) == 0o600 and mode(target.parent) == 0o700
    with pytest.raises(PrivateStorageError, match="cannot create"):
        create_private(target)
    victim = tmp_path / "victim"
    victim.write_text("keep me")
    link = target.parent / "planted.session.log"
    link.symlink_to(victim)
    with pytest.raises(PrivateStorageError, match="cannot create"):
        create_private(link)
    assert victim.read_text() == "keep me"
