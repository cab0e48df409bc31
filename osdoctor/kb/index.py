"""What each condition of the knowledge requires of a run, indexed, so that a run
asks only the rules and scenario branches that can hold on it.

A condition is evaluated on a run to tell whether it holds; most do not, and
most could be told not to hold from far less: a rule about a 409 cannot fire on
a run with no 409 answer, one about a printed "Stack not found" on a run that
printed no such word. A condition's *requirement* is a list of clauses, each a
set of *atoms* of which the run must show at least one, where an atom is
something a run is cheaply known to have (an answer's status, a service, the
failure's kind, the exit code, a word in what the client printed...). The
requirement is necessary, never sufficient: when it is met the condition is
evaluated as before; when it is not, the condition could not have held, so
nothing anyone sees changes (tests/test_rule_index.py runs every fixture and
public log both ways and compares the reports).

A condition kind this module does not know, and what it cannot tell cheaply
(a path, a body, an outcome, anything negated), requires nothing: its rule is
always evaluated, so a new kind of condition never silently stops a rule firing.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from osdoctor.kb.conditions import (
    Condition,
    ConditionError,
    Context,
    Match,
    count_test,
    required_words,
)

if TYPE_CHECKING:
    from osdoctor.kb.loader import KnowledgeBase
    from osdoctor.kb.schema import Branch, Rule, Scenario

Atom = tuple[Any, ...]
"""``("status", 404)``, ``("failure-kind", "http")``; ``("pattern", source, regex)``: the
text ``source`` names holds one of the words every match of ``regex`` contains."""
Clause = frozenset[Atom]
"""At least one of its atoms is true of any run the condition holds on."""

_enabled = True


@contextlib.contextmanager
def unindexed() -> Iterator[None]:
    """Evaluate every rule and branch, as without the index (the equivalence test)."""
    global _enabled
    previous, _enabled = _enabled, False
    try:
        yield
    finally:
        _enabled = previous


# -- what a condition requires ---------------------------------------------------


def _items(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _words(pattern: Any, source: tuple[Any, ...]) -> list[Clause]:
    """A text searched with ``pattern`` holds one of its required words (found when
    first asked: reading a regex costs more than most rules' evaluations)."""
    return (
        [frozenset({("pattern", source, pattern)})] if isinstance(pattern, str) and pattern else []
    )


def _status_atoms(spec: Any, prefix: str, failure: bool) -> Clause | None:
    atoms: set[Atom] = set()
    for item in _items(spec):
        if isinstance(item, bool):
            return None
        if isinstance(item, int) or (isinstance(item, str) and item.isdigit()):
            atoms.add((prefix, int(item)))
        elif isinstance(item, str) and re.fullmatch(r"[1-5]xx", item):
            atoms.add((prefix + "-class", int(item[0])))
        elif item == "none":
            atoms.add((prefix, None) if failure else ("no-response",))
        elif item == "error" and not failure:
            atoms.add(("has-error",))
        else:
            return None
    return frozenset(atoms) if atoms else None


def _request(spec: Any, counted: bool) -> list[Clause]:
    """What one exchange of the run must be for a request pattern to match it."""
    if not isinstance(spec, dict):
        return []
    if counted and "count" in spec and count_test(spec["count"])(0):
        return []  # "count: 0", "<3": holds with no such exchange at all
    out: list[Clause] = [frozenset({("exchange",)})]
    if "service" in spec:
        out.append(frozenset(("service", s) for s in _items(spec["service"])))
    if "method" in spec:
        out.append(frozenset(("method", str(m).upper()) for m in _items(spec["method"])))
    if "status" in spec:
        status = _status_atoms(spec["status"], "status", failure=False)
        if status is not None:
            out.append(status)
    if "error" in spec:
        out.append(frozenset({("has-error",)}))
    return out


def _failure(spec: Any) -> list[Clause]:
    if spec in ("any", True, None) or spec == {}:
        spec = {}
    if not isinstance(spec, dict):
        return []
    out: list[Clause] = [frozenset({("failure",)})]
    if "kind" in spec:
        out.append(frozenset(("failure-kind", str(k)) for k in _items(spec["kind"])))
    if "status" in spec:
        status = _status_atoms(spec["status"], "failure-status", failure=True)
        if status is not None:
            out.append(status)
    if "service" in spec:
        out.append(frozenset(("failure-service", str(s)) for s in _items(spec["service"])))
    if "method" in spec:
        out.append(frozenset(("failure-method", str(m).upper()) for m in _items(spec["method"])))
    if "transport" in spec:
        out.append(frozenset(("failure-transport", str(t)) for t in _items(spec["transport"])))
    for key in ("fault", "fault_type", "fault_shape", "inner", "resource", "words"):
        out += _words(spec.get(key), ("failure", key))
    return out


def _exit(spec: Any) -> list[Clause]:
    atoms: set[Atom] = set()
    for item in _items(spec):
        if item in ("none", "nonzero", "zero"):
            atoms.add(("exit", item))
        elif isinstance(item, int) and not isinstance(item, bool):
            atoms.add(("exit", item))
        else:
            return []
    return [frozenset(atoms)] if atoms else []


def _best(clauses: list[Clause]) -> Clause | None:
    """The clause that rules out the most: the fewest atoms, a word last."""
    if not clauses:
        return None
    return min(clauses, key=lambda c: (any(map(_is_word, c)), len(c)))


def requirement(cond: Condition) -> list[Clause]:
    """The clauses a run must meet for ``cond`` to hold (none: it may always hold)."""
    try:
        return _needs(cond.key, cond.value)
    except (TypeError, ValueError, AttributeError, ConditionError):
        return []  # a value this module does not read: no promise


def _needs(key: str, value: Any) -> list[Clause]:
    if key in ("request", "last_request"):
        return _request(value, counted=key == "request")
    if key == "sequence" and isinstance(value, list):
        out: list[Clause] = []
        for spec in value:
            if isinstance(spec, dict) and int(spec.get("repeat", 1)) >= 1:
                out += _request(spec, counted=False)
        return out
    if key == "message":
        kind = value.get("kind") if isinstance(value, dict) else None
        text = value.get("text", "") if isinstance(value, dict) else value
        kind = kind if kind is None or isinstance(kind, str) else repr(kind)
        return [frozenset({("printed", kind)}), *_words(text, ("printed", kind))]
    if key == "traceback":
        return [frozenset({("traceback",)})]
    if key == "exit_code":
        return _exit(value)
    if key == "command":
        return [frozenset({("command",)}), *_words(value, ("command",))]
    if key == "client":
        return [frozenset(("client", c) for c in _items(value))]
    if key == "failure":
        return _failure(value)
    if key == "fault":
        return _failure({"fault": value})
    if key == "client_error":
        return [frozenset({("client_error",)}), *_words(value, ("client_error",))]
    if key == "exception":
        spec = value if isinstance(value, dict) else {"type": value}
        out = [frozenset({("exception",)})]
        for part in ("type", "message", "frame", "package"):
            out += _words(spec.get(part), ("exception", part))
        return out
    # Of the facts that came later, only that the run has them (their words are
    # not looked for: a source of text this module does not read would hide a rule).
    if key == "server":
        return [frozenset({("server",)})]  # a service's record tied to the run
    if key == "resource":
        return [frozenset({("resource",)})]  # a resource this or an earlier run printed
    if key == "command_before":
        return [frozenset({("command-before",)})]  # a command line before the failing one
    if key == "client_version" and isinstance(value, dict) and "package" in value:
        return [frozenset({("version", str(value["package"]).lower().replace("_", "-"))})]
    if key == "all" and isinstance(value, list):
        return [clause for item in value for clause in _item_needs(item)]
    if key == "any" and isinstance(value, list) and value:
        union: set[Atom] = set()
        for item in value:
            best = _best(_item_needs(item))
            if best is None:
                return []  # an alternative that may always hold
            union |= best
        return [frozenset(union)]
    return []  # no_request, no_message, not, outcome... and any kind not known here


def _item_needs(item: Any) -> list[Clause]:
    if not isinstance(item, dict) or len(item) != 1:
        return []
    ((key, value),) = item.items()
    return _needs(str(key), value)


# -- what a run shows ----------------------------------------------------------------


def _is_word(atom: Atom) -> bool:
    """An atom told by searching the run's text, not by a set test."""
    return bool(atom[0] == "pattern")


@dataclass(frozen=True, slots=True)
class Need:
    """A requirement as a run checks it: its clauses of plain atoms, set tests. Its
    clauses of words serve as keys only (see ``_key``): a rule listed under other
    atoms need not look for them, since its message condition looks for the same
    words before it searches."""

    plain: tuple[Clause, ...] = ()

    @staticmethod
    def of(clauses: list[Clause]) -> Need:
        return Need(tuple(dict.fromkeys(c for c in clauses if not any(map(_is_word, c)))))


_NOTHING = Need()


@dataclass(slots=True)
class RunAtoms:
    """The atoms true of one run; its words, looked for when first asked."""

    ctx: Context
    atoms: set[Atom]
    _texts: dict[tuple[Any, ...], str] = field(default_factory=dict)
    _words: dict[tuple[Any, ...], bool] = field(default_factory=dict)

    def meets(self, need: Need) -> bool:
        """Whether the run meets every clause of plain atoms of ``need``."""
        atoms = self.atoms
        for clause in need.plain:
            if atoms.isdisjoint(clause):
                return False
        return True

    def has(self, atom: Atom) -> bool:
        """Whether the text a ``pattern`` atom names holds one of its words (a regex
        without required words may match anything: True)."""
        _kind, source, pattern = atom
        words = required_words(pattern)
        if not words:
            return True
        return any(self.holds_word(source, word) for word in words)

    def holds_word(self, source: tuple[Any, ...], word: str) -> bool:
        """Whether the run's text that ``source`` names holds ``word``."""
        key = (source, word)
        found = self._words.get(key)
        if found is None:
            text = self._texts.get(source)
            if text is None:
                text = self._texts[source] = _source_text(self.ctx, source)
            found = self._words[key] = word in text
        return found


def _source_text(ctx: Context, source: tuple[Any, ...]) -> str:
    facts = ctx.facts()
    what = source[0]
    if what == "printed":
        return ctx.printed(source[1])[1]
    if what == "command":
        return ctx.trace.command or ""
    if what == "failure" and facts.failure is not None:
        f, values = facts.failure, ctx.fact_values()
        return {
            "fault": values["fault"],
            "fault_type": values["fault_type"],
            "fault_shape": values["fault_shape"],
            "inner": f.inner,
            "resource": f.resource,
            "words": values["all_words"],
        }[source[1]]
    if what == "client_error" and facts.client_error is not None:
        return facts.client_error.text
    if what == "exception" and facts.exception is not None:
        exc = facts.exception
        return {
            "type": exc.type,
            "message": exc.message,
            "frame": exc.frame,
            "package": exc.package,
        }[source[1]]
    return ""


def run_atoms(ctx: Context) -> RunAtoms:
    """Everything a requirement can ask of the run but words, in one pass over it."""
    trace = ctx.trace
    atoms: set[Atom] = set()
    add = atoms.add
    statuses: set[int | None] = set()
    for ex in trace.exchanges:
        add(("service", ex.service))
        add(("method", ex.request.method))
        statuses.add(ex.status)
        if ex.response is None:
            add(("no-response",))
        if ex.error is not None:
            add(("has-error",))
    for status in statuses:
        if status is not None:
            add(("status", status))
            add(("status-class", status // 100))
    if trace.exchanges:
        add(("exchange",))
    kinds = {m.kind for m in trace.messages}
    atoms.update(("printed", kind) for kind in kinds)
    if trace.messages or trace.tracebacks:
        add(("printed", None))
    if any(tb.origin == "client" for tb in trace.tracebacks):
        add(("traceback",))
    code = trace.exit_code
    if code is None and ctx.live:
        code = 0  # what depends on the end holds as if it ended well (see _c_exit_code)
    if code is None:
        add(("exit", "none"))
    else:
        add(("exit", code))
        add(("exit", "zero" if code == 0 else "nonzero"))
    if trace.command is not None:
        add(("command",))
    add(("client", trace.client))
    facts = ctx.facts()
    f = facts.failure
    if f is not None:
        add(("failure",))
        add(("failure-kind", f.kind))
        add(("failure-status", f.status))
        if f.status is not None:
            add(("failure-status-class", f.status // 100))
        add(("failure-service", f.service))
        add(("failure-method", f.method))
        if f.transport is not None:
            add(("failure-transport", f.transport.kind))
    if facts.client_error is not None:
        add(("client_error",))
    if facts.exception is not None:
        add(("exception",))
    if facts.server:
        add(("server",))
    if trace.resources or trace.earlier_resources:
        add(("resource",))
    if trace.earlier or len(trace.commands) > 1:
        add(("command-before",))
    atoms.update(("version", package) for package in facts.versions)
    return RunAtoms(ctx, atoms)


# -- the index -----------------------------------------------------------------------

#: How often a run has an atom, roughly: what a clause is chosen as an item's key
#: by (the rarer its atoms, the fewer runs ask the item). Only speed depends on it.
_COMMON = {
    "exchange": 1.0,
    "printed": 0.9,
    "command": 0.9,
    "client": 0.5,
    "version": 0.9,
    "method": 0.5,
    "service": 0.4,
    "failure": 0.7,
    "traceback": 0.6,
    "exception": 0.6,
    "client_error": 0.6,
    "server": 0.1,
    "resource": 0.3,
    "command-before": 0.3,
    "exit": 0.4,
    "status-class": 0.4,
    "failure-kind": 0.3,
    "failure-method": 0.3,
    "failure-service": 0.2,
    "failure-status-class": 0.2,
}
_ROUTINE = {("status", 200), ("status", 201), ("status", 204), ("status-class", 2)}


def _commonness(clause: Clause) -> float:
    return sum(
        0.95 if atom in _ROUTINE else 0.05 if _is_word(atom) else _COMMON.get(atom[0], 0.1)
        for atom in clause
    )


def _key(clauses: list[Clause]) -> Clause:
    """The clause an item is listed under: the rarest of plain atoms, unless every
    one is common (a rule of printed lines only), then one of words. A word is
    looked for in every run, so only where nothing cheaper tells."""
    plain = [c for c in clauses if not any(map(_is_word, c))]
    rarest = min(plain, key=_commonness) if plain else None
    if rarest is not None and _commonness(rarest) < 0.85:
        return rarest
    return min(clauses, key=_commonness)


_T = TypeVar("_T")


@dataclass(slots=True)
class _Table(Generic[_T]):
    """Items (rules, branches) by the atoms of their rarest clause."""

    items: list[_T]
    needs: list[Need]
    by_atom: dict[Atom, list[int]]
    """Per atom, the items whose key clause holds it, by position."""
    by_word: dict[tuple[Any, ...], list[int]]
    """Per ``(source, word)``, the items whose key clause is of words: looked for in
    the run's text."""
    unindexed: list[int]
    """Items that require nothing: asked on every run."""

    def select(self, run: RunAtoms) -> list[_T]:
        """The items whose requirements the run meets, in their order."""
        hits = set(self.unindexed)
        by_atom = self.by_atom
        for atom in run.atoms:
            found = by_atom.get(atom)
            if found is not None:
                hits.update(found)
        for (source, word), positions in self.by_word.items():
            if run.holds_word(source, word):
                hits.update(positions)
        items, needs = self.items, self.needs
        return [items[i] for i in sorted(hits) if run.meets(needs[i])]


def _table(items: list[_T], requirements: list[list[Clause]]) -> _Table[_T]:
    table: _Table[_T] = _Table(items, [], {}, {}, [])
    for position, clauses in enumerate(requirements):
        table.needs.append(Need.of(clauses))
        if not clauses:
            table.unindexed.append(position)
            continue
        key = _key(clauses)
        words = [
            (atom[1], required_words(atom[2]) if isinstance(atom[2], str) else None)
            for atom in key
            if _is_word(atom)
        ]
        if any(not found for _source, found in words):
            table.unindexed.append(position)  # a regex of no required words: no key
            continue
        for atom in key:
            if not _is_word(atom):
                table.by_atom.setdefault(atom, []).append(position)
        for source, found in words:
            for word in found or ():
                table.by_word.setdefault((source, word), []).append(position)
    return table


@dataclass(slots=True)
class KnowledgeIndex:
    """The rules, and the branches tried on any command, indexed by what they
    require; every condition's requirement, for the branches asked one by one."""

    made_of: tuple[tuple[Rule, ...], tuple[Scenario, ...]]
    rules: dict[str | None, _Table[tuple[int, Rule]]]
    """The rules of each scenario (None: of any run), with their place in the
    knowledge: a scenario's rules are asked only of a run of that scenario."""
    any_command: _Table[tuple[Scenario, Branch]]
    needs: dict[Condition, Need] = field(default_factory=dict)

    def rules_for(self, run: RunAtoms, scenario: str | None) -> list[Rule]:
        """The rules that may fire on the run, in the knowledge's order."""
        found = self.rules[None].select(run) if None in self.rules else []
        if scenario is not None and scenario in self.rules:
            found = sorted(found + self.rules[scenario].select(run), key=_first)
        return [rule for _position, rule in found]

    def need(self, cond: Condition) -> Need:
        found = self.needs.get(cond)
        if found is None:
            clauses = requirement(cond)
            found = self.needs[cond] = Need.of(clauses) if clauses else _NOTHING
        return found

    def holds(self, cond: Condition, ctx: Context) -> Match | None:
        """``cond(ctx)``, without evaluating one that surely does not hold."""
        need = self.need(cond)
        if need is not _NOTHING and not atoms_of(ctx).meets(need):
            return None
        return cond(ctx)


def _requirements(conditions: list[Condition]) -> list[Clause]:
    return [clause for cond in conditions for clause in requirement(cond)]


def build_index(rules: tuple[Rule, ...], scenarios: tuple[Scenario, ...]) -> KnowledgeIndex:
    tried = [
        (scenario, branch)
        for scenario in sorted(scenarios, key=lambda s: s.id)
        for branch in scenario.branches
        if branch.any_command
    ]
    by_scenario: dict[str | None, list[tuple[int, Rule]]] = {}
    for position, rule in enumerate(rules):
        by_scenario.setdefault(rule.scenario, []).append((position, rule))
    return KnowledgeIndex(
        (rules, scenarios),
        {
            scenario: _table(items, [_requirements(rule.when) for _p, rule in items])
            for scenario, items in by_scenario.items()
        },
        _table(tried, [_requirements(branch.when) for _s, branch in tried]),
    )


def _first(item: tuple[int, Rule]) -> int:
    return item[0]


def index_for(kb: KnowledgeBase) -> KnowledgeIndex | None:
    """The knowledge's index (built on first use, again when its rules or scenarios
    changed), or None while ``unindexed``."""
    if not _enabled:
        return None
    made_of = (tuple(kb.rules.values()), tuple(kb.scenarios.values()))
    index: KnowledgeIndex | None = kb.index
    if index is None or index.made_of != made_of:
        index = kb.index = build_index(*made_of)
    return index


def atoms_of(ctx: Context) -> RunAtoms:
    """The run's atoms, found once per context."""
    found: RunAtoms | None = ctx.atoms
    if found is None:
        found = ctx.atoms = run_atoms(ctx)
    return found
