"""The cache of compiled regular expressions (``osdoctor.regex``): what it hands out is
exactly what ``re.compile`` makes, and a damaged, stale or foreign cache file is
ignored, then rewritten, privately."""

from __future__ import annotations

import os
import re
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from osdoctor import regex

PATTERNS: list[tuple[Any, int]] = [
    (r"(?P<method>GET|POST|PUT) (?P<url>\S+)", 0),
    (r"x-auth-token:\s*\S+", re.IGNORECASE),
    (
        r"""(?x) ^ \s* (?:[a-z]+) # a verbose one
        \d{2,} $""",
        0,
    ),
    (rb"(?m)^REQ: curl -g -i", 0),
    ("[\u2028\u2029\x85]+", 0),
]


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A private home with no cache yet, and the module as at start-up."""
    monkeypatch.setenv("OSDOCTOR_HOME", str(tmp_path))
    monkeypatch.setattr(regex, "_table", None)
    monkeypatch.setattr(regex, "_used", set())
    monkeypatch.setattr(regex, "_missing", [])
    return tmp_path


def restart(monkeypatch: pytest.MonkeyPatch) -> None:
    """As a new process: nothing loaded, nothing pending."""
    monkeypatch.setattr(regex, "_table", None)
    monkeypatch.setattr(regex, "_used", set())
    monkeypatch.setattr(regex, "_missing", [])


def cache_files(home: Path) -> list[Path]:
    return sorted((home / "cache").glob("regex-*.marshal"))


def test_a_second_run_takes_every_pattern_from_the_cache_unchanged(
    fresh: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for pattern, flags in PATTERNS:
        assert regex.compile(pattern, flags) == re.compile(pattern, flags)
    assert len(regex._missing) == len(PATTERNS)
    regex._save()
    restart(monkeypatch)
    for pattern, flags in PATTERNS:
        got = regex.compile(pattern, flags)
        want = re.compile(pattern, flags)
        # Pattern equality compares the flags, the pattern and the engine's code.
        assert got == want
        assert (got.groups, got.groupindex) == (want.groups, want.groupindex)
    assert regex._missing == []
    assert len(regex._used) == len(PATTERNS)
    got = regex.compile(PATTERNS[0][0])
    assert isinstance(got.pattern, str)
    match = got.search("REQ: GET https://x/v3")
    assert match is not None and match["url"] == "https://x/v3"


def test_the_cache_file_is_private(fresh: Path) -> None:
    regex.compile(r"private\d+")
    regex._save()
    (path,) = cache_files(fresh)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert path.stat().st_uid == os.getuid()


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],  # cut short
        lambda data: data[:-1] + bytes([data[-1] ^ 1]),  # one bit flipped
        lambda data: b"garbage",
        lambda data: b"",
        lambda data: data.replace(b"osdoctor-regex-cache-1", b"osdoctor-regex-cache-0"),
    ],
)
def test_a_damaged_cache_is_ignored_and_rewritten(
    fresh: Path, monkeypatch: pytest.MonkeyPatch, damage: Callable[[bytes], bytes]
) -> None:
    pattern = r"damaged (?P<n>\d+)"
    regex.compile(pattern)
    regex._save()
    (path,) = cache_files(fresh)
    good = path.read_bytes()
    path.write_bytes(damage(good))
    restart(monkeypatch)
    assert regex.compile(pattern) == re.compile(pattern)
    assert regex._missing == [(pattern, 0)]
    regex._save()
    assert path.read_bytes() == good
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_an_entry_that_does_not_make_the_pattern_is_not_used(
    fresh: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An entry whose code the engine refuses is compiled by re and rewritten."""
    pattern = r"entry-\w+"
    regex.compile(pattern)
    regex._save()
    restart(monkeypatch)
    table = regex._load()
    flags, code, groups, groupindex, indexgroup = table[(pattern, 0)]
    table[(pattern, 0)] = (flags, [999_999, *code], groups, groupindex, indexgroup)
    assert regex.compile(pattern) == re.compile(pattern)
    assert regex._missing == [(pattern, 0)]


def test_a_pattern_of_another_python_is_in_another_file(
    fresh: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    regex.compile(r"version\d")
    regex._save()
    (first,) = cache_files(fresh)
    restart(monkeypatch)
    monkeypatch.setattr(sys, "version", sys.version + " (another build)")
    regex.compile(r"version\d")
    assert regex._missing == [(r"version\d", 0)]
    regex._save()
    assert len(cache_files(fresh)) == 2 and first in cache_files(fresh)


def test_an_invalid_pattern_raises_as_re_does(fresh: Path) -> None:
    with pytest.raises(re.error):
        regex.compile(r"(unclosed")
    regex._save()
    with pytest.raises(re.error):
        regex.compile(r"(unclosed")


def test_a_cache_file_others_could_write_is_not_read(
    fresh: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pattern = r"shared \w+"
    regex.compile(pattern)
    regex._save()
    (path,) = cache_files(fresh)
    path.chmod(0o666)
    restart(monkeypatch)
    assert regex.compile(pattern) == re.compile(pattern)
    assert regex._missing == [(pattern, 0)]
    regex._save()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_nothing_is_written_where_the_folder_is_refused(
    fresh: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (fresh / "cache").write_text("not a folder")
    regex.compile(r"refused\d")
    regex._save()
    assert (fresh / "cache").read_text() == "not a folder"
