"""The built wheel carries the knowledge and works from a fresh virtualenv,
far from the source checkout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_wheel_installs_and_explains_outside_the_checkout(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(dist),
            str(ROOT),
        ],
        check=True,
        timeout=300,
    )
    (wheel,) = dist.glob("osdoctor-*.whl")

    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    py = env_dir / "bin" / "python"
    purelib = subprocess.run(
        [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    # Install the wheel alone, then let the fresh interpreter find the runtime
    # dependencies (PyYAML, platformdirs) in this interpreter's site-packages,
    # AFTER its own: a plain path entry, so no editable-install hook runs.
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "-q",
            "--target",
            purelib,
            str(wheel),
        ],
        check=True,
        timeout=300,
    )
    Path(purelib, "zz_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    log = ROOT / "tests" / "fixtures" / "logs"
    sample = next(iter(sorted(log.glob("*.log"))))
    work = tmp_path / "elsewhere"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["OSDOCTOR_HOME"] = str(tmp_path / "home")
    where = subprocess.run(
        [str(py), "-c", "import osdoctor; print(osdoctor.__file__)"],
        cwd=work,
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    assert where.stdout.strip().startswith(purelib)
    proc = subprocess.run(
        [str(py), "-m", "osdoctor", "explain", str(sample), "--format", "json"],
        cwd=work,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode in (0, 1), proc.stderr
    assert "knowledge not loaded" not in proc.stderr
    report = json.loads(proc.stdout)
    assert report["source"] == str(sample)
    kb = subprocess.run(
        [str(py), "-m", "osdoctor", "kb", "list"],
        cwd=work,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert "osc.auth" in kb.stdout
    # The JSON Lines schema ships inside the package, beside the code that writes to it.
    schema = subprocess.run(
        [str(py), "-c", "from osdoctor.render.jsonl import schema; print(schema()['title'])"],
        cwd=work,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert "jsonl" in schema.stdout, schema.stderr
