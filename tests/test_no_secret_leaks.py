"""No secret from the corpus survives into anything osdoctor keeps or prints.

The corpus lines (tests/secret_corpus.py) are placed in a log as the clients
print them; the parsed trace itself is walked string by string (every front
end renders from it), then each report format, the anonymised report, and a
saved session of a real lab run are checked.

Then the lab's secret cases, each a real client run with the lab's fake
secrets in one shape: their fixtures in every explain format (plain,
anonymised, --why-not), from stdin and in the runbook; and each case run
again through ``osdoctor run --no-tui``, with its report, its saved session
and the explanation of that session checked. (The TUI's checks of the same
cases are in tests/tui/test_no_secret_on_screen.py.)
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from osdoctor.diagnose import diagnose, parse_stream
from osdoctor.kb.loader import load_knowledge
from osdoctor.lab import FAKE_SECRETS
from osdoctor.lab.case import Case
from osdoctor.render.json_report import render_json
from osdoctor.render.markdown_report import render_markdown
from osdoctor.render.text import render_text
from tests.secret_corpus import (
    ALL_SECRETS,
    CASES,
    PASTE_SECRETS,
    PASTES,
    fixture_leaks,
    secret_cases,
    secret_fixtures,
)

ROOT = Path(__file__).resolve().parent.parent
LOG = (
    "START with options: --debug stack create --wait -t t.yaml web\n"
    + "\n".join(case.line for case in CASES)
    + "\n"
    + "\n".join(line for paste in PASTES for line in paste.lines)
    + "\nEND return value: 1\n"
).encode()


def strings(obj: Any, seen: set[int] | None = None) -> list[str]:
    """Every string reachable from a dataclass tree."""
    seen = seen if seen is not None else set()
    if isinstance(obj, str):
        return [obj]
    if id(obj) in seen:
        return []
    seen.add(id(obj))
    out: list[str] = []
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            out += strings(getattr(obj, f.name), seen)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            out += strings(k, seen) + strings(v, seen)
    elif isinstance(obj, list | tuple | set | frozenset):
        for item in obj:
            out += strings(item, seen)
    return out


def leaks(text: str) -> list[str]:
    return sorted(s for s in ALL_SECRETS | PASTE_SECRETS | set(FAKE_SECRETS) if s in text)


def test_corpus_is_large_enough() -> None:
    assert len(CASES) >= 30


def test_parsed_trace_holds_no_secret() -> None:
    trace = parse_stream(io.BytesIO(LOG), "-")
    held = strings(trace)
    assert len(held) > len(CASES)
    for value in held:
        assert leaks(value) == [], value[:200]


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_no_secret_in_any_report_format(fmt: str) -> None:
    report = diagnose(parse_stream(io.BytesIO(LOG), "-"), load_knowledge(user=False))
    out = {
        "text": lambda: render_text(report, colour=True, why_not=True),
        "markdown": lambda: render_markdown(report, why_not=True),
        "json": lambda: render_json(report),
    }[fmt]()
    assert leaks(out) == []
    if fmt == "json":
        json.loads(out)


def test_no_secret_in_the_anonymised_report(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OSDOCTOR_HOME": str(tmp_path)}
    proc = subprocess.run(
        [sys.executable, "-m", "osdoctor", "explain", "-", "--anonymize"],
        input=LOG,
        capture_output=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode in (0, 1), proc.stderr.decode()
    assert leaks(proc.stdout.decode()) == []
    for mapping in (tmp_path / "data" / "exports").glob("*.json"):
        assert leaks(mapping.read_text()) == []


def test_saved_session_of_a_lab_run_holds_no_fake_secret(tmp_path: Path) -> None:
    """A real client against the stub, run by `osdoctor run --no-tui`, with the
    password on the command line where osc-lib's own mask does not reach it."""
    from osdoctor.lab import fakes
    from osdoctor.lab.capture import client_bin_dir
    from osdoctor.lab.stub import Stub

    openstack = client_bin_dir() / "openstack"
    assert openstack.is_file(), "install osdoctor with its 'lab' extra"
    stub = Stub({})
    stub.start()
    try:
        auth_url = stub.values["auth_url"]
        env = {
            "PATH": f"{openstack.parent}:/usr/bin:/bin",
            "HOME": str(tmp_path),
            "PYTHONPATH": str(ROOT),
            "OSDOCTOR_HOME": str(tmp_path / "osd"),
            "OS_AUTH_URL": auth_url,
            "OS_USERNAME": fakes.USER_NAME,
            "OS_PROJECT_NAME": fakes.PROJECT_NAME,
            "OS_USER_DOMAIN_NAME": "Default",
            "OS_PROJECT_DOMAIN_NAME": "Default",
            "OS_IDENTITY_API_VERSION": "3",
        }
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "osdoctor",
                "run",
                "--no-tui",
                "--format",
                "json",
                "--",
                "openstack",
                "--os-password",
                fakes.PASSWORD,
                "token",
                "issue",
            ],
            capture_output=True,
            env=env,
            timeout=180,
            stdin=subprocess.DEVNULL,
        )
    finally:
        stub.stop()
    assert proc.returncode in (0, 1), proc.stderr.decode()
    assert leaks(proc.stdout.decode()) == [] and leaks(proc.stderr.decode()) == []
    (session,) = (tmp_path / "osd" / "data" / "sessions").glob("*.session.log")
    text = session.read_text()
    assert "REQ: curl" in text or "Making authentication request" in text
    assert leaks(text) == []
    assert session.stat().st_mode & 0o777 == 0o600


