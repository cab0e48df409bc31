"""The normaliser alone: physical lines in, logical redacted lines out, into a
recording sink that stands for the record readers (no parser is made here)."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass, field

from osdoctor.parse.normaliser import FLAT, Normaliser, Shape
from osdoctor.parse.wraps import Widths

Event = tuple[object, ...]


@dataclass
class Sink:
    """Records what the normaliser hands on. ``busy`` stands for a record being
    gathered; lines starting with ``unkept`` are taken before redaction."""

    busy: bool = False
    unkept_prefix: str = "Starting new HTTP"
    events: list[Event] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def line(self, number: int, text: str, time: float | None, shape: Shape) -> None:
        self.events.append(("line", number, text, time, shape))

    def server_line(self, number: int, text: str, message: str, shape: Shape) -> None:
        self.events.append(("server", number, text, message))

    def meta(self, number: int, key: str, value: str) -> None:
        self.events.append(("meta", number, key, value))

    def elision(self, number: int, text: str, shape: Shape) -> None:
        self.events.append(("elision", number, text))

    def unkept(self, number: int, text: str) -> bool:
        if text.startswith(self.unkept_prefix):
            self.events.append(("unkept", number, text))
            return True
        return False

    def gathering(self) -> bool:
        return self.busy

    def problem(self, text: str) -> None:
        self.problems.append(text)

    def texts(self) -> list[str]:
        return [str(event[2]) for event in self.events if event[0] == "line"]


def normalised(
    lines: list[str], widths: Widths | None = None, sink: Sink | None = None
) -> tuple[Sink, Normaliser]:
    sink = sink or Sink()
    normaliser = Normaliser(sink, widths)
    for number, raw in enumerate(lines, 1):
        normaliser.feed(number, raw)
    normaliser.finish()
    return sink, normaliser


def test_a_box_drawn_table_reads_as_an_ascii_one() -> None:
    sink, _ = normalised(["┌────┬──────┐", "│ id ┆ name │"])
    assert sink.texts() == ["+----+------+", "| id | name |"]


def test_a_ticket_s_quote_marks_are_taken_off() -> None:
    sink, normaliser = normalised(["> > REQ: curl -g -i -X GET http://nova:8774/v2.1/servers"])
    assert sink.texts() == ["REQ: curl -g -i -X GET http://nova:8774/v2.1/servers"]
    assert "quoted" in normaliser.formats


def test_a_paste_s_indentation_is_taken_off_and_kept_in_the_shape() -> None:
    sink, _ = normalised(["    Traceback (most recent call last):"])
    assert sink.events == [("line", 1, "Traceback (most recent call last):", None, Shape(4))]


def test_a_syslog_head_is_stripped_and_gives_the_time() -> None:
    sink, normaliser = normalised(
        [
            "Nov 30 02:00:58 host openstack[123]: REQ: curl -g -i -X GET http://nova/",
            "Nov 30 02:01:00 host openstack[123]: RESP: [200] {}",
        ]
    )
    assert sink.events == [
        ("line", 1, "REQ: curl -g -i -X GET http://nova/", 0.0, FLAT),
        ("line", 2, "RESP: [200] {}", 2.0, FLAT),
    ]
    assert "syslog" in normaliser.formats


def test_a_journald_head_is_stripped_and_gives_the_time() -> None:
    sink, normaliser = normalised(
        [
            "2026-11-30T02:00:58+0000 host openstack[123]: REQ: curl -g -i -X GET http://nova/",
            "2026-11-30T02:00:59.500+0000 host openstack[123]: RESP: [200] {}",
        ]
    )
    assert [(event[2], event[3]) for event in sink.events] == [
        ("REQ: curl -g -i -X GET http://nova/", 0.0),
        ("RESP: [200] {}", 1.5),
    ]
    assert "journal" in normaliser.formats


def test_a_session_s_metadata_is_handed_on_apart_and_its_data_lines_carry_their_time() -> None:
    sink, _ = normalised(
        ["#osdoctor-session 1", '#command ["openstack", "server", "list"]', "1.250 2 hello"]
    )
    assert sink.events == [
        ("meta", 1, "osdoctor-session", "1"),
        ("meta", 2, "command", '["openstack", "server", "list"]'),
        ("line", 3, "hello", 1.25, FLAT),
    ]


def test_a_service_s_log_line_is_handed_on_whole_with_its_message_redacted() -> None:
    line = (
        "2026-11-30 02:00:58.123 12345 ERROR nova.api.openstack [req-1 u p] "
        "Unexpected error: password=hunter2"
    )
    sink, _ = normalised([line])
    assert sink.events == [
        (
            "server",
            1,
            line.replace("hunter2", "***"),
            "Unexpected error: password=***",
        )
    ]


def test_a_line_wrapped_at_the_paste_s_width_is_joined_and_its_span_kept() -> None:
    whole = 'REQ: curl -g -i -X GET http://nova:8774/v2.1/servers -H "Accept: application/json"'
    sink, normaliser = normalised([whole[:70], whole[70:], "RESP BODY: {}"], widths=Widths(fold=70))
    assert sink.events[0] == ("line", 1, whole, None, Shape(span_end=2))
    assert sink.events[1] == ("line", 3, "RESP BODY: {}", None, FLAT)
    assert sink.problems == []
    assert normaliser.problems() == [
        "the log looks wrapped at 70 characters: wrapped lines were joined"
    ]


def test_a_last_piece_as_wide_as_the_paste_was_cut_there() -> None:
    sink, _ = normalised(["x" * 70, "RESP BODY: {}"], widths=Widths(fold=70, cut=70))
    assert sink.events[0] == ("line", 1, "x" * 70, None, Shape(span_end=1, cut=True))
    assert sink.events[1][4] == FLAT


def test_escaped_text_whose_line_breaks_are_wraps_is_joined() -> None:
    sink, normaliser = normalised(['"stderr": "line one\\nline two and mo', 're\\nof it"'])
    assert sink.events == [
        ("line", 1, '"stderr": "line one\\nline two and more\\nof it"', None, Shape(span_end=2))
    ]
    assert normaliser.problems() == []


def test_a_word_wrapped_sentence_is_joined_and_redacted_again_whole() -> None:
    head = (
        "Unable to establish connection to http://keystone:5000/v3/auth/tokens: "
        "HTTPConnectionPool(host='keystone', port=5000): Max retries exceeded "
        "(Caused by ProxyError('proxy said password:"
    )
    # Neither piece holds the secret for redaction alone: the wrap split it from its key.
    sink, _ = normalised([head, "hunter2 is wrong'))", "END return value: 1"])
    assert sink.texts() == [head + " *** is wrong'))", "END return value: 1"]
    assert "hunter2" not in repr(sink.events)


def test_no_sentence_starts_inside_a_record_being_gathered() -> None:
    head = "Unable to establish connection to http://keystone:5000/v3: the proxy said:"
    sink, _ = normalised([head, "go away"], sink=Sink(busy=True))
    assert sink.texts() == [head, "go away"]


def test_a_sentence_the_paste_cut_is_read_as_it_stands() -> None:
    head = "Unable to establish connection to http://keystone:5000/v3: the proxy said:"
    sink, _ = normalised([head, "..."])
    assert sink.events == [("line", 1, head, None, FLAT), ("elision", 2, "...")]


def test_a_line_cut_at_1_mib_is_noted_and_many_are_counted() -> None:
    sink = Sink()
    normaliser = Normaliser(sink)
    for number in range(1, 8):
        normaliser.feed(number, "RESP BODY: {", cut=100 + number)
    normaliser.finish()
    assert sink.problems == [
        f"line {n} is longer than 1 MiB: its last {100 + n} bytes were skipped" for n in range(1, 6)
    ]
    assert normaliser.problems() == ["7 lines were longer than 1 MiB and cut"]
    assert len(sink.texts()) == 7


def test_token_and_password_lines_are_redacted() -> None:
    sink, _ = normalised(
        ["X-Auth-Token: gAAAAABabcdefabcdefabcdef", '{"auth": {"password": "hunter2"}}']
    )
    assert sink.texts() == ["X-Auth-Token: ***", '{"auth": {"password": "***"}}']


def test_what_redaction_learnt_is_carried_to_the_next_run() -> None:
    _, before = normalised(['{"auth": {"password": "hunter2-long-secret"}}'])
    after = Normaliser(Sink())
    after.follow(before)
    assert "hunter2-long-secret" in set(before.secrets.literals)
    assert set(after.secrets.literals) == set(before.secrets.literals)


def test_a_poster_s_elision_is_handed_on_apart() -> None:
    sink, _ = normalised(["RESP BODY: {}", "[snip]", "...(omitted)...", "RESP BODY: []"])
    assert sink.events[1:3] == [("elision", 2, "[snip]"), ("elision", 3, "...(omitted)...")]
    assert sink.texts() == ["RESP BODY: {}", "RESP BODY: []"]


def test_a_line_whose_words_are_not_kept_is_neither_redacted_nor_counted() -> None:
    chatter = "Starting new HTTP connection (1): keystone:5000 " + "x" * 60
    sink, normaliser = normalised([chatter, "y" * 61, "+" + "-" * 70 + "+"])
    assert sink.events[0] == ("unkept", 1, chatter)
    # Table borders share a width by design: only the plain line is in the census.
    assert normaliser.widths == {61: 1}
    assert [text for _n, _raw, text in normaliser.recent] == [
        chatter,
        "y" * 61,
        "+" + "-" * 70 + "+",
    ]


def test_the_normaliser_stands_without_the_record_readers() -> None:
    code = (
        "import sys, osdoctor.parse.normaliser; "
        "print(sorted(m for m in sys.modules if m.startswith('osdoctor.parse.')))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    readers = (
        "parser",
        "records",
        "request_lines",
        "responses",
        "connections",
        "legacy_records",
        "round_path",
        "bodies",
        "tracebacks",
    )
    assert "osdoctor.parse.normaliser" in loaded
    assert not [name for name in readers if f"'osdoctor.parse.{name}'" in loaded]
