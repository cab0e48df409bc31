"""Placeholders in knowledge texts: filling them, and proving they can be filled.

A rule's title, explanation and next steps name values its conditions capture
(``{stack}``, ``{fault}``). A value may be unknown on a given log: an optional
group of a regex that did not take part (a fault message cut off with the
line), a condition under ``any`` that another alternative satisfied. Such a
placeholder never reaches the user as ``{name}``: the template says what to
write instead (``{fault|the reason is in the server's fault field}``), and
``osdoctor kb lint`` checks every template against what its conditions can
capture, so that a built-in text always degrades the way its author chose.
"""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from osdoctor.facts import server as server_facts
from osdoctor.facts.facts_model import Facts
from osdoctor.facts.template_values import CLAUSES
from osdoctor.facts.template_values import values as fact_values
from osdoctor.kb.conditions import Condition, RequestPattern, compile_template
from osdoctor.kb.regex_tree import Node
from osdoctor.kb.regex_tree import parse as parse_regex

#: Values every report has (see ``diagnose.apply_rules``): the run's own, and the
#: facts' (``{failure}``, ``{quote}``...), which are empty when the log does not
#: show them, so that a text reads well either way.
BASE = frozenset(
    {"command", "command_words", "exit_code", "scenario", "branch", *fact_values(Facts())}
)
#: What the exchange a request condition matched gives (``conditions.exchange_captures``);
#: ``request_id`` too, when the answer names one.
EXCHANGE = frozenset({"method", "url", "path", "call", "call_path", "status", "service"})


@dataclass(slots=True)
class Captures:
    """The names a condition list captures whenever it holds (``sure``), and those
    it captures only on some logs (``maybe``)."""

    sure: set[str] = field(default_factory=set)
    maybe: set[str] = field(default_factory=set)

    def add(self, other: Captures) -> None:
        self.sure |= other.sure
        self.maybe |= other.maybe

    def possible(self) -> set[str]:
        return self.sure | self.maybe


@dataclass(slots=True)
class Field:
    """One ``{name}``, ``{name|fallback}`` or ``{name?words}`` of a template."""

    name: str
    fallback: str | None
    """What to write when the value is unknown or empty."""
    when: str | None = None
    """``{name?words}``: words to write only when the value is there (a sentence
    about a line only some logs have); nothing when it is not."""


def fields(template: str) -> Iterator[Field]:
    """The placeholders of a template (``{{`` is a literal brace)."""
    for _literal, raw, spec, conversion in string.Formatter().parse(template):
        if raw is None:
            continue
        yield _field(raw, spec, conversion)


_NAMED = re.compile(r"\s*(\w+)\s*(?:([|?])(.*))?", re.S)


def _field(raw: str, spec: str | None, conversion: str | None) -> Field:
    text = raw + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "")
    m = _NAMED.fullmatch(text)
    if m is None:
        return Field(text.strip(), None)
    name, mark, rest = m.groups()
    return Field(name, rest if mark == "|" else None, rest if mark == "?" else None)


def unknown(name: str) -> str:
    """How a placeholder with no value and no fallback is shown: the way next steps
    write what the user substitutes, never the raw ``{name}``."""
    return f"<{name.replace('_', ' ')}>"


How = Literal["value", "fallback", "empty", "unknown"]
"""How a placeholder was filled: with its value, its fallback, nothing (an empty
value and no fallback), or ``<name>`` (no value at all)."""


@dataclass(frozen=True, slots=True)
class Slot:
    """Where one placeholder's text went in a filled template."""

    name: str
    start: int
    end: int
    how: How


@dataclass(slots=True)
class Filled:
    """A filled template, and where each placeholder's text is in it: what
    ``osdoctor kb lint`` reads to tell a hole the template made from the log's
    own words."""

    text: str
    slots: list[Slot] = field(default_factory=list)


@functools.lru_cache(maxsize=4096)
def _parts(template: str) -> tuple[tuple[str, Field | None], ...] | None:
    """A template's literal texts and placeholders, read once (the knowledge's
    templates are filled for every run); None when it is not a template."""
    try:
        parts = list(string.Formatter().parse(template))
    except ValueError:
        return None
    return tuple(
        (literal, None if raw is None else _field(raw, spec, conversion))
        for literal, raw, spec, conversion in parts
    )


