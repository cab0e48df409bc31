"""The quick ways through redaction give what the plain ways give.

``Literals.mask`` looks for the heads of all its values in one search before it
masks them one by one; the parser skips the redactor for the lines that a
search over the whole block shows cannot change. Both must give exactly what
the plain loop gives, secret by secret.
"""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from osdoctor.secrets import redact
from osdoctor.secrets.redact import StreamRedactor
from osdoctor.secrets.secretnames import MASK
from osdoctor.secrets.secretstream import Literals, SecretMemory

_ALPHABET = "ab%2*5-_.()[]|\\^$?+{}\n é"


def _plain_mask(values: tuple[str, ...], line: str) -> str:
    for value in values:
        if value in line:
            line = line.replace(value, MASK)
    return line


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.text(_ALPHABET, min_size=1, max_size=30), max_size=80),
    st.lists(st.text(_ALPHABET, max_size=120), min_size=1, max_size=8),
)
def test_literals_mask_equals_the_plain_loop(values: list[str], lines: list[str]) -> None:
    literals = Literals(values)
    ordered = tuple(literals)
    for line in lines:
        # A line made of the values themselves, glued and cut, hits the heads often.
        glued = line + "".join(ordered[:3]) + line
        for text in (line, glued, glued[1:-1], "".join(ordered)):
            assert literals.mask(text) == _plain_mask(ordered, text)


def test_literals_mask_follows_what_is_added() -> None:
    literals = Literals(["FAKE-secret-1"])
    assert literals.mask("a FAKE-secret-1 b FAKE-secret-2") == f"a {MASK} b FAKE-secret-2"
    literals.add(["FAKE-secret-2"])
    assert literals.mask("a FAKE-secret-1 b FAKE-secret-2") == f"a {MASK} b {MASK}"
    assert literals.mask("FAKE-secret-") == "FAKE-secret-"


def test_a_log_of_many_runs_remembers_its_first_secrets() -> None:
    """Each run of a log starts from what the run before knew. The values are
    handed on as they are: an encoded form is not encoded again, and a long
    secret learnt in the first run is still masked in the fortieth."""
    token = "FAKE" + "x9/Z+" * 30  # long, and changed by URL encoding
    memory = SecretMemory()
    memory.literals.add([token, "FAKE pass word/1"])
    for run in range(40):
        after = SecretMemory()
        after.update(memory)
        after.literals.add([f"FAKE-run-{run:02d}-secret"])
        memory = after
    forms = list(memory.literals)
    assert token in forms
    assert not any("%25" in form for form in forms), forms
    assert memory.literals.mask(f"printed bare: {token}") == f"printed bare: {MASK}"
    assert memory.literals.mask("FAKE%20pass%20word%2F1") == MASK


def test_merging_into_a_memory_that_knows_values_keeps_both() -> None:
    mine = Literals(["FAKE-mine-secret"])
    theirs = Literals(["FAKE-their secret"])
    mine.merge(theirs)
    assert mine.mask("FAKE-mine-secret FAKE-their%20secret") == f"{MASK} {MASK}"
    empty = Literals()
    empty.merge(theirs)
    assert list(empty) == list(theirs)
    assert empty.mask("FAKE-their secret") == MASK


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.lists(st.integers(0, 400), max_size=300),
            st.lists(st.sampled_from(["blob", "data", "secret_x"]), max_size=1),
        ),
        min_size=1,
        max_size=12,
    )
)
def test_what_each_run_taught_is_what_its_memory_knew(
    runs: list[tuple[list[int], list[str]]],
) -> None:
    """Each run of a log starts from the memory of the run before, as ``read_runs``
    does; the ``Taught`` kept after each run gives back exactly what that memory
    knew, eviction and all, while holding only what its own run learnt."""
    memory = SecretMemory()
    taught = None
    for values, names in runs:
        run = SecretMemory()
        run.update(memory)
        run.literals.add(f"FAKE-value-{n:04d}" for n in values)
        run.learn_names(names)
        before = taught
        taught = run.taught(taught)
        known = (run.literals.forms(), run.names)
        if taught is None:
            assert known == ((), frozenset())
        else:
            assert (taught.forms(), taught.names) == known
            if before is not None and taught.before is before:
                assert len(taught.added) <= 2 * len(values)
        memory = run


