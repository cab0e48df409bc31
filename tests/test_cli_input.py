"""``osdoctor explain`` on input that is not a clean log: a clear error or a
report, the documented exit status, never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def explain(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OSDOCTOR_HOME": "/nonexistent-osdoctor-home"}
    return subprocess.run([sys.executable, "-m", "osdoctor", "explain", *args], input=stdin,
                          capture_output=True, env=env, timeout=120)


def no_traceback(proc: subprocess.CompletedProcess[bytes]) -> None:
    assert b"Traceback (most recent call last)" not in proc.stderr, proc.stderr.decode()


def test_missing_file(tmp_path: Path) -> None:
    proc = explain(str(tmp_path / "nope.log"))
    no_traceback(proc)
    assert proc.returncode == 2
    assert b"no such file" in proc.stderr


def test_directory(tmp_path: Path) -> None:
    proc = explain(str(tmp_path))
    no_traceback(proc)
    assert proc.returncode == 2 and b"is a folder" in proc.stderr


@pytest.mark.parametrize(
    "content",
    [
        b"",
        bytes(range(256)) * 64,
        b"\xff\xfe\xfa invalid utf-8 \x80\x81\n" * 100,
        b"2026-11-30 nginx: GET /index.html 200\n" * 50,
        b"\x00" * 10000,
    ],
    ids=["empty", "binary", "invalid-utf8", "other-program", "nul-bytes"],
)
def test_not_an_openstack_log(tmp_path: Path, content: bytes) -> None:
    log = tmp_path / "x.log"
    log.write_bytes(content)
    proc = explain(str(log), "--format", "json")
    no_traceback(proc)
    assert proc.returncode == 0
    report = json.loads(proc.stdout)
    assert report["scenario"] is None and report["exchanges"] == [] and report["findings"] == []
    text = explain(str(log))
    assert b"Nothing from an OpenStack client was found" in text.stdout


def test_huge_line_without_newline_is_cut_not_loaded(tmp_path: Path) -> None:
    log = tmp_path / "huge.log"
    with log.open("wb") as f:
        f.write(b"RESP BODY: ")
        chunk = b"x" * (1 << 20)
        for _ in range(100):
            f.write(chunk)
    proc = explain(str(log), "--format", "json")
    no_traceback(proc)
    assert proc.returncode == 0
    problems = json.loads(proc.stdout)["log"]["problems"]
    assert any("longer than 1 MiB" in p for p in problems)


def test_stdin_dash() -> None:
    log = b"START with options: --debug server list\nEND return value: 0\n"
    proc = explain("-", "--format", "json", stdin=log)
    no_traceback(proc)
    assert proc.returncode == 0
    report = json.loads(proc.stdout)
    assert report["source"] == "-" and report["exit_code"] == 0
    assert report["command"] == "openstack server list" and report["outcome"] == "success"


def test_failed_run_exits_1() -> None:
    proc = explain("-", stdin=b"START with options: --debug server list\nEND return value: 1\n")
    no_traceback(proc)
    assert proc.returncode == 1


def test_help_teaches_with_examples() -> None:
    proc = subprocess.run([sys.executable, "-m", "osdoctor", "explain", "--help"],
                          capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0
    assert b"2>&1 | osdoctor explain" in proc.stdout and b"Exit status" in proc.stdout