#: A sentence ends here: what follows starts with a capital.
_SENTENCE_END = re.compile(r"(?:[.!?]|\n\n)\s*$")
#: A value that is words of a sentence (``the request``), not a name, a path or a
#: command (``controller``, ``openstack ...``, ``http://...``, ``web-1``).
_PROSE_WORD = re.compile(r"[a-z]+(?=\s)")
#: Programs a value may start with, which keep their case at a sentence's start.
_PROGRAMS = frozenset(
    {
        "openstack",
        "heat",
        "nova",
        "cinder",
        "neutron",
        "glance",
        "keystone",
        "swift",
        "baremetal",
        "ironic",
        "system",
        "gnocchi",
        "barbican",
        "magnum",
        "manila",
        "curl",
        "grep",
    }
)


def _at_sentence_start(out: list[str]) -> bool:
    before = "".join(out)
    return not before.strip() or _SENTENCE_END.search(before) is not None


def _capitalised(text: str) -> str:
    word = _PROSE_WORD.match(text)
    if word is None or word.group(0) in _PROGRAMS:
        return text
    return text[:1].upper() + text[1:]


def render(template: str, values: Mapping[str, Any]) -> Filled:
    """The template with its placeholders filled, and where each went. An empty or
    missing value takes the placeholder's fallback; without one, an empty value (a
    fact the log does not show) is left out, and a missing one shows as ``<name>``.

    So that a sentence still reads: a value left out takes one of the spaces
    around it along; a value that ends its sentence (``...authentication.``) is
    not followed by a second period; a value that starts a sentence starts it with
    a capital (``the request`` after ``.``), unless it is a name or a command."""
    parts = _parts(template)
    if parts is None:
        return Filled(template)
    out: list[str] = []
    slots: list[Slot] = []
    size = 0
    drop_space = False  # the space after an empty slot at a line's start goes with it
    for index, (literal, f) in enumerate(parts):
        if drop_space and literal.startswith(" "):
            literal = literal[1:]
        drop_space = False
        if (
            literal.startswith(".")
            and not literal.startswith("..")
            and slots
            and slots[-1].end == size > slots[-1].start
            and out[-1][-1:] in (".", "!", "?")
        ):
            literal = literal[1:]  # the value already ended the sentence
        if literal:
            out.append(literal)
            size += len(literal)
        if f is None:
            continue
        known = values.get(f.name)
        how: How
        if f.when is not None:
            there = known is not None and str(known) != ""
            text, how = (f.when, "value") if there else ("", "fallback")
        elif known is not None and str(known) != "":
            text, how = str(known), "value"
        elif f.fallback is not None:
            text, how = f.fallback, "fallback"
        elif known is not None:
            text, how = "", "empty"
        else:
            text, how = unknown(f.name), "unknown"
        if not text:
            following = parts[index + 1][0] if index + 1 < len(parts) else ""
            before = out[-1] if out else ""
            if following[:1] == " " and (not before or before[-1].isspace()):
                drop_space = True
            elif before.endswith(" ") and following[:1] in ("", " ", ".", ",", ";", ":", ")"):
                out[-1] = before[:-1]
                size -= 1
        elif _at_sentence_start(out):
            text = _capitalised(text)
        slots.append(Slot(f.name, size, size + len(text), how))
        if text:
            out.append(text)
            size += len(text)
    return Filled("".join(out), slots)


def fill(template: str, values: Mapping[str, Any]) -> str:
    """The template with its placeholders filled (see ``render``)."""
    return render(template, values).text


def shown(template: str) -> str:
    """A template for reading without a log (runbook, lookup): ``<name>`` for a
    value, nothing for a clause that the log may not have (``{quote}``)."""
    parts = _parts(template)
    if parts is None:
        return template
    out: list[str] = []
    for literal, f in parts:
        out.append(literal)
        if f is not None and f.when is not None:
            out.append(f.when)
        elif f is not None and f.name not in CLAUSES:
            out.append(f"<{f.name}>")
    return "".join(out)


# -- what conditions capture -------------------------------------------------


def regex_groups(pattern: str) -> Captures:
    """Named groups of a regex: sure unless under an optional repeat, an
    alternative or a lookaround."""
    out = Captures()
    try:
        names = list(re.compile(pattern).groupindex)
    except re.error:
        return out
    tree = parse_regex(pattern)
    if tree is None:  # not read: every group counts as sure
        out.sure.update(names)
        return out
    by_index = {index: name for name, index in tree.groupindex.items()}

    def walk(nodes: list[Node], optional: bool) -> None:
        for kind, value in nodes:
            if kind == "group":
                group, _add, _del, sub = value
                if group in by_index:
                    (out.maybe if optional else out.sure).add(by_index[group])
                walk(sub, optional)
            elif kind == "repeat":
                low, _high, sub = value
                walk(sub, optional or low == 0)
            elif kind == "branch":
                for alternative in value:
                    walk(alternative, True)
            elif kind in ("assert", "assert_not"):
                walk(value[1], True)
            elif kind == "groupref_exists":
                _group, yes, no = value
                walk(yes, True)
                if no is not None:
                    walk(no, True)
            elif kind == "atomic":
                walk(value, optional)

    walk(tree.nodes, False)
    out.maybe -= out.sure
    return out


