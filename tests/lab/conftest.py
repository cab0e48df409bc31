"""Stubs started by a test and stopped after it, whatever happens."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from osdoctor.lab import Stub


@pytest.fixture
def make_stub() -> Iterator[Any]:
    started: list[Stub] = []

    def make(config: dict[str, Any] | None = None) -> Stub:
        stub = Stub(config or {})
        stub.start()
        started.append(stub)
        return stub

    yield make
    for stub in started:
        stub.stop()
