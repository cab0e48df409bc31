"""No regular expression of the facts repeats words that ``knowledge/services.yaml`` holds.

The refusal words, the words that stand for a status and the quota errors' class
names were once written in ``facts/decisive.py``, some beside the same words in the
rules, and the copies drifted. They now live in the services file, the refusals and
status words naming the rules that say the same (``kb lint`` holds the two together);
this test keeps another copy from coming back. Each phrase of the file is cut into its
literal runs (regular-expression syntax breaks a run), and a run of twelve characters
or more found in a pattern a facts module compiles or searches with is a copy.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from osdoctor.faultwords import words
from osdoctor.servicetable import table

ROOT = Path(__file__).resolve().parent.parent
FACTS = ROOT / "osdoctor" / "facts"

#: Patterns that hold such words for another reason, by (file, name bound): each says why.
ALLOWED: dict[tuple[str, str], str] = {
    (
        "osdoctor/facts/decisive.py",
        "_POLICY_SERVICE",
    ): "reads the policy rule named after the words, whose prefix says the service",
}
_SHORTEST = 12
_CALLS = frozenset({"compile", "search", "match", "fullmatch", "sub", "findall", "finditer"})
#: Characters that end a literal run; an escaped one (``\\.``) is literal.
_SYNTAX = set("()[]{}|^$.?*+")
_QUANTIFIERS = set("?*+{")


def literal_runs(pattern: str) -> list[str]:
    """The stretches of a regular expression's source that match only themselves."""
    runs: list[str] = []
    run = ""
    i = 0
    while i < len(pattern):
        char = pattern[i]
        step = 2 if char == "\\" else 1
        piece = pattern[i : i + step]
        i += step
        literal = not piece[1:2].isalnum() if step == 2 else char not in _SYNTAX
        if char == "[":
            i = pattern.find("]", i + 1) + 1 or len(pattern)
        elif pattern[i - 1 : i + 1] == "(?":  # a group's header: (?:, (?P<name>, (?=
            named = pattern[i + 1 : i + 3] == "P<"
            i = (pattern.find(">", i) + 1 or len(pattern)) if named else i + 2
        if literal and not (i < len(pattern) and pattern[i] in _QUANTIFIERS):
            run += piece
            continue
        runs.append(run)
        run = ""
    runs.append(run)
    return [r for r in runs if r]


def phrases() -> list[str]:
    """The literal runs, long enough to say something, of the file's words."""
    found = [r.words for r in table().refusals] + [w.words for w in words().status_words]
    found += [q for service in table().services for q in service.quota_errors]
    return sorted({run.strip() for words_ in found for run in literal_runs(words_)} - {""})


def _patterns(tree: ast.Module) -> Iterator[tuple[int, str, str]]:
    """(line, bound name, text) of each string a call of ``regex``/``re`` takes as its
    pattern."""
    bound: dict[int, str] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Assign | ast.AnnAssign) and statement.value is not None:
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            names = [t.id for t in targets if isinstance(t, ast.Name)]
            for inner in ast.walk(statement.value):
                if names:
                    bound.setdefault(id(inner), names[0])
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _CALLS
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id in ("regex", "re")
            and node.args
        ):
            for inner in ast.walk(node.args[0]):
                if isinstance(inner, ast.Constant) and isinstance(inner.value, str):
                    yield node.lineno, bound.get(id(node), ""), inner.value


def second_copies(text: str, where: str, known: list[str]) -> Iterator[str]:
    """``file:line name: phrase`` for each pattern in the text that repeats a phrase."""
    for line, name, pattern in _patterns(ast.parse(text)):
        if (where, name) in ALLOWED:
            continue
        for phrase in known:
            if len(phrase) >= _SHORTEST and phrase in pattern:
                yield f"{where}:{line} {name or '(pattern)'} repeats '{phrase}'"


def test_no_facts_pattern_repeats_the_words_of_the_services_file() -> None:
    known = phrases()
    found = [
        problem
        for path in sorted(FACTS.rglob("*.py"))
        for problem in second_copies(
            path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix(), known
        )
    ]
    assert not found, (
        "read these from knowledge/services.yaml (status_words, refusals, quota_errors):\n"
        + "\n".join(found)
    )


def test_the_scan_finds_a_second_copy() -> None:
    """The check can fail: the table ``facts/decisive.py`` kept before the words moved,
    and a refusal's words inside a longer pattern, are both found."""
    text = (
        "from osdoctor import regex\n"
        "_WORD_STATUS = (\n"
        '    (regex.compile(r"Policy doesn\'t allow|is disallowed by policy"), 403),\n'
        ")\n"
        "def f(text):\n"
        "    return re.search(r'^(?:ERROR: )?No valid host was found\\.', text)\n"
        '_POLICY_SERVICE = regex.compile(r"Policy doesn\'t allow (?P<t>\\w+)")\n'
    )
    found = sorted(second_copies(text, "osdoctor/facts/decisive.py", phrases()))
    assert found == [
        "osdoctor/facts/decisive.py:3 _WORD_STATUS repeats 'Policy doesn't allow'",
        "osdoctor/facts/decisive.py:3 _WORD_STATUS repeats 'is disallowed by policy'",
        "osdoctor/facts/decisive.py:6 (pattern) repeats 'No valid host was found'",
    ], found
    elsewhere = second_copies(text, "osdoctor/facts/other.py", phrases())
    assert "osdoctor/facts/other.py:7 _POLICY_SERVICE repeats 'Policy doesn't allow'" in elsewhere


def test_a_phrase_is_cut_where_the_syntax_is() -> None:
    assert literal_runs(r"Policy doesn't allow \S+ to be performed") == [
        "Policy doesn't allow ",
        " to be performed",
    ]
    assert literal_runs(r"exceptions\.Forbidden'") == [r"exceptions\.Forbidden'"]
    assert literal_runs(r"\bInvalid (?:volume|share snapshot): \w") == [
        "Invalid ",
        "volume",
        "share snapshot",
        ": ",
    ]
    assert literal_runs(r"Gateway Time-?out") == ["Gateway Time", "out"]
