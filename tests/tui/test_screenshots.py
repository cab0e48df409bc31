"""The committed screenshots are what scripts/screenshots.py makes today.

If this fails after a deliberate change to the screen, regenerate them:
``PYTHONPATH=. .venv/bin/python scripts/screenshots.py`` and commit screenshots/.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _script() -> object:
    spec = importlib.util.spec_from_file_location(
        "screenshots", ROOT / "scripts" / "screenshots.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_screenshots_are_current(tmp_path: Path) -> None:
    module = _script()
    written = module.build(tmp_path)  # type: ignore[attr-defined]
    names = sorted(p.name for p in written)
    assert names == module.names()  # type: ignore[attr-defined]
    for size in ("80x24", "120x36", "160x45"):
        assert f"failing-run-{size}.svg" in names and f"live-run-{size}.svg" in names
    assert sorted(p.name for p in (ROOT / "screenshots").glob("*.svg")) == names
    stale = [
        name
        for name in names
        if (ROOT / "screenshots" / name).read_text(encoding="utf-8")
        != (tmp_path / name).read_text(encoding="utf-8")
    ]
    assert not stale, f"screenshots/ is stale for {stale}: run scripts/screenshots.py"
