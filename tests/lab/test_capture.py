"""The capture runs the REAL clients against the stub: the lab extra is part of the CI install."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from osdoctor.lab import FAKE_SECRETS
from osdoctor.lab.capture import capture, client_bin_dir
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
