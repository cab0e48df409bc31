"""No secret from the corpus survives into anything osdoctor keeps or prints.

The corpus lines (tests/secret_corpus.py) are placed in a log as the clients
print them; the parsed trace itself is walked string by string (every front
end renders from it), then each report format, the anonymised report, and a
saved session of a real lab run are checked.
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
from osdoctor.render.json_report import render_json
from osdoctor.render.markdown import render_markdown
from osdoctor.render.text import render_text
from tests.secret_corpus import ALL_SECRETS, CASES

ROOT = Path(__file__).resolve().parent.parent
LOG = ("START with options: --debug stack create --wait -t t.yaml web\n"
       + "\n".join(case.line for case in CASES) + "\nEND return value: 1\n").encode()


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
    return sorted(s for s in ALL_SECRETS | set(FAKE_SECRETS) if s in text)


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
    out = {"text": lambda: render_text(report, colour=True, why_not=True),
           "markdown": lambda: render_markdown(report, why_not=True),
           "json": lambda: render_json(report)}[fmt]()
    assert leaks(out) == []
    if fmt == "json":
        json.loads(out)


def test_no_secret_in_the_anonymised_report(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OSDOCTOR_HOME": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-m", "osdoctor", "explain", "-", "--anonymize"],
                          input=LOG, capture_output=True, env=env, timeout=120)
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
        env = {"PATH": f"{openstack.parent}:/usr/bin:/bin", "HOME": str(tmp_path),
               "PYTHONPATH": str(ROOT), "OSDOCTOR_HOME": str(tmp_path / "osd"),
               "OS_AUTH_URL": auth_url, "OS_USERNAME": fakes.USER_NAME,
               "OS_PROJECT_NAME": fakes.PROJECT_NAME, "OS_USER_DOMAIN_NAME": "Default",
               "OS_PROJECT_DOMAIN_NAME": "Default", "OS_IDENTITY_API_VERSION": "3"}
        proc = subprocess.run(
            [sys.executable, "-m", "osdoctor", "run", "--no-tui", "--format", "json", "--",
             "openstack", "--os-password", fakes.PASSWORD, "token", "issue"],
            capture_output=True, env=env, timeout=180, stdin=subprocess.DEVNULL)
    finally:
        stub.stop()
    assert proc.returncode in (0, 1), proc.stderr.decode()
    assert leaks(proc.stdout.decode()) == [] and leaks(proc.stderr.decode()) == []
    (session,) = (tmp_path / "osd" / "data" / "sessions").glob("*.session.log")
    text = session.read_text()
    assert "REQ: curl" in text or "Making authentication request" in text
    assert leaks(text) == []
    assert session.stat().st_mode & 0o777 == 0o600
