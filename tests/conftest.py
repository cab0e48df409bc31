"""Shared test settings.

Hypothesis runs derandomized (a fixed seed derived from each test) so that CI is
repeatable, with no per-example deadline: the budget per test is set by its own
``max_examples`` (the default, 100, where a test does not say).

Every test runs with a private osdoctor home (``OSDOCTOR_HOME``), one per
xdist worker: sessions, exports, caches and user knowledge never touch the
user's, nor another worker's, while the knowledge cache stays warm from test to
test as it would in the user's. A test that needs a home of its own (or none)
sets or removes the variable itself.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "osdoctor",
    derandomize=True,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("osdoctor")


@pytest.fixture(scope="session")
def worker_osdoctor_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("osdoctor-home")


@pytest.fixture(autouse=True)
def private_osdoctor_home(worker_osdoctor_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("OSDOCTOR_HOME", str(worker_osdoctor_home))
    return worker_osdoctor_home
