"""The lab's command line, as ``osdoctor lab`` and ``python -m osdoctor.lab``: help
works, and ``serve`` prints the environment to paste into another shell."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from osdoctor.cli import main
from osdoctor.lab import fakes
from osdoctor.lab.__main__ import client_exports
from osdoctor.lab.capture import base_env
from osdoctor.lab.case import select_cases
from osdoctor.run.runner import child_setup

ROOT = Path(__file__).resolve().parents[2]
CASES = select_cases([])


@pytest.mark.parametrize("argv", [["lab", "--help"], ["lab", "-h"], ["lab", "serve", "--help"]])
def test_lab_help_is_shown(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: osdoctor lab")
    assert "unrecognized" not in out


def _exported(lines: list[str]) -> dict[str, str]:
    env: dict[str, str] = {}
    for line in lines:
        words = shlex.split(line)
        if words[0] == "export":
            key, _, value = words[1].partition("=")
            env[key] = value
    return env


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_exports_give_the_clients_environment(case: object) -> None:
    """What a capture gives the client (every OS_ variable, the case's own) is what
    serve says to paste."""
    from osdoctor.lab.case import Case
    from osdoctor.lab.case_placeholders import expand_text

    assert isinstance(case, Case)
    values = {"auth_url": "http://127.0.0.1:1/identity/v3", "port": "1"}
    env = {k: v for k, v in base_env(Path("/h"), values).items() if k.startswith("OS_")}
    for key, value in case.env.items():  # the case's own variables too (a proxy...)
        if value is None:
            env.pop(key, None)
        else:
            env[key] = expand_text(value, values)
    assert _exported(client_exports(case, values)) == env


def test_serve_prints_export_lines_then_stops_on_interrupt() -> None:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "osdoctor",
            "lab",
            "serve",
            "heat.stack-delete.partial",
            "--port",
            "0",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        # As a terminal starts it, whatever started the tests (a background job
        # ignores SIGINT, and so would the server).
        preexec_fn=child_setup(os.getpid()),
    )
    assert proc.stdout is not None
    lines: list[str] = []
    try:
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))
            if line.startswith("then:"):
                break
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            out, _err = proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()  # it did not stop: fail, but leave no server behind
                proc.wait()
    text = "\n".join(lines)
    assert "see fakes.py" not in text
    env = _exported(lines)
    assert env["OS_USERNAME"] == fakes.USER_NAME and env["OS_PASSWORD"] == fakes.PASSWORD
    assert env["OS_AUTH_URL"].startswith("http://127.0.0.1:")
    assert lines[-1].startswith("then: openstack stack delete --wait web db app")
    assert proc.returncode == 0
