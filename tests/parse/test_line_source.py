"""The line source alone: bytes in, numbered lines out, into a recording sink
that stands for the parser (no parser is made here)."""

from __future__ import annotations

import io
import subprocess
import sys

from osdoctor.parse.line_source import LineSource, next_line, whole_lines
from osdoctor.parse.lines import MAX_LINE


class Sink:
    """Records the lines fed; ``opening`` says where rounds begin (the fast path,
    which is the sink itself here)."""

    def __init__(self, opening: bytes | None = None, wait: bool = False) -> None:
        self.lines: list[tuple[int, str, int]] = []
        self.opening = opening
        self.wait = wait
        self.asked = 0
        self.left: list[int] = []
        self.skipped: list[bytes] = []
        self.rounds = self

    def feed(self, number: int, raw: str, cut: int = 0, time: float | None = None) -> None:
        self.lines.append((number, raw, cut))

    def lead(self, data: bytes, pos: int) -> bool:
        self.asked += 1
        return self.opening is not None and data.startswith(self.opening, pos)

    def skip(self, data: bytes, pos: int, number: int, more: bool) -> tuple[int, int, bool]:
        """Skips one line, the round; with ``wait`` and ``more``, waits for more."""
        if self.wait and more:
            return pos, number, True
        end = data.index(b"\n", pos) + 1
        self.skipped.append(data[pos:end])
        return end, number + 1, False

    def leave(self, number: int) -> None:
        self.left.append(number)


def read(
    data: bytes, wrap_width: int | None = None, block: int = 1 << 20
) -> list[tuple[int, str, int]]:
    sink = Sink()
    LineSource(sink, wrap_width).read(io.BytesIO(data), block=block)
    return sink.lines


def test_lines_are_numbered_from_one_and_cleaned_of_crlf_colours_and_nuls() -> None:
    lines = read(b"one\r\n\x1b[31mtwo\x1b[0m\nth\x00ree\nlast without newline")
    assert lines == [(1, "one", 0), (2, "two", 0), (3, "three", 0), (4, "last without newline", 0)]


def test_lines_read_in_small_blocks_are_the_same_lines() -> None:
    data = b"".join(b"line %d with some words\r\n" % n for n in range(200))
    assert read(data, block=64) == read(data)


def test_a_line_longer_than_the_limit_keeps_its_head_and_says_how_much_was_cut() -> None:
    lines = read(b"before\n" + b"x" * (MAX_LINE + 10) + b"\nafter\n")
    assert [(n, len(t), c) for n, t, c in lines] == [(1, 6, 0), (2, MAX_LINE, 10), (3, 5, 0)]


def test_a_run_of_many_starts_numbering_after_the_line_it_follows() -> None:
    sink = Sink()
    LineSource(sink, number=41).block(b"a\nb\n")
    assert sink.lines == [(42, "a", 0), (43, "b", 0)]


def test_the_fast_path_skips_the_rounds_it_leads_and_counts_their_lines() -> None:
    sink = Sink(opening=b"ROUND")
    source = LineSource(sink)
    source.block(b"a\nROUND 1\nb\n")
    assert sink.lines == [(1, "a", 0), (3, "b", 0)] and sink.skipped == [b"ROUND 1\n"]
    assert source.number == 3


def test_a_round_a_block_may_have_cut_is_held_back_until_the_next_block() -> None:
    sink = Sink(opening=b"ROUND", wait=True)
    source = LineSource(sink)
    source.block(b"a\nROUND 1\n", more=True)
    assert sink.lines == [(1, "a", 0)]
    sink.wait = False
    source.block(b"c\n")
    assert sink.lines == [(1, "a", 0), (3, "c", 0)] and sink.skipped == [b"ROUND 1\n"]


def test_settling_decides_what_was_held_back() -> None:
    sink = Sink(opening=b"ROUND", wait=True)
    source = LineSource(sink)
    source.block(b"ROUND 1\n", more=True)
    source.settle()
    assert sink.skipped == [b"ROUND 1\n"] and source.number == 1


def test_a_folded_paste_and_a_block_to_clean_are_read_line_by_line() -> None:
    sink = Sink(opening=b"ROUND")
    LineSource(sink, wrap_width=80).block(b"ROUND 1\n")
    assert sink.asked == 0 and sink.lines == [(1, "ROUND 1", 0)] and sink.left == [0]
    sink = Sink(opening=b"ROUND")
    LineSource(sink).block(b"ROUND 1\r\n")
    assert sink.asked == 0 and sink.lines == [(1, "ROUND 1", 0)] and sink.left == [0]


def test_where_a_run_begins_the_lines_before_are_fed_first() -> None:
    sink = Sink()
    seen: list[tuple[int, int]] = []
    data = b"a\nb\nSTART\nc\n"

    def at_run(line: int, read: int) -> None:
        seen.append((line, len(sink.lines)))

    count = LineSource(sink).read(io.BytesIO(data), lambda d: [d.index(b"START")], at_run)
    assert seen == [(3, 2)] and count == 4 and [n for n, _t, _c in sink.lines] == [1, 2, 3, 4]


def test_a_window_feeds_its_lines_only_numbered_as_in_the_log() -> None:
    sink = Sink()
    data = b"".join(b"%d\n" % n for n in range(1, 11))
    followed = LineSource(sink, number=3).read_window(io.BytesIO(data), 4, 6)
    assert sink.lines == [(4, "4", 0), (5, "5", 0), (6, "6", 0)] and followed
    sink = Sink()
    assert not LineSource(sink, number=8).read_window(io.BytesIO(data), 9, 10)


def test_a_growing_file_is_read_in_whole_lines() -> None:
    handle = io.BytesIO(b"one\ntwo\npart")
    assert whole_lines(handle, 1 << 20) == (0, b"one\ntwo\n")
    assert whole_lines(handle, 1 << 20) == (8, b"")
    assert next_line(handle, final=False) is None and handle.tell() == 8
    assert next_line(handle, final=True) == (8, "part", 0)
    assert next_line(handle, final=True) is None


def test_the_line_source_stands_without_the_parser() -> None:
    code = (
        "import sys, osdoctor.parse.line_source; "
        "print(sorted(m for m in sys.modules if m.startswith('osdoctor.parse.')))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    # Only what lines are: the parser, its readers and its fast path stay unloaded.
    assert loaded == "['osdoctor.parse.line_source', 'osdoctor.parse.lines']\n"
