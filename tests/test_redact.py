"""Redaction: no secret of the corpus survives, and everything else does."""

from __future__ import annotations

import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from osdoctor.secrets.redact import contains_secret, redact_line, redact_lines, redact_text
from tests.secret_corpus import ALL_SECRETS, CASES, CLEAN_LINES, SecretCase


def test_corpus_is_large_enough() -> None:
    assert len(CASES) >= 30
    assert len({case.name for case in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_secret_is_masked_and_context_kept(case: SecretCase) -> None:
    redacted = redact_line(case.line)
    for secret in case.secrets:
        assert secret not in redacted
    for kept in case.keep:
        assert kept in redacted
    assert "***" in redacted
    assert contains_secret(case.line)
    assert not contains_secret(redacted)


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_redaction_is_idempotent_and_keeps_the_line_break(case: SecretCase) -> None:
    once = redact_line(case.line + "\n")
    assert once.endswith("\n") and once.count("\n") == 1
    assert redact_line(once) == once


@pytest.mark.parametrize("line", CLEAN_LINES)
def test_lines_without_secret_values_are_untouched(line: str) -> None:
    assert redact_line(line) == line
    assert not contains_secret(line)


def test_client_hashes_are_kept() -> None:
    line = "RESP: [201] X-Subject-Token: {SHA256}abc123 Content-Type: application/json"
    assert redact_line(line) == line


def test_text_keeps_line_count_and_drops_every_secret() -> None:
    text = "\n".join([*CLEAN_LINES, *(case.line for case in CASES), *CLEAN_LINES]) + "\n"
    redacted = redact_text(text)
    assert len(redacted.splitlines()) == len(text.splitlines())
    assert not any(secret in redacted for secret in ALL_SECRETS)
    assert redacted.splitlines()[: len(CLEAN_LINES)] == CLEAN_LINES


def test_lines_in_batches_match_line_by_line() -> None:
    lines = [line + "\n" for line in [*CLEAN_LINES, *(case.line for case in CASES)]]
    assert list(redact_lines(lines, batch=7)) == [redact_line(line) for line in lines]


def test_non_ascii_batch_falls_back_safely() -> None:
    # "İ".lower() is two characters long: batch offsets cannot be used.
    lines = ["İstanbul region\n", '{"password": "ÜnicodeFake"}\n']
    assert list(redact_lines(lines)) == ["İstanbul region\n", '{"password": "***"}\n']


def test_multiline_private_key_is_masked_line_by_line() -> None:
    text = (
        "+-------------+\n"
        "-----BEGIN OPENSSH PRIVATE KEY-----\n"
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
        "QyNTUxOQAAACBFakeFakeFakeFakeFakeFakeFakeFakeFakeFakeFakeFakeFakeAAAA\n"
        "-----END OPENSSH PRIVATE KEY-----\n"
        "END return value: 0\n"
    )
    redacted = redact_text(text)
    assert redacted.splitlines() == [
        "+-------------+",
        "-----BEGIN OPENSSH PRIVATE KEY-----",
        "***",
        "***",
        "-----END OPENSSH PRIVATE KEY-----",
        "END return value: 0",
    ]
    assert "".join(redact_lines(text.splitlines(keepends=True), batch=2)) == redacted


@pytest.mark.parametrize(
    "case", [case for case in CASES if not case.by_shape], ids=lambda case: case.name
)
@given(
    value=st.text(
        alphabet="ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0123456789",
        min_size=6,
        max_size=24,
    )
)
def test_any_secret_value_in_a_corpus_position_is_masked(case: SecretCase, value: str) -> None:
    secret = "Zq" + value
    line = case.line
    for known in case.secrets:
        if known.endswith("...") or len(known) < 8:
            continue
        line = line.replace(known, secret)
    redacted = redact_line(line)
    if secret in line:
        assert secret not in redacted


@given(st.text())
def test_never_raises_and_is_idempotent_on_any_text(text: str) -> None:
    once = redact_text(text)
    assert redact_text(once) == once
    assert len(once.splitlines()) == len(text.splitlines())


_SHAPES = st.sampled_from(
    [
        "password",
        "secret",
        "X-Auth-Token",
        "Temp-URL-Key",
        "--os-password",
        "blob",
        "token",
        "adminPass",
        "@",
        "://",
        "'",
        '"',
        ":",
        "=",
        " ",
        "|",
        "\\",
        "gAAAAA",
        "***",
        "{SHA256}",
        "http://u:p@h",
        "temp_url_sig=",
        "Namespace(",
        "data",
        "\n",
        "-H ",
        ",",
        "{",
        "[",
    ]
)


@given(st.lists(st.one_of(_SHAPES, st.text(max_size=5)), max_size=25).map("".join))
def test_idempotent_on_secret_like_fragments(line: str) -> None:
    once = redact_line(line)
    assert redact_line(once) == once
    assert once.count("\n") == line.count("\n")


def test_url_path_segment_before_a_colon_is_not_a_key() -> None:
    line = (
        "Unable to establish connection to http://127.0.0.1:9/v3/auth/tokens: "
        "HTTPConnectionPool(host='127.0.0.1', port=9): Max retries exceeded"
    )
    assert redact_line(line) == line


@pytest.mark.parametrize(
    "value", ["$(openstack token issue -f value -c id)", "gAAAAABfakeTokenAAAAAAAAAAAAAAAAAAAAAAAA"]
)
def test_header_inside_a_json_string_keeps_the_json_valid(value: str) -> None:
    import json

    line = json.dumps({"step": f'curl -H "X-Auth-Token: {value}" http://h/v1'})
    out = redact_line(line)
    assert json.loads(out) == {"step": 'curl -H "X-Auth-Token: ***" http://h/v1'}


def _cpu_seconds(line: str) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        redact_line(line)
        best = min(best, time.process_time() - start)
    return best


@pytest.mark.parametrize(
    "unit",
    [
        " --pass x",
        " --os-password a b network",
        " password=x",
        " X-Auth-Token: {SHA1}x",
        "&token=x",
        "eyJ",
        "a://b:c",
        ' "password": \\',
    ],
)
def test_work_grows_linearly_with_the_line(unit: str) -> None:
    """Four times the line costs about four times the work, not sixteen (a 1 MB
    line of ``--pass x`` once took a minute): the CPU time of the two sizes is
    compared, with room to spare, never measured against a clock."""
    small = "START with options: --debug" + unit * (100_000 // len(unit))
    large = "START with options: --debug" + unit * (400_000 // len(unit))
    assert _cpu_seconds(large) < 8 * max(_cpu_seconds(small), 1e-3)


def test_a_long_options_line_is_masked_whole() -> None:
    line = "START with options: --debug" + " --pass FakeValue1" * 50_000
    redacted = redact_line(line)
    assert "FakeValue1" not in redacted
    assert redacted.count("--pass ***") == 50_000


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        # A client's message naming where a value may come from: "or" is prose.
        (
            "CommandError: You must provide a username via either --os-username or "
            "env[OS_USERNAME] or a token via --os-auth-token or env[OS_AUTH_TOKEN]",
            None,
        ),
        ("set --os-password or --os-cloud", None),
        # A value is a value, even a short word, when nothing alternative follows.
        ("openstack --os-password or", "openstack --os-password ***"),
        ("openstack --os-password=or --os-cloud x", "openstack --os-password=*** --os-cloud x"),
        ("openstack --os-password hunter2 or env[X]", "openstack --os-password *** or env[X]"),
    ],
)
def test_the_word_or_between_two_sources_of_a_secret_is_prose(
    line: str, expected: str | None
) -> None:
    assert redact_line(line) == (expected or line)
