"""``osdoctor probe`` on a real client log, with the lab stub playing the cloud now.

The fixture was captured against the stub on the port its .expected.yaml records
(``stub_port``); the test's stub
listens elsewhere, and ``--map`` says so explicitly (the documented way to
probe a host other than the one the log names). The rule comes from a
knowledge folder given with ``--kb``, as a support engineer's own rule would.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from osdoctor.cli import main
from osdoctor.lab import FAKE_SECRETS
from osdoctor.lab.case import CASES_DIR, load_case
from osdoctor.lab.stub import Stub

from .conftest import stub_env

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "logs" / "heat.stack-update.redirect-missing.log"
RULE = """\
id: test.heat-lookup-without-location
title: Heat's name lookup answered 302 without a Location
severity: error
when:
  - request: {service: orchestration, method: GET, path: "/stacks/{stack}", status: 302,
              no_header: Location}
explanation: The lookup of {stack} was not answered by Heat.
next_steps: ["Check what answers the Heat endpoint"]
references:
  - {seed: 000_416000e4d6ae2dea.txt, section: 2}
probe: {name: heat-redirect, stack: "{stack}"}
"""


def fixture_host(log: Path = FIXTURE) -> str:
    """Where the stub was when ``log`` was captured (each capture takes a free port)."""
    expected = yaml.safe_load(
        log.with_name(log.name.replace(".log", ".expected.yaml")).read_text(encoding="utf-8")
    )
    return f"127.0.0.1:{expected['stub_port']}"


@pytest.fixture
def user_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No clouds.yaml, no OS_* of the machine running the tests; a knowledge folder."""
    for name in list(__import__("os").environ):
        if name.startswith("OS_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "rule.yaml").write_text(RULE, encoding="utf-8")
    return kb


def run(stub: Stub, kb: Path, monkeypatch: pytest.MonkeyPatch, *extra: str) -> int:
    for key, value in stub_env(stub).items():
        monkeypatch.setenv(key, value)
    return main(
        [
            "probe",
            str(FIXTURE),
            "--kb",
            str(kb),
            "--no-user-kb",
            "--map",
            f"{fixture_host()}=127.0.0.1:{stub.port}",
            *extra,
        ]
    )


def case_stub() -> Stub:
    return Stub(load_case(CASES_DIR / "heat.stack-update" / "redirect-missing.yaml").stub)


def test_probe_confirms_the_redirect_missing_fixture(
    user_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with case_stub() as stub:
        code = run(stub, user_env, monkeypatch, "--yes")
        methods = {(r.method, r.path.rsplit("/", 1)[-1]) for r in stub.requests}
    out, err = capsys.readouterr()
    assert code == 1, err
    assert "[confirmed] test.heat-lookup-without-location" in out
    assert "without a Location" in out
    assert f"127.0.0.1:{stub.port}" in err and "mapped" in err
    assert methods == {("GET", "v3"), ("POST", "tokens"), ("GET", "web")}
    for secret in FAKE_SECRETS:
        assert secret not in out and secret not in err


def test_probe_json_carries_the_result_and_keeps_the_contract(
    user_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with case_stub() as stub:
        run(stub, user_env, monkeypatch, "--yes", "--format", "json")
    data = json.loads(capsys.readouterr().out)
    for key in (
        "osdoctor",
        "source",
        "command",
        "client",
        "exit_code",
        "outcome",
        "scenario",
        "exchanges",
        "findings",
    ):
        assert key in data
    (ours,) = [f for f in data["findings"] if f["id"] == "test.heat-lookup-without-location"]
    assert ours["probe"]["name"] == "heat-redirect"
    assert ours["probe"]["status"] == "confirmed"
    assert all("probe" in f for f in data["findings"])
    assert [r["method"] for r in data["probes"]["requests"]] == ["GET", "POST", "GET"]


def test_probe_reports_not_reproduced_once_heat_answers_again(
    user_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    route = {
        "service": "orchestration",
        "method": "GET",
        "path": "/stacks/web",
        "answers": [{"status": 302, "headers": {"Location": "{url.orchestration}/stacks/web/abc"}}],
    }
    with Stub({"routes": [route]}) as stub:
        run(stub, user_env, monkeypatch, "--yes")
    out = capsys.readouterr().out
    assert "[not reproduced] test.heat-lookup-without-location" in out


def test_without_a_terminal_or_yes_nothing_is_sent(
    user_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with case_stub() as stub:
        code = run(stub, user_env, monkeypatch)
        assert stub.requests == []
    err = capsys.readouterr().err
    assert code == 2
    assert "add --yes" in err and "will contact" in err


def test_a_log_host_that_is_not_mapped_is_not_contacted(
    user_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with case_stub() as stub:
        for key, value in stub_env(stub).items():
            monkeypatch.setenv(key, value)
        main(["probe", str(FIXTURE), "--kb", str(user_env), "--no-user-kb", "--yes"])
        assert stub.requests == []
    out = capsys.readouterr().out
    assert "[could not check] test.heat-lookup-without-location" in out


def test_bad_input_is_a_clear_error(user_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["probe", str(user_env / "nope.log")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["probe", str(FIXTURE), "--map", "nonsense"]) == 2
    assert "LOGHOST:PORT=HOST:PORT" in capsys.readouterr().err


AUTH_REFUSED = ROOT / "tests" / "fixtures" / "logs" / "osc.auth.auth-refused.log"


@pytest.mark.parametrize("auth,status", [("refuse", "confirmed"), ("accept", "not reproduced")])
def test_the_built_in_auth_refused_rule_is_probed(
    auth: str,
    status: str,
    tmp_path: Path,
    user_env: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with Stub({"stub": {"auth": auth}}) as stub:
        for key, value in stub_env(stub).items():
            monkeypatch.setenv(key, value)
        main(
            [
                "probe",
                str(AUTH_REFUSED),
                "--no-user-kb",
                "--yes",
                "--map",
                f"{fixture_host(AUTH_REFUSED)}=127.0.0.1:{stub.port}",
            ]
        )
    out = capsys.readouterr().out
    assert f"[{status}] osc.auth-refused" in out


def test_probe_confirms_the_built_in_redirect_rule(
    user_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The shipped knowledge alone: the redirect-missing fixture's finding names the
    heat-redirect probe, and the stub playing the proxy confirms it."""
    with case_stub() as stub:
        for key, value in stub_env(stub).items():
            monkeypatch.setenv(key, value)
        code = main(
            [
                "probe",
                str(FIXTURE),
                "--no-user-kb",
                "--yes",
                "--map",
                f"{fixture_host()}=127.0.0.1:{stub.port}",
            ]
        )
        gets = [r for r in stub.requests if r.method == "GET" and r.path.endswith("/web")]
    out = capsys.readouterr().out
    assert code == 1
    assert "[confirmed] heat.redirect-without-location" in out
    assert len(gets) == 1