def _pattern_captures(spec: Any) -> Captures:
    out = Captures(sure=set(EXCHANGE), maybe={"request_id"})
    if not isinstance(spec, dict):
        return out
    if isinstance(spec.get("path"), str):
        out.sure.update(compile_template(spec["path"])[1])
    if isinstance(spec.get("body"), str):
        out.add(regex_groups(spec["body"]))
    header = spec.get("header_value")
    if isinstance(header, dict):
        for regex in header.values():
            out.add(regex_groups(str(regex)))
    if "count" in spec and RequestPattern(spec).count(0):  # type: ignore[misc]
        # "count: 0" holds with no exchange at all: nothing of one is sure.
        out = Captures(maybe=out.possible())
    return out


def condition_captures(cond: Condition) -> Captures:
    key, value = cond.key, cond.value
    if key in ("request", "last_request"):
        out = _pattern_captures(value)
        if key == "request":
            out.sure.add("count")
        return out
    if key == "sequence":
        out = Captures()
        for spec in value:
            out.add(_pattern_captures(spec))
        return out
    if key in ("message", "command"):
        text = value.get("text", "") if isinstance(value, dict) else value
        return regex_groups(str(text))
    if key == "traceback":
        return Captures(sure={"exception", "exception_message"})
    if key in ("failure", "fault", "exception"):
        spec = {"fault": value} if key == "fault" else value
        out = Captures()
        if isinstance(spec, dict):
            if key == "failure" and isinstance(spec.get("path"), str):
                out.sure.update(compile_template(spec["path"])[1])
            for sub in spec.values():
                if isinstance(sub, str) and "(?P<" in sub:
                    out.add(regex_groups(sub))
        return out
    if key == "client_error":
        return regex_groups(str(value))
    if key == "client_version":
        return Captures(sure={"client_version"})
    if key == "server":
        out = Captures(sure=set(server_facts.NAMES))
        if isinstance(value, dict):
            for sub in value.values():
                if isinstance(sub, str) and "(?P<" in sub:
                    out.add(regex_groups(sub))
        return out
    if key == "command_before":
        out = regex_groups(str(value))
        out.sure |= {"before_command", "before_line"}
        return out
    if key == "resource" and isinstance(value, dict):
        out = Captures(
            sure={"resource_field", "resource_value"}, maybe={"resource_type", "resource_name"}
        )
        for sub in [value.get("matches"), value.get("name"), *(value.get("with") or {}).values()]:
            if isinstance(sub, str) and "(?P<" in sub:
                out.add(regex_groups(sub))
        return out
    if key == "exit_code":
        return Captures(sure={"exit_code"})
    if key == "all":
        return captures([Condition(c) for c in value])
    if key == "any":
        alternatives = [captures([Condition(c)]) for c in value]
        out = Captures()
        if alternatives:
            out.sure = set.intersection(*(a.sure for a in alternatives))
            out.maybe = set.union(*(a.possible() for a in alternatives)) - out.sure
        return out
    return Captures()


def captures(conditions: list[Condition]) -> Captures:
    """What a list of conditions, all holding, captures."""
    out = Captures(sure=set(BASE))
    for cond in conditions:
        out.add(condition_captures(cond))
    out.maybe -= out.sure
    return out


def template_problems(template: str, known: Captures) -> list[str]:
    """What is wrong with a template's placeholders, in words, given what its
    conditions capture."""
    problems = []
    for f in fields(template):
        if not re.fullmatch(r"\w+", f.name):
            problems.append(
                f"{{{f.name}}} is not a placeholder name (a word, then "
                "optionally |text for when it is unknown)"
            )
        elif f.fallback is not None or f.when is not None:
            words = f.fallback if f.fallback is not None else f.when or ""
            if f.name not in known.possible():
                problems.append(f"{{{f.name}}} is never captured by the conditions")
            elif "{" in words or "}" in words:
                problems.append(f"{{{f.name}|...}}: a fallback holds no braces")
        elif f.name in known.maybe:
            problems.append(
                f"{{{f.name}}} is not captured on every log (an optional group, "
                f"or one alternative of 'any'): write {{{f.name}|what to say "
                "when it is unknown}"
            )
        elif f.name not in known.sure:
            problems.append(
                f"{{{f.name}}} is never captured by the conditions: name a group "
                f"(?P<{f.name}>...) or use one of {', '.join(sorted(known.sure))}"
            )
    return problems
