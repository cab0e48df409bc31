"""One comparison of two traces, for the tests that read the same log two ways.

The block path (``intake.parsed_stream``, through the line source) must give the
very trace that reading one line at a time gives (``intake.parsed_lines``): the
same exchanges, folds, messages, line numbers and problems. What may differ is left out here, once:
the count of client lines (approximate when whole polling rounds are skipped)
and the decoded-JSON cache of a body (filled only when something asks).
"""

from __future__ import annotations

import dataclasses
import io
from typing import Any

from osdoctor.intake import parsed_lines, parsed_stream
from osdoctor.model import Trace
from osdoctor.parse.lines import read_lines
from osdoctor.parse.parser import Parser
from osdoctor.parse.wraps import Widths


def comparable(trace: Trace) -> dict[str, Any]:
    """The trace as plain data, without what two readings may rightly differ in."""
    data = dataclasses.asdict(trace)
    data.pop("openstack_lines")
    stripped: dict[str, Any] = _strip_json(data)
    return stripped


def _strip_json(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_json(v) for k, v in value.items() if k != "_json"}
    if isinstance(value, list):
        return [_strip_json(v) for v in value]
    return value


def by_lines(data: bytes, widths: Widths | None = None) -> Parser:
    """A parser that read ``data`` one line at a time."""
    return parsed_lines(read_lines(io.BytesIO(data)), "x", widths or Widths())


def by_blocks(data: bytes, block: int = 1 << 20, widths: Widths | None = None) -> Parser:
    """A parser that read ``data`` in blocks of about ``block`` bytes, as intake does."""
    return parsed_stream(io.BytesIO(data), "x", widths or Widths(), block)