_SECRETS = [f"s3cr3t-value-{n:02d}-xyz" for n in range(6)]
#: Lines that teach a secret (a key names it) and lines that only repeat it bare,
#: which only what was taught masks; and lines that hold none.
_POOL = (
    [f'{{"password": "{secret}"}}' for secret in _SECRETS]
    + [f"printed {secret} again" for secret in _SECRETS]
    + ["GET /v2.1/servers/detail", "cloud cfg: {'region_name': 'RegionOne'}"]
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.lists(st.integers(0, len(_POOL) + len(_SECRETS) - 1), min_size=1, max_size=25),
        min_size=1,
        max_size=6,
    )
)
def test_a_redactor_that_remembers_across_runs_masks_as_a_fresh_one(
    runs: list[list[int]],
) -> None:
    """The remembered results of earlier lessons and earlier runs are used only
    where nothing learnt since is in the line: every line comes out as a
    redactor that remembers nothing would give it."""
    carried: StreamRedactor | None = None
    carried_memory: SecretMemory | None = None
    plain_memory: SecretMemory | None = None
    for run in runs:
        memory = SecretMemory()
        reference = SecretMemory()
        if carried_memory is not None and plain_memory is not None:
            memory.update(carried_memory)
            reference.update(plain_memory)
        redactor = StreamRedactor(memory)
        if carried is not None:
            redactor.carry_on(carried)
        for index in run:
            if index >= len(_POOL):
                # Learnt outside this stream (the parser reads a token in a response).
                secret = _SECRETS[index - len(_POOL)]
                memory.literals.add([secret])
                reference.literals.add([secret])
                continue
            line = _POOL[index]
            assert redactor.feed(line) == StreamRedactor(reference).feed(line), line
        carried, carried_memory, plain_memory = redactor, memory, reference


def test_a_value_learnt_in_a_later_run_is_masked_in_a_line_seen_before() -> None:
    first = StreamRedactor()
    echo = f"printed {_SECRETS[0]} again"
    assert first.feed(echo) == echo
    second_memory = SecretMemory()
    second_memory.update(first.memory)
    second = StreamRedactor(second_memory)
    second.carry_on(first)
    assert MASK in second.feed(f'{{"password": "{_SECRETS[0]}"}}')
    assert second.feed(echo) == f"printed {MASK} again"


def _token_ids_stepping_on_every_atom(line: str) -> str:
    """The plain walk of ``_redact_token_ids``: every string and bracket of the
    token object in turn, the catalog's included."""
    masked: list[tuple[int, int]] = []
    pos = 0
    while (match := redact._TOKEN_OBJECT.search(line, pos)) is not None:
        depth, pos = 0, len(line)
        for atom in redact._OBJECT_ATOM.finditer(line, match.end() - 1):
            text = atom.group()
            if text in ("{", "["):
                depth += 1
            elif text in ("}", "]"):
                depth -= 1
                if depth == 0:
                    pos = atom.end()
                    break
            elif (
                depth == 1 and text[1:-1] == "id" and (not masked or atom.start() >= masked[-1][1])
            ):
                value = redact._ID_VALUE.match(line, atom.end())
                if value is not None:
                    start = value.end()
                    end = redact._quoted_end(line, start, value["q"])
                    if not redact._harmless(line[start:end].strip()):
                        masked.append((start, end))
    for start, end in reversed(masked):
        line = line[:start] + MASK + line[end:]
    return line


_JSONISH = st.lists(
    st.sampled_from(
        [
            '"token"',
            "'token'",
            '"id"',
            "'id'",
            ": ",
            ", ",
            "{",
            "}",
            "[",
            "]",
            '"',
            "'",
            "\\",
            "x",
            "\n",
        ]
        + ['"abc-123"', '"catalog"', "u'", "null", '"token": {', '"id": "abcdef-1"', '{"x": ']
    ),
    max_size=60,
).map("".join)


@settings(max_examples=1500, deadline=None)
@given(_JSONISH)
@example("""{"token": {"x": {'}'}, "id": "abcdef-secret"}}""")
@example("""{'token': {"x": ["]", {"id": "nested-1"}], 'id': 'own-token'}}""")
def test_token_ids_skip_the_nested_objects_as_the_plain_walk_steps_on_them(line: str) -> None:
    assert redact._redact_token_ids(line) == _token_ids_stepping_on_every_atom(line)
