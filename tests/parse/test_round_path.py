"""The fast path over rounds alone, over an assembler (no parser is made here):
a run the assembler folded makes a template of its round, whole rounds are then
matched in undecoded bytes, and the last ones are handed back to be read."""

from __future__ import annotations

from collections import deque

from osdoctor.model import Request, Response, Trace
from osdoctor.parse.assembler import Assembler
from osdoctor.parse.retention import FOLD_KEEP
from osdoctor.parse.round_path import RoundPath

URL = "http://nova.example:8774/v2.1/servers/x"
ROUND = (
    'REQ: curl -g -i -X GET http://nova.example:8774/v2.1/servers/x -H "Accept: application/json"',
    'http://nova.example:8774 "GET /v2.1/servers/x HTTP/1.1" 200 120',
    "RESP: [200] Content-Length: 120",
)


def folded_run(rounds: int) -> tuple[RoundPath, Assembler, list[int]]:
    """A run of ``rounds`` polls read as the parser reads them: each line noted
    as recent, each round an answered exchange."""
    asm = Assembler(Trace())
    fed: list[int] = []
    recent: deque[tuple[int, str, str]] = deque(maxlen=64)
    path = RoundPath(asm, {}, recent, lambda number, text: fed.append(number), lambda: True)
    asm.watcher = path
    number = 0
    for _ in range(rounds):
        for index, line in enumerate(ROUND):
            number += 1
            recent.append((number, line, line))
            if index == 0:
                ex = asm.request(Request("GET", URL, number), None)
            elif index == 1:
                asm.answer(ex, Response(200, number))
    return path, asm, fed


def test_without_a_folded_run_no_round_leads() -> None:
    path, _asm, _fed = folded_run(3)
    assert not path.lead(("\n".join(ROUND) + "\n").encode(), 0)
    path.leave(9)  # not on the path: nothing to leave


def test_rounds_of_a_folded_run_are_matched_counted_and_the_last_ones_read_again() -> None:
    path, asm, fed = folded_run(FOLD_KEEP + 5)
    # The next round's request: the run goes on, the round just read is its template.
    number = 3 * (FOLD_KEEP + 5)
    more = 150
    data = ("\n".join(ROUND) + "\n").encode() * more + b"END\n"
    assert path.lead(data, 0)
    count = asm.exchange_count
    end, at, wait = path.skip(data, 0, number, more=False)
    assert not wait and data[end:] == b"END\n" and at == number + 3 * more
    assert path.matched == more
    # The last rounds (as many as the run's kept end needs) are handed back as lines;
    # the others are counted as stand-in exchanges.
    replayed = len(fed) // 3
    assert replayed > FOLD_KEEP and fed == list(range(at - 3 * replayed + 1, at + 1))
    assert asm.exchange_count - count == more - replayed


def test_a_run_that_breaks_forgets_its_template() -> None:
    path, asm, _fed = folded_run(FOLD_KEEP + 5)
    data = ("\n".join(ROUND) + "\n").encode()
    assert path.lead(data, 0)
    ex = asm.request(Request("DELETE", URL, 999), None)
    asm.answer(ex, Response(204, 1000))
    asm.request(Request("GET", URL, 1001), None)  # the DELETE broke the run
    assert not path.lead(data, 0)
