"""SVG snapshots of the main screens at a fixed size (pytest-textual-snapshot).

Update deliberately with ``pytest tests/tui/test_snapshots.py --snapshot-update``
after checking the new pictures: textual is pinned so that they change only
when the screen does.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from osdoctor.tui.app import OsdoctorApp
from tests.tui.conftest import steady_app, wait_until
from tests.tui.screen import settle

SIZE = (140, 40)
Compare = Callable[..., bool]


@pytest.fixture
def local_log(refused_log: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The log under a fixed relative name, so that the status line is the same anywhere."""
    shutil.copy(refused_log, tmp_path / "refused.log")
    monkeypatch.chdir(tmp_path)
    return Path("refused.log")


def _opened(app: OsdoctorApp) -> Callable[[Pilot[Any]], object]:
    async def ready(pilot: Pilot[Any]) -> None:
        await wait_until(pilot, lambda: app.main.state == "read")
        await settle(pilot)

    return ready


def test_diagnosis_of_an_opened_log(snap_compare: Compare, local_log: Path) -> None:
    app = steady_app(log=local_log)
    assert snap_compare(app, terminal_size=SIZE, run_before=_opened(app))


def test_scenario_of_an_opened_log(snap_compare: Compare, local_log: Path) -> None:
    # (the raw log pane is left out: the client's tracebacks name its install paths)
    app = steady_app(log=local_log)
    assert snap_compare(app, terminal_size=SIZE, run_before=_opened(app), press=["3"])


def test_confirmation_of_a_destructive_command(snap_compare: Compare) -> None:
    app = steady_app(command=["openstack", "stack", "delete", "web"])
    assert snap_compare(app, terminal_size=SIZE, run_before=settle)


def test_empty_session_prompt(snap_compare: Compare) -> None:
    assert snap_compare(steady_app(), terminal_size=SIZE, run_before=settle)
