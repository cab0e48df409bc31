"""Whatever the block size, the block path gives the trace of a reading one line
at a time: every fixture and every public log, cut anywhere.

The block path (``parse.line_source.LineSource``, through ``intake.parsed_stream``)
is what ``osdoctor explain`` and the TUI use; it may skip, classify or redact a
block at once, but what comes out (the exchanges, folds, messages, tracebacks,
line numbers and problems) must be the very trace of the same lines fed one by
one (``intake.parsed_lines``). A block edge may fall inside a request, a body,
a traceback or a wrapped line.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from osdoctor.parse.wraps import SNIFF_BYTES, Widths, detect_widths_bytes
from tests.helpers.public_logs import PUBLIC_LOGS
from tests.helpers.traces import by_blocks, by_lines, comparable

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted((ROOT / "tests" / "fixtures" / "logs").glob("*.log"))
PUBLIC = sorted(PUBLIC_LOGS.glob("*.log"))

#: From 512 B to 4 MiB, most of them small enough to cut a small log many times.
BLOCKS = st.integers(512, 16 * 1024) | st.integers(512, 4 * 1024 * 1024)


@cache
def reference(path: Path) -> tuple[bytes, Widths, dict[str, Any]]:
    data = path.read_bytes()
    widths = detect_widths_bytes(data[:SNIFF_BYTES])
    return data, widths, comparable(by_lines(data, widths).trace)


def test_the_public_logs_are_there() -> None:
    assert len(PUBLIC) >= 20 and len(FIXTURES) >= 100


@pytest.mark.parametrize("path", FIXTURES + PUBLIC, ids=[p.name for p in FIXTURES + PUBLIC])
@settings(
    max_examples=4,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(block=BLOCKS)
def test_every_block_size_gives_the_line_by_line_trace(path: Path, block: int) -> None:
    data, widths, expected = reference(path)
    assert comparable(by_blocks(data, block, widths).trace) == expected
