"""The assembler alone: records in, a trace out (no parser is made here, and no
line of a log is read; the records stand for what the readers would give)."""

from __future__ import annotations

import subprocess
import sys

from osdoctor.model import Request, Response, Trace
from osdoctor.parse.assembler import Assembler
from osdoctor.parse.retention import FOLD_KEEP, Limits

NOVA = "https://nova.example:8774/v2.1"


def assembler() -> Assembler:
    return Assembler(Trace(source="test"))


def test_a_request_and_then_its_answer_make_one_exchange() -> None:
    asm = assembler()
    ex = asm.request(Request("GET", NOVA + "/servers", 3), None)
    assert asm.pending[-1] is ex and asm.last is ex
    asm.answer(ex, Response(404, 4))
    trace = asm.trace
    assert [(e.index, e.request.method, e.status) for e in trace.exchanges] == [(0, "GET", 404)]
    assert not asm.pending
    assert (ex.service, ex.path) == ("compute", "/servers")


def test_a_redirected_request_is_linked_to_the_answer_that_sent_it() -> None:
    asm = assembler()
    first = asm.request(Request("GET", "http://k.example:5000/v3", 1), None)
    asm.answer(first, Response(301, 2, raw_headers="Location: http://k.example:5000/v3/ "))
    hop = asm.request(Request("GET", "http://k.example:5000/v3/", 3), None)
    other = asm.request(Request("GET", NOVA + "/flavors", 5), None)
    assert hop.redirected_from == first.index
    assert other.redirected_from is None


def test_a_request_id_lands_on_the_answered_exchange_it_names() -> None:
    asm = assembler()
    url = NOVA + "/servers/x"
    ex = asm.request(Request("GET", url, 1), None)
    asm.request_id(url, "req-early")  # not answered yet: no answer to carry it
    asm.answer(ex, Response(200, 2))
    asm.request_id(NOVA + "/other", "req-other")
    asm.request_id(url, "req-1")
    assert ex.response is not None and ex.response.request_id == "req-1"


def test_a_line_of_an_answer_with_no_request_is_kept_as_a_debug_message() -> None:
    asm = assembler()
    assert asm.answer_line(7, "RESP BODY: ", '{"a": 1}') is None
    message = asm.trace.messages[-1]
    assert (message.line, message.kind, message.text) == (7, "debug", 'RESP BODY: {"a": 1}')
    ex = asm.request(Request("GET", NOVA, 8), None)
    asm.answer(ex, Response(200, 9))
    assert asm.answer_line(10, "RESP BODY: ", "{}") == (ex, ex.response)


def test_a_log_that_ends_while_a_request_waits_is_a_request_with_no_answer() -> None:
    asm = assembler()
    asm.connecting = (4, "nova.example:8774")
    ex = asm.request(Request("POST", NOVA + "/servers", 5), None)
    asm.connecting = (6, "nova.example:8774")
    asm.no_answer()
    assert ex.error is not None
    assert (ex.error.kind, ex.error.line, ex.error.detail) == (
        "no-answer",
        6,
        "nova.example:8774",
    )
    assert "waits for an answer from nova.example:8774" in ex.error.message
    assert not asm.pending


def test_an_answered_log_has_no_request_waiting() -> None:
    asm = assembler()
    ex = asm.request(Request("GET", NOVA, 1), None)
    asm.answer(ex, Response(200, 2))
    asm.no_answer()
    assert ex.error is None


def test_a_long_run_of_the_same_request_keeps_its_ends_and_folds_its_middle() -> None:
    asm = assembler()
    rounds = 2 * FOLD_KEEP + 50
    for n in range(rounds):
        ex = asm.request(Request("GET", NOVA + "/servers/x", 2 * n + 1), None)
        asm.answer(ex, Response(200, 2 * n + 2))
    asm.request(Request("DELETE", NOVA + "/servers/x", 2 * rounds + 1), None)
    trace = asm.trace
    [fold] = trace.folds
    assert fold.pattern == ["GET /servers/x 200"]
    assert len(trace.exchanges) + fold.count == rounds + 1
    indexes = [ex.index for ex in trace.exchanges]
    gaps = [b - a - 1 for a, b in zip(indexes, indexes[1:], strict=False)]
    assert [gap for gap in gaps if gap] == [fold.count]
    assert trace.exchanges[-1].request.method == "DELETE"


def test_the_run_watcher_hears_of_a_run_past_its_head_and_of_its_end() -> None:
    heard: list[str] = []

    class Watcher:
        def run_goes_on(self, request: Request) -> None:
            heard.append("on")

        def run_broke(self) -> None:
            heard.append("broke")

    asm = assembler()
    asm.watcher = Watcher()
    for n in range(FOLD_KEEP + 3):
        ex = asm.request(Request("GET", NOVA, n), None)
        asm.answer(ex, Response(200, n))
    assert heard[-1] == "on"
    # The run is judged when the next request starts, its latest exchange complete.
    asm.request(Request("DELETE", NOVA, 998), None)
    asm.request(Request("GET", NOVA, 999), None)
    assert heard[-1] == "broke"


def test_debug_messages_past_the_limit_are_counted_not_kept() -> None:
    asm = Assembler(Trace(), Limits(first_messages=5, last_messages=5, chunk=5))
    for n in range(30):
        asm.message(n + 1, "text", f"line {n}")
    asm.message(40, "text", "line 29")
    assert len(asm.trace.messages) <= 15
    assert asm.trace.messages[-1].repeats == 2 and asm.trace.messages[-1].last_line == 40
    assert asm.problems() == ["15 printed lines between the first 5 and the last 5 were not kept"]


def test_the_assembler_stands_without_the_parser_and_its_readers() -> None:
    code = (
        "import sys, osdoctor.parse.assembler; "
        "print(sorted(m for m in sys.modules if m.startswith('osdoctor.parse.')))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    for reader in ("parser", "request_lines", "responses", "connections", "round_path"):
        assert f"osdoctor.parse.{reader}'" not in loaded
