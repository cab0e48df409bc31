"""``osdoctor explain`` starts fast: it must not import the TUI or HTTP stacks."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN = ("textual", "httpx", "keystoneauth1", "rich")
#: Loaded only when a big log of many runs needs them (``osdoctor.runs.runworker``).
LATE = ("multiprocessing",)

PROBE = """
import sys, io
from osdoctor.cli import main
sys.stdin = io.TextIOWrapper(io.BytesIO(sys.argv[1].encode()))
sys.stdout = io.StringIO()
code = main(["explain", "-", "--format", "json"])
loaded = sorted({m.split(".")[0] for m in sys.modules})
sys.__stdout__.write(" ".join(loaded))
"""


def test_explain_imports_no_front_end_or_http_library() -> None:
    log = "START with options: --debug server list\nEND return value: 0\n"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OSDOCTOR_HOME": "/nonexistent-osdoctor-home"}
    out = subprocess.run(
        [sys.executable, "-c", PROBE, log],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=60,
    ).stdout.split()
    assert "osdoctor" in out
    for name in FORBIDDEN + LATE:
        assert name not in out, f"osdoctor explain imported {name}"


def test_importtime_shows_no_forbidden_module() -> None:
    log = ROOT / "tests" / "fixtures" / "logs"
    sample = next(iter(sorted(log.glob("*.log"))), None)
    assert sample is not None, "no fixture log to explain"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OSDOCTOR_HOME": "/nonexistent-osdoctor-home"}
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "osdoctor", "explain", str(sample)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    imported = {
        line.split("|")[-1].strip().split(".")[0]
        for line in proc.stderr.splitlines()
        if line.startswith("import time:")
    }
    assert "osdoctor" in imported
    for name in FORBIDDEN:
        assert name not in imported, f"osdoctor explain imported {name}"
