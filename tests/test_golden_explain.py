"""``osdoctor explain`` in text, Markdown and JSON, compared exactly with the
outputs kept under ``tests/golden/explain/``, for a handful of real client
logs: a Heat failure, an osc lookup, an Ironic seed scenario, a generic HTTP
failure, a healthy run and a log holding secrets.

Any change to what a report says shows here as a diff a reviewer reads. To
accept a change, regenerate the outputs and read ``git diff tests/golden``:

    OSDOCTOR_GOLDEN=update python -m pytest -q tests/test_golden_explain.py
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from osdoctor.cli import main
from osdoctor.lab import FAKE_SECRETS

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden" / "explain"
FIXTURES = [
    "heat.stack-create.create-failed",
    "osc.find-by-name.not-found",
    "ironic.conflict-retry.retry-after-typeerror",
    "generic.osc-port-create-409-ip-allocated",
    "osc.server-create.active",
    "heat.stack-create.secret-parameter-names",
]
FORMATS = {"text": "txt", "markdown": "md", "json": "json"}
UPDATE = os.environ.get("OSDOCTOR_GOLDEN") == "update"


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", FIXTURES)
def test_explain_says_exactly_what_it_said(
    name: str,
    fmt: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(ROOT)  # the report names its log as given: relative, the same anywhere
    monkeypatch.setenv("OSDOCTOR_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("NO_COLOR", "1")
    log = f"tests/fixtures/logs/{name}.log"
    main(["explain", log, "--format", fmt, "--no-user-kb"])
    said = capsys.readouterr().out
    assert not [s for s in FAKE_SECRETS if s in said]  # never kept, so never reviewed as normal
    golden = GOLDEN / f"{name}.{FORMATS[fmt]}"
    if UPDATE:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(said, encoding="utf-8")
    assert golden.is_file(), f"no golden output {golden.name}: see this file's docstring"
    assert said == golden.read_text(encoding="utf-8")


def test_every_golden_output_belongs_to_a_fixture_here() -> None:
    """A golden file left behind by a renamed fixture would never be compared."""
    kept = {p.name for p in GOLDEN.iterdir()}
    assert kept == {f"{n}.{ext}" for n in FIXTURES for ext in FORMATS.values()}
