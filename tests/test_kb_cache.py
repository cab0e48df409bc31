"""The cache of parsed knowledge (``osdoctor.kb.cache``): keyed on a hash of every
file's content, so that an edit that keeps the size and the modification time
is seen; and checked before it is read, so that a damaged, foreign or shared
cache file is ignored, then written again, privately."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from osdoctor.kb import cache
from osdoctor.kb.loader import load_knowledge

RULE = """\
kind: rule
id: site.cache-test
since: "0.1.0"
title: "A test rule"
severity: warning
when:
  - message: "cache test (?P<n>\\\\d+)"
explanation: "Only the cache tests read it."
next_steps: ["nothing"]
references:
  - {seed: 000_416000e4d6ae2dea.txt, section: 4}
"""


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("OSDOCTOR_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "rule.yaml").write_text(RULE)
    return kb


def _load(folder: Path) -> bool:
    """Load the folder as osdoctor does; whether it came from the cache."""
    docs, trusted, save = cache.load_documents(folder)
    assert [Path(path).name for path, _doc in docs] == ["rule.yaml"]
    save()
    return trusted


def _cached(home: Path) -> Path:
    (path,) = (home / "cache").glob("kb-*.pickle")
    return path


def test_a_second_load_comes_from_the_cache_privately(home: Path, folder: Path) -> None:
    assert _load(folder) is False
    assert _load(folder) is True
    path = _cached(home)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_an_edit_that_keeps_the_size_and_the_time_is_seen(home: Path, folder: Path) -> None:
    rule = folder / "rule.yaml"
    assert _load(folder) is False
    before = rule.stat()
    rule.write_text(RULE.replace("A test rule", "A TEST RULE"))
    os.utime(rule, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert rule.stat().st_size == before.st_size
    assert _load(folder) is False  # a new key: read and checked again
    kb = load_knowledge([folder], user=False)
    assert kb.rules["site.cache-test"].title == "A TEST RULE"


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],  # cut short
        lambda data: data[:-1] + bytes([data[-1] ^ 1]),  # one bit flipped
        lambda data: b"garbage",
        lambda data: b"",
        lambda data: data.replace(b"osdoctor-kb-cache-3", b"osdoctor-kb-cache-0"),
    ],
)
def test_a_damaged_cache_is_ignored_and_written_again(
    home: Path, folder: Path, damage: Callable[[bytes], bytes]
) -> None:
    _load(folder)
    path = _cached(home)
    good = path.read_bytes()
    path.write_bytes(damage(good))
    assert _load(folder) is False
    assert path.read_bytes() == good
    assert _load(folder) is True


def test_a_cache_others_could_write_is_not_read(home: Path, folder: Path) -> None:
    _load(folder)
    path = _cached(home)
    path.chmod(0o666)
    assert _load(folder) is False
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert _load(folder) is True


def test_a_new_home_in_the_same_process_is_given_the_documents_without_a_parse(
    home: Path, folder: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert _load(folder) is False
    monkeypatch.setenv("OSDOCTOR_HOME", str(tmp_path / "second-home"))

    def no_parse(files: list[Path]) -> list[tuple[str, object]]:
        raise AssertionError("parsed the YAML again")

    monkeypatch.setattr(cache, "_parse", no_parse)
    assert _load(folder) is True
    # ... and that home now has its own private cache file, read as any other.
    path = _cached(tmp_path / "second-home")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert _load(folder) is True
    # An edit is a new key: parsed again, never served from memory.
    (folder / "rule.yaml").write_text(RULE.replace("A test rule", "An edited rule"))
    with pytest.raises(AssertionError, match="parsed the YAML again"):
        _load(folder)
