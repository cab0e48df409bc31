"""The fast path over long polling runs gives the very trace the line-by-line
parser gives: same exchanges, folds, messages, line numbers.

The logs are real captures whose polling round is repeated, as a long wait
repeats it, with what real runs add: changing request ids and dates,
connection lines, a line printed in the middle of the run, another run after
it, a block boundary anywhere.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from osdoctor.parse.lines import decode_line, read_blocks, read_numbered
from osdoctor.parse.parser import FOLD_KEEP, Parser
from tests.helpers.explained import stub_url
from tests.helpers.traces import by_blocks, by_lines, comparable

LOGS = Path(__file__).parent / "fixtures" / "logs"

#: (fixture, the request line that starts the polling round)
POLLS = [
    ("heat.stack-create.create-complete", "/stacks/web/events"),
    ("heat.stack-create.stalled", "/stacks/web/events"),
    ("heat.stack-delete.deleted-by-id", "/events"),
    (
        "ironic.provision-wait.reached",
        f"GET {stub_url('ironic.provision-wait.reached')}/baremetal/v1/nodes/node-1",
    ),
    ("osc.server-create.active", "/compute/v2.1/servers/3f6c2a1e"),
]
#: A retry round that prints a new message each time (its request id) is read line by line.
RETRIES = (
    "ironic.conflict-retry.exhausted-409",
    f"PATCH {stub_url('ironic.conflict-retry.exhausted-409')}/baremetal/v1/nodes/node-1",
)

_REQUEST_ID = re.compile(r"req-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def split_round(name: str, marker: str) -> tuple[list[str], list[str], list[str]]:
    """(lines before the second round, one round, the rest) of a real log."""
    lines = (LOGS / f"{name}.log").read_text(encoding="utf-8").split("\n")
    starts = [i for i, line in enumerate(lines) if line.startswith("REQ: curl") and marker in line]
    assert len(starts) >= 2, f"{name} has no repeated round starting with {marker}"
    first, second = starts[0], starts[1]
    return lines[:second], lines[first:second], lines[second:]


def polling_log(
    name: str,
    marker: str,
    rounds: int,
    *,
    noise_every: int = 0,
    odd_line_at: int = -1,
    other_run_at: int = -1,
    ends: bool = True,
) -> bytes:
    head, one_round, tail = split_round(name, marker)
    other = (LOGS / "osc.find-by-name.not-found.log").read_text(encoding="utf-8").split("\n")
    out = list(head)
    for n in range(rounds):
        for line in one_round:
            # Every round has its own request ids, as in a real wait.
            line = _REQUEST_ID.sub(f"req-{n:08x}-0000-4000-8000-{n:012x}", line)
            if noise_every and n % noise_every == 0 and line.startswith("http://"):
                out.append("Resetting dropped connection: 127.0.0.1")
            out.append(line)
        if n == odd_line_at:
            out.append("2026-11-01 12:00:05Z [web]: CREATE_IN_PROGRESS  state changed")
        if n == other_run_at:
            out.extend(other)
    if ends:
        out.extend(tail)
    return "\n".join(out).encode()


def assert_same(data: bytes, block: int = 1 << 20) -> Parser:
    parser = by_blocks(data, block)
    assert comparable(parser.trace) == comparable(by_lines(data).trace)
    return parser


@pytest.mark.parametrize(("name", "marker"), POLLS, ids=[p[0] for p in POLLS])
def test_a_long_polling_run_is_matched_whole_and_parses_the_same(name: str, marker: str) -> None:
    data = polling_log(name, marker, rounds=6 * FOLD_KEEP)
    parser = assert_same(data)
    assert parser.rounds.matched > 3 * FOLD_KEEP
    assert parser.trace.folds and parser.trace.folds[0].count > 0


def test_a_round_that_prints_something_new_each_time_is_read_line_by_line() -> None:
    parser = assert_same(polling_log(*RETRIES, rounds=4 * FOLD_KEEP))
    assert parser.rounds.matched == 0
    assert len([m for m in parser.trace.messages if "is locked" in m.text]) > 4 * FOLD_KEEP


@pytest.mark.parametrize("ends", [True, False], ids=["ends", "cut-mid-run"])
@pytest.mark.parametrize(
    "rounds", [FOLD_KEEP // 2, FOLD_KEEP + 3, 2 * FOLD_KEEP, 2 * FOLD_KEEP + 5, 5 * FOLD_KEEP]
)
def test_runs_around_the_fold_thresholds_parse_the_same(rounds: int, ends: bool) -> None:
    assert_same(polling_log(*POLLS[0], rounds=rounds, ends=ends))


def test_connection_lines_a_printed_line_and_another_run_parse_the_same() -> None:
    data = polling_log(
        *POLLS[0],
        rounds=5 * FOLD_KEEP,
        noise_every=7,
        odd_line_at=3 * FOLD_KEEP,
        other_run_at=4 * FOLD_KEEP,
    )
    parser = assert_same(data)
    assert parser.rounds.matched > FOLD_KEEP
    assert any("CREATE_IN_PROGRESS  state changed" in m.text for m in parser.trace.messages)


@settings(max_examples=25, deadline=None)
@given(
    block=st.integers(min_value=512, max_value=64 * 1024),
    odd=st.integers(min_value=-1, max_value=4 * FOLD_KEEP),
    other=st.integers(min_value=-1, max_value=4 * FOLD_KEEP),
    noise=st.sampled_from([0, 1, 5, 50]),
)
def test_any_block_size_and_interruption_parse_the_same(
    block: int, odd: int, other: int, noise: int
) -> None:
    data = polling_log(
        *POLLS[1], rounds=4 * FOLD_KEEP, noise_every=noise, odd_line_at=odd, other_run_at=other
    )
    assert_same(data, block=block)


def log_file(data: bytes, bracket: bool = True) -> bytes:
    """The lines as --log-file writes them: time, pid, level and logger first."""
    out = []
    for n, line in enumerate(data.split(b"\n")):
        logger = b"urllib3.connectionpool" if line.startswith(b"http") else b"keystoneauth.session"
        context = b" [-]" if bracket else b""
        stamp = b"2026-11-30 %02d:%02d:%02d.%03d" % (
            n // 3600000 % 24,
            n // 60000 % 60,
            n // 1000 % 60,
            n % 1000,
        )
        out.append(stamp + b" 4242 DEBUG " + logger + context + b" " + line)
    return b"\n".join(out)


@pytest.mark.parametrize("bracket", [True, False], ids=["osc-lib", "no-context"])
def test_a_log_file_with_prefixes_is_matched_whole_and_parses_the_same(bracket: bool) -> None:
    data = log_file(
        polling_log(*POLLS[3], rounds=5 * FOLD_KEEP, noise_every=11, odd_line_at=3 * FOLD_KEEP),
        bracket,
    )
    parser = assert_same(data)
    assert parser.rounds.matched > 2 * FOLD_KEEP
    assert parser.trace.format == "log-file"
    assert parser.trace.exchanges[-1].time is not None


def test_a_damaged_log_takes_the_line_path_and_parses_the_same() -> None:
    data = polling_log(*POLLS[0], rounds=3 * FOLD_KEEP).replace(b"\n", b"\r\n")
    parser = assert_same(data)
    assert parser.rounds.matched == 0


@pytest.mark.parametrize("block", [64, 700, 1000, 1 << 20])
def test_blocks_hold_clean_lines_and_cut_overlong_ones(block: int) -> None:
    data = (
        b"a\r\nb\xff\xfe\n\x1b[31mred\x1b[0m\n"
        + b"x" * 5000
        + b"\n"
        + "\u00e9t\u00e9".encode()
        + b"\ntail"
    )
    got: list[tuple[str, int]] = []
    for chunk, cut, head in read_blocks(io.BytesIO(data), max_line=1000, block=block):
        if cut:
            got.append((head, cut))
        else:
            assert chunk.endswith(b"\n")
            got.extend((decode_line(raw), 0) for raw in chunk.split(b"\n")[:-1])
    assert got == [
        ("a", 0),
        ("b\ufffd\ufffd", 0),
        ("red", 0),
        ("x" * 1000, 4000),
        ("\u00e9t\u00e9", 0),
        ("tail", 0),
    ]
    numbered = read_numbered(io.BytesIO(data), max_line=1000, block=block)
    assert [(text, cut) for _n, text, cut in numbered] == got


def many_runs(times: int) -> bytes:
    runs = [p.read_bytes() for p in sorted(LOGS.glob("*.log"))[:40]]
    return b"".join(runs) * times


def test_a_log_of_many_runs_keeps_its_first_and_last_exchanges_and_counts_the_rest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = many_runs(6)
    whole = by_lines(data).trace
    total = len(whole.exchanges) + sum(f.count for f in whole.folds)
    monkeypatch.setattr("osdoctor.parse.parser.KEEP_FIRST", 100)
    monkeypatch.setattr("osdoctor.parse.parser.KEEP_LAST", 400)
    monkeypatch.setattr("osdoctor.parse.parser._DROP_AT_ONCE", 50)
    trace = by_blocks(data).trace
    assert len(trace.exchanges) <= 550 < len(whole.exchanges)
    assert len(trace.exchanges) + sum(f.count for f in trace.folds) == total
    assert [ex.index for ex in trace.exchanges[:100]] == [ex.index for ex in whole.exchanges[:100]]
    assert [ex.request.url for ex in trace.exchanges[-400:]] == [
        ex.request.url for ex in whole.exchanges[-400:]
    ]
    window = [f for f in trace.folds if f.after == trace.exchanges[99].index]
    assert window and window[0].count > 0
    assert any("were counted, not kept" in p for p in trace.problems)
    assert trace.exit_code == whole.exit_code and trace.command == whole.command


def test_a_log_of_many_runs_keeps_its_first_and_last_printed_lines(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("osdoctor.parse.parser.KEEP_FIRST_MESSAGES", 100)
    monkeypatch.setattr("osdoctor.parse.parser.KEEP_LAST_MESSAGES", 300)
    monkeypatch.setattr("osdoctor.parse.parser._DROP_AT_ONCE", 50)
    data = many_runs(3)
    trace = by_blocks(data).trace
    assert len(trace.messages) <= 450
    assert trace.messages[-1].last_line > trace.line_count - 20
    assert any("printed lines between the first 100 and the last 300" in p for p in trace.problems)


def test_a_log_of_many_runs_keeps_its_first_and_last_tracebacks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("osdoctor.parse.parser.KEEP_FIRST_TRACEBACKS", 3)
    monkeypatch.setattr("osdoctor.parse.parser.KEEP_LAST_TRACEBACKS", 10)
    data = many_runs(8)
    whole = by_lines(many_runs(1)).trace
    assert whole.tracebacks, "the runs hold tracebacks"
    trace = by_blocks(data).trace
    assert 13 <= len(trace.tracebacks) <= 113
    assert trace.tracebacks[0].first_line == whole.tracebacks[0].first_line
    assert any("tracebacks between the first 3 and the last 10" in p for p in trace.problems)


def test_memory_windows_give_the_same_trace_on_both_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("osdoctor.parse.parser.KEEP_FIRST", 50)
    monkeypatch.setattr("osdoctor.parse.parser.KEEP_LAST", 300)
    monkeypatch.setattr("osdoctor.parse.parser._DROP_AT_ONCE", 40)
    log = polling_log(*POLLS[0], rounds=3 * FOLD_KEEP, other_run_at=FOLD_KEEP)
    parser = assert_same(log + b"\n" + many_runs(1) + log)
    assert parser.rounds.matched > 0