# --- the lab's secret cases: real-client fixtures in every output -------------------

FIXTURES = secret_fixtures()
IDS = [path.stem for path in FIXTURES]


def test_every_secret_case_has_its_fixture_carrying_a_secret() -> None:
    """The log carries a fake secret, or the command that made it does (swift
    never prints its -K key: only osdoctor's own command line could)."""
    assert len(FIXTURES) >= 16
    for path in FIXTURES:
        raw = path.read_text(encoding="utf-8", errors="replace")
        command = path.with_suffix(".expected.yaml").read_text(encoding="utf-8")
        assert fixture_leaks(raw) or fixture_leaks(command), (
            f"{path.name} carries none of the lab's fake secrets"
        )


def _explain(capsys: pytest.CaptureFixture[str], args: list[str]) -> tuple[int, str, str]:
    from osdoctor.cli import main

    code = main(["explain", *args, "--no-user-kb", "--color", "never"])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("path", FIXTURES, ids=IDS)
@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
@pytest.mark.parametrize(
    "extra", [[], ["--anonymize"], ["--why-not"]], ids=["plain", "anonymize", "why-not"]
)
def test_explain_of_a_secret_fixture_shows_no_secret(
    path: Path,
    fmt: str,
    extra: list[str],
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OSDOCTOR_HOME", str(tmp_path))
    code, out, err = _explain(capsys, [str(path), "--format", fmt, *extra])
    # 2: a client's output with no debug record (swift tempurl signs locally) is
    # not a client log; its report is printed all the same, and must not leak.
    assert code in (0, 1, 2), err
    assert out.strip()
    assert fixture_leaks(out, str(path)) == [] and fixture_leaks(err, str(tmp_path)) == []
    for mapping in (tmp_path / "data" / "exports").glob("*.json"):
        assert fixture_leaks(mapping.read_text(), str(path)) == []


@pytest.mark.parametrize("path", FIXTURES, ids=IDS)
def test_explain_from_stdin_shows_no_secret(
    path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(path.read_bytes())))
    code, out, err = _explain(capsys, ["-", "--format", "json"])
    assert code in (0, 1, 2), err
    assert json.loads(out)["exchanges"] is not None
    assert fixture_leaks(out) == [] and fixture_leaks(err) == []


def test_the_runbook_built_from_the_secret_fixtures_shows_no_secret(tmp_path: Path) -> None:
    from osdoctor.runbook.build import build_runbook

    fixtures = tmp_path / "fixtures"
    fixtures.mkdir()
    for path in FIXTURES:
        for part in (path, path.with_suffix(".expected.yaml")):
            (fixtures / part.name).write_bytes(part.read_bytes())
    pages = build_runbook(load_knowledge(user=False), fixtures, "markdown")
    assert pages
    for name, text in pages.items():
        # The index names the secret fixtures, whose names hold words of the fakes.
        assert fixture_leaks(text, " ".join(p.name for p in FIXTURES)) == [], name


def _run_case(
    case: Case, tmp_path: Path, fmt: str = "json"
) -> tuple[subprocess.CompletedProcess[bytes], Path]:
    """Run the case's real client through ``osdoctor run --no-tui`` against its stub,
    as the lab's capture would run it; returns the run and osdoctor's home."""
    from osdoctor.lab.capture import client_bin_dir, prepare_run
    from osdoctor.lab.stub import Stub

    home, work, osd = tmp_path / "home", tmp_path / "work", tmp_path / "osd"
    home.mkdir()
    work.mkdir()
    stub = Stub(case.stub)
    stub.start()
    try:
        args, env = prepare_run(case, stub.values, home, work)
        env.update({"PYTHONPATH": str(ROOT), "OSDOCTOR_HOME": str(osd)})
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "osdoctor",
                "run",
                "--no-tui",
                "--yes",
                "--no-user-kb",
                "--format",
                fmt,
                "--",
                str(client_bin_dir() / case.command[0]),
                *args,
            ],
            capture_output=True,
            env=env,
            cwd=work,
            timeout=180,
            stdin=subprocess.DEVNULL,
        )
    finally:
        stub.stop()
    return proc, osd


@pytest.mark.parametrize("case", secret_cases(), ids=lambda case: case.id)
def test_a_live_run_of_a_secret_case_shows_and_saves_no_secret(
    case: Case, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    proc, osd = _run_case(case, tmp_path)
    assert proc.returncode in (0, 1), proc.stderr.decode()
    out, err = proc.stdout.decode(), proc.stderr.decode()
    report = json.loads(out)
    assert report["command"].split()[0].endswith(case.command[0])
    assert fixture_leaks(out) == [] and fixture_leaks(err, str(osd)) == []
    (session,) = (osd / "data" / "sessions").glob("*.session.log")
    text = session.read_text()
    assert fixture_leaks(text, session.name) == []
    assert session.stat().st_mode & 0o777 == 0o600
    for folder in (osd / "data", osd / "data" / "sessions"):
        assert folder.stat().st_mode & 0o777 == 0o700
    monkeypatch.setenv("OSDOCTOR_HOME", str(osd))
    for fmt in ("text", "json"):
        code, shown, _err = _explain(capsys, [str(session), "--format", fmt])
        assert code in (0, 1)
        assert fixture_leaks(shown, str(session)) == []
