"""A saved log of a long wait opens through the parser's fast path, as explain
reads it: the same trace, and every line where the log pane looks for it."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from osdoctor.diagnose import parse_path
from osdoctor.model import Trace
from osdoctor.parse.parser import FOLD_KEEP, Parser
from tests.test_parser_rounds import POLLS, polling_log
from tests.tui.conftest import steady_app, wait_until

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def long_wait(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("wait") / "long-wait.log"
    # Over two blocks of the reader, so that a round is cut between two reads; one
    # run (two copies of it would be a log of two runs, which opens on its run list).
    path.write_bytes(
        polling_log(*POLLS[0], rounds=20 * FOLD_KEEP, noise_every=9, odd_line_at=7 * FOLD_KEEP)
    )
    assert path.stat().st_size > 2 << 20
    return path


async def test_a_long_wait_reads_as_explain_reads_it(
    long_wait: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = parse_path(long_wait)
    matched: list[int] = []
    finish = Parser.finish

    def spy(self: Parser) -> Trace:
        matched.append(self.rounds.matched)
        return finish(self)

    monkeypatch.setattr(Parser, "finish", spy)
    app = steady_app(log=long_wait)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = app.main
        await wait_until(pilot, lambda: screen.state == "read" and screen.final, timeout=60)
        trace = screen.trace
        assert trace is not None and screen.lines is not None
        assert dataclasses.asdict(trace)["folds"] == dataclasses.asdict(expected)["folds"]
        assert [(e.index, e.first_line, e.last_line, e.status) for e in trace.exchanges] == [
            (e.index, e.first_line, e.last_line, e.status) for e in expected.exchanges
        ]
        assert trace.line_count == expected.line_count
        assert matched and matched[-1] > 10 * FOLD_KEEP  # rounds matched whole, not line by line
        lines = long_wait.read_text().splitlines()
        assert len(screen.lines) == len(lines)
        for number in (1, 2, 1000, 5001, len(lines) // 2, len(lines) - 1, len(lines)):
            assert screen.lines.text(number) == lines[number - 1]
