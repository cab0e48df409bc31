"""Mutated real logs through the whole explain pipeline: no exception escapes.

Hypothesis runs with a fixed seed (``derandomize``) and a bounded budget, so CI
is repeatable and reasonably quick; the number of examples is printed with
``pytest -s`` via hypothesis' statistics (``--hypothesis-show-statistics``).
"""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from osdoctor.diagnose import diagnose, parse_stream
from osdoctor.kb.loader import KnowledgeBase, load_knowledge
from osdoctor.render.json_report import render_json
from osdoctor.render.markdown_report import render_markdown
from osdoctor.render.text import render_text

LOGS = Path(__file__).resolve().parent / "fixtures" / "logs"
FIXTURE_BYTES = [p.read_bytes() for p in sorted(LOGS.glob("*.log"))]
KB: KnowledgeBase = load_knowledge(user=False)

SETTINGS = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def explain_bytes(data: bytes) -> None:
    report = diagnose(parse_stream(io.BytesIO(data), "-"), KB)
    json.loads(render_json(report))
    render_text(report, colour=True, why_not=True)
    render_markdown(report, why_not=True)


def mutate(data: bytes, how: str, seed: int) -> bytes:
    rnd = random.Random(seed)
    lines = data.split(b"\n")
    if how == "truncate":
        return data[: rnd.randrange(len(data) + 1)]
    if how == "shuffle":
        rnd.shuffle(lines)
        return b"\n".join(lines)
    if how == "flip":
        buf = bytearray(data)
        for _ in range(max(1, len(buf) // 200)):
            i = rnd.randrange(len(buf))
            buf[i] ^= 1 << rnd.randrange(8)
        return bytes(buf)
    if how == "drop":
        return b"\n".join(line for line in lines if rnd.random() > 0.3)
    if how == "crlf-ansi":
        return b"\r\n".join(b"\x1b[3%dm" % rnd.randrange(8) + line + b"\x1b[0m" for line in lines)
    if how == "nul":
        return data.replace(b" ", b"\x00", rnd.randrange(1, 50))
    if how == "wrap":
        width = rnd.randrange(20, 120)
        return b"\n".join(
            line[i : i + width] for line in lines for i in range(0, max(len(line), 1), width)
        )
    if how == "quote":
        return b"\n".join(b"> " + line for line in lines)
    if how == "cut":
        return b"\n".join(line[: rnd.randrange(len(line) + 1)] + b"..." for line in lines)
    if how == "interleave":
        other = FIXTURE_BYTES[seed % len(FIXTURE_BYTES)].split(b"\n")
        out = []
        for a, b in zip(lines, other, strict=False):
            out += [a, b]
        return b"\n".join(out)
    raise AssertionError(how)


HOW = [
    "truncate",
    "shuffle",
    "flip",
    "drop",
    "crlf-ansi",
    "nul",
    "wrap",
    "quote",
    "cut",
    "interleave",
]


def test_fixtures_exist() -> None:
    assert FIXTURE_BYTES


@SETTINGS
@given(
    index=st.integers(min_value=0, max_value=10_000),
    how=st.sampled_from(HOW),
    seed=st.integers(min_value=0, max_value=2**31),
)
def test_mutated_fixtures_never_raise(index: int, how: str, seed: int) -> None:
    explain_bytes(mutate(FIXTURE_BYTES[index % len(FIXTURE_BYTES)], how, seed))


@SETTINGS
@given(data=st.binary(max_size=4096))
def test_random_bytes_never_raise(data: bytes) -> None:
    explain_bytes(data)


@SETTINGS
@given(
    lines=st.lists(
        st.sampled_from(
            [
                "REQ: curl -g -i -X GET",
                "RESP: [",
                "RESP BODY: {",
                "RESP BODY: [",
                "Traceback (most recent call last):",
                '  File "x", line 1, in y',
                "END return value: x",
                "Making authentication request to ",
                'http://h "GET / HTTP/1.1" 999 x',
                "HTTP/1.1 200 OK",
                "curl -g -i -X PUT -d '",
                "#command [",
                "#exit",
                "0.1 2 ",
                '{"token": {',
                "}",
                "]",
                "",
                "Unable to establish connection to ",
                "RESP STATUS: abc",
                "RESP HEADERS: {'a",
            ]
        ),
        max_size=60,
    )
)
def test_record_fragments_never_raise(lines: list[str]) -> None:
    explain_bytes("\n".join(lines).encode())


@pytest.mark.parametrize("size", [100 * 1024 * 1024])
def test_hundred_megabyte_line_stays_bounded(size: int, tmp_path: Path) -> None:
    import resource

    path = tmp_path / "huge.log"
    with path.open("wb") as f:
        f.write(b'RESP BODY: {"x": "')
        block = b"y" * (1 << 20)
        for _ in range(size >> 20):
            f.write(block)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with path.open("rb") as f:
        report = diagnose(parse_stream(f, str(path)), KB)
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert report.trace.problems
    assert grown_kib < 64 * 1024, f"peak memory grew by {grown_kib} KiB for a 100 MB line"
