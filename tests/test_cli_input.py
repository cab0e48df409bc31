"""``osdoctor explain`` on input that is not a clean log: a clear error or a
report, the documented exit status, never a traceback."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from osdoctor.cli import build_parser, not_a_client_log
from tests.helpers.explained import report_of

ROOT = Path(__file__).resolve().parent.parent


def explain(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OSDOCTOR_HOME": "/nonexistent-osdoctor-home"}
    return subprocess.run(
        [sys.executable, "-m", "osdoctor", "explain", *args],
        input=stdin,
        capture_output=True,
        env=env,
        timeout=120,
    )


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


NGINX = (
    b'10.0.0.7 - - [01/Dec/2026:10:00:00 +0000] "POST /v3/auth/tokens HTTP/1.1" 201 1234 '
    b'"-" "python-openstackclient keystoneauth1/5.18.1"\n'
    b"2026/12/01 10:00:01 [error] 12#0: *3 connect() failed (111: Connection refused) while "
    b'connecting to upstream, request: "GET /v2.1/servers HTTP/1.1"\n'
) * 40
DPKG = (
    b"2026-11-30 10:00:00 startup archives unpack\n"
    b"2026-11-30 10:00:01 upgrade libssl3:amd64 3.0.11-1 3.0.13-1\n"
    b"2026-11-30 10:00:01 status half-configured libssl3:amd64 3.0.13-1\n"
) * 50


@pytest.mark.parametrize(
    "content",
    [
        b"",
        bytes(range(256)) * 64,
        b"\xff\xfe\xfa invalid utf-8 \x80\x81\n" * 100,
        b"2026-11-30 nginx: GET /index.html 200\n" * 50,
        NGINX,
        DPKG,
        b"\x00" * 10000,
    ],
    ids=["empty", "binary", "invalid-utf8", "other-program", "nginx", "dpkg", "nul-bytes"],
)
def test_not_an_openstack_log_exits_2(tmp_path: Path, content: bytes) -> None:
    """Nothing found is not success: exit 2 with a message, the report still on stdout."""
    log = tmp_path / "x.log"
    log.write_bytes(content)
    proc = explain(str(log), "--format", "json")
    no_traceback(proc)
    assert proc.returncode == 2
    assert proc.stderr.startswith(b"osdoctor: ") and str(log).encode() in proc.stderr
    assert b"openstack, heat, baremetal or swift" in proc.stderr
    report = json.loads(proc.stdout)
    assert report["scenario"] is None and report["exchanges"] == [] and report["findings"] == []
    text = explain(str(log))
    assert text.returncode == 2
    assert b"Nothing from an OpenStack client was found" in text.stdout


def test_empty_standard_input_exits_2() -> None:
    with open(os.devnull, "rb") as devnull:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "OSDOCTOR_HOME": "/nonexistent-osdoctor-home"}
        proc = subprocess.run(
            [sys.executable, "-m", "osdoctor", "explain"],
            stdin=devnull,
            capture_output=True,
            env=env,
            timeout=120,
        )
    no_traceback(proc)
    assert proc.returncode == 2 and b"standard input is empty" in proc.stderr


#: Every log the project keeps: the lab's captures, the public and wild logs as
#: people posted them, and service logs on their own.
FIXTURES = sorted(
    log
    for folder in ("logs", "public", "public-2", "wild", "servicelogs")
    for log in (ROOT / "tests" / "fixtures" / folder).glob("*.log")
)


@pytest.mark.parametrize("log", FIXTURES, ids=[f"{p.parent.name}/{p.stem}" for p in FIXTURES])
def test_no_log_with_a_clients_or_a_services_words_is_refused(log: Path) -> None:
    """Exit 2 ("nothing from an OpenStack client") is for input with nothing of
    OpenStack in it: each of these holds a client's output (``swift tempurl``'s one
    signed path among them) or a service's log, and gets a report."""
    assert not_a_client_log(report_of(log)) is None


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
    proc = subprocess.run(
        [sys.executable, "-m", "osdoctor", "explain", "--help"],
        capture_output=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0
    assert b"2>&1 | osdoctor explain" in proc.stdout and b"Exit status" in proc.stdout
    assert b"not an OpenStack client's" in proc.stdout


def _parse(parser: argparse.ArgumentParser, argv: list[str]) -> tuple[object, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            result: object = vars(parser.parse_args(argv))
        except SystemExit as stop:
            result = ("exit", stop.code)
    return result, out.getvalue(), err.getvalue()


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--help"],
        ["bogus"],
        ["expl"],
        ["--vers"],
        ["kb"],
        ["kb", "bogus"],
        ["kb", "show", "--help"],
        ["explain", "--form", "json", "x.log"],
        ["explain", "--bogus"],
        ["explain", "--format", "bad"],
        ["run", "--no-tui", "--", "openstack", "server", "list"],
        ["lookup", "--lim", "2", "409"],
        ["probe", "--timeout", "x", "a.log"],
        ["open", "a", "b"],
        *([command, "--help"] for command in ("explain", "run", "open", "kb", "runbook")),
        *([command, "--help"] for command in ("lookup", "probe")),
    ],
)
def test_subcommands_built_on_demand_parse_as_built_up_front(
    argv: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only the subcommand the command line names gets its options; the help,
    the errors, the abbreviations and the values are those of the full parser."""
    monkeypatch.setenv("COLUMNS", "80")
    lazy = _parse(build_parser(), argv)
    full = _parse(build_parser(everything=True), argv)
    assert lazy == full
