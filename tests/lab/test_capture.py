"""The capture runs the REAL clients against the stub: the lab extra is part of the CI install."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml

from osdoctor.lab import FAKE_SECRETS
from osdoctor.lab.capture import (
    NEUTRAL_HOME,
    NEUTRAL_PREFIX,
    NEUTRAL_WORK,
    NeutralPaths,
    capture,
    client_bin_dir,
)
from osdoctor.lab.case import select_cases

FAST_CASES = ["osc.auth.auth-refused", "ironic.conflict-retry.retry-after-typeerror"]


def require_real_clients() -> None:
    executable = client_bin_dir() / "openstack"
    if not executable.is_file():
        pytest.fail(
            f"{executable} is missing: the lab needs the real clients "
            "(install osdoctor with its 'lab' extra: pip install -e '.[lab]')"
        )


def test_capture_writes_the_clients_output_and_the_expectations(tmp_path: Path) -> None:
    require_real_clients()
    progress: list[str] = []
    results = capture(
        select_cases(FAST_CASES),
        out_dir=tmp_path / "logs",
        port=0,
        workroot=tmp_path / "work",
        report=progress.append,
    )
    assert [r.exit_code for r in results] == [1, 1]
    assert not any(r.exit_code_differs for r in results)

    refused = (tmp_path / "logs" / "osc.auth.auth-refused.log").read_text()
    assert refused.startswith("START with options: --debug server list")
    assert "The request you have made requires authentication. (HTTP 401)" in refused
    assert refused.rstrip().endswith("END return value: 1")

    ironic = (tmp_path / "logs" / "ironic.conflict-retry.retry-after-typeerror.log").read_text()
    assert "Retry-After: 5" in ironic
    assert "TypeError: HttpError.__init__() got an unexpected keyword argument 'retry_after'" in (
        ironic
    )
    for text in (refused, ironic):
        assert not [secret for secret in FAKE_SECRETS if secret in text]

    logs = tmp_path / "logs"
    expected = yaml.safe_load(
        (logs / "ironic.conflict-retry.retry-after-typeerror.expected.yaml").read_text()
    )
    assert expected["command"] == [
        "openstack", "--debug", "baremetal", "node", "create", "--driver", "fake-hardware",
    ]  # fmt: skip
    assert expected["exit_code"] == 1
    assert expected["clients"]["python-ironicclient"] == "6.3.0"
    assert expected["scenario"] == "ironic.conflict-retry"
    assert expected["branch"] == "retry-after-typeerror"
    assert (expected["outcome"], expected["findings"]) == (
        "failure",
        ["ironic.retry-after-typeerror"],
    )
    assert any("osc.auth.auth-refused: exit 1 (ok)" in line for line in progress)


def test_the_capture_writes_neutral_paths_for_the_machines_own(tmp_path: Path) -> None:
    """The work dir (in what the client printed and in the recorded command), the
    virtualenv and its Python in tracebacks: never the capturing machine's folders."""
    require_real_clients()
    (result,) = capture(
        select_cases(["heat.stack-create.local-file-missing"]),
        out_dir=tmp_path / "logs",
        port=0,
        workroot=tmp_path / "work",
        report=lambda line: None,
    )
    log = result.log_path.read_text()
    assert "No such file or directory: '/home/user/work/absent.yaml'" in log
    assert 'File "/opt/openstack-cli/lib/python3.' in log
    for machine in (str(tmp_path), sys.prefix, sys.base_prefix, str(Path.home())):
        assert machine not in log
    assert result.output == result.log_path.read_bytes()
    command = yaml.safe_load(result.expected_path.read_text())["command"]
    assert command[:2] == ["openstack", "--debug"] and str(tmp_path) not in " ".join(command)


def test_neutral_paths_replace_whole_paths_only_and_the_longest_first(tmp_path: Path) -> None:
    neutral = NeutralPaths(tmp_path / "home", tmp_path / "work")
    assert neutral.text(f"{tmp_path}/work/t.yaml {tmp_path}/workshop") == (
        f"{NEUTRAL_WORK}/t.yaml {tmp_path}/workshop"
    )
    venv = f'File "{sys.prefix}/lib/x.py" and file://{tmp_path}/home/.config'
    assert neutral.data(venv.encode()) == (
        f'File "{NEUTRAL_PREFIX}/lib/x.py" and file://{NEUTRAL_HOME}/.config'.encode()
    )
    assert neutral.text(f"x{sys.prefix}/lib") == f"x{sys.prefix}/lib"
    assert neutral.text(NEUTRAL_WORK) == NEUTRAL_WORK  # never rewritten again
