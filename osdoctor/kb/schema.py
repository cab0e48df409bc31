"""The knowledge base's documents: scenarios with their branches, and rules.

Each is validated field by field so that ``osdoctor kb lint`` can tell a
support engineer exactly what is wrong and where, in words, not a traceback.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from osdoctor import regex
from osdoctor.kb.conditions import (
    Condition,
    ConditionError,
    Regex,
    RequestPattern,
    compile_conditions,
    compile_regex,
    trusted_patterns,
    validating,
)
from osdoctor.kb.probes import ProbeRef, parse_probe_ref
from osdoctor.kb.yamlfile import Node
from osdoctor.model import OUTCOMES, SEVERITIES, Outcome, Severity
from osdoctor.parse.commands import CLIENTS as PARSED_CLIENTS

SEEDS = {
    "000_416000e4d6ae2dea.txt": ("python-heatclient", 5),
    "001_d3f831974f3dc6b9.txt": ("python-openstackclient", 5),
    "004_5da9864bde361b9a.txt": ("python-ironicclient", 5),
}
#: Client names a scenario or a ``client:`` condition may name: the parser's
#: (``parse.commands.CLIENTS``), the four the lab runs first.
CLIENTS = tuple(
    dict.fromkeys(("openstackclient", "heatclient", "ironicclient", "swiftclient", *PARSED_CLIENTS))
)
_Word = TypeVar("_Word", bound=str)


def one_of(value: Any, allowed: tuple[_Word, ...]) -> _Word | None:
    """``value`` as one of the ``allowed`` words (typed so), None when it is none."""
    return next((word for word in allowed if value == word), None)


_ID = regex.compile(r"[a-z][a-z0-9]*(?:[.\-][a-z0-9]+)*")
_BRANCH_ID = regex.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")


@dataclass(slots=True)
class Issue:
    """A problem found in a knowledge file."""

    path: str
    line: int
    message: str
    severity: Literal["error", "warning"] = "error"
    """An error fails ``kb lint``; a warning (a user's rule that fires nowhere) does not."""
    field: str = ""
    """The key of the document the problem is in (``since``, ``when``), when it is one."""

    def __str__(self) -> str:
        where = f"field '{self.field}': " if self.field else ""
        return f"{self.path}:{self.line}: {self.severity}: {where}{self.message}"


@dataclass(slots=True)
class Reference:
    """A seed section, or a tracker page (a Launchpad or StoryBoard bug, a document)."""

    seed: str
    section: int
    note: str = ""
    url: str = ""
    title: str = ""

    def __str__(self) -> str:
        if self.url:
            return f"{self.title}: {self.url}" if self.title else self.url
        return f"{self.seed} section {self.section}"


@dataclass(slots=True)
class DiagramItem:
    """One element of a scenario's documented sequence (mirrors the seed's diagram)."""

    kind: str
    """"message", "note", "alt", "loop"."""
    source: str = ""
    target: str = ""
    text: str = ""
    reply: bool = False
    pattern: RequestPattern | None = None
    over: list[str] = field(default_factory=list)
    blocks: list[DiagramBlock] = field(default_factory=list)


@dataclass(slots=True)
class DiagramBlock:
    label: str
    branches: list[str]
    items: list[DiagramItem]


@dataclass(slots=True)
class Participant:
    id: str
    label: str
    actor: bool = False


@dataclass(slots=True)
class Branch:
    id: str
    title: str
    outcome: Outcome
    when: list[Condition]
    any_command: bool = False
    divergence: str | None = None
    summary: str = ""
    real_client: str = ""
    line: int = 0


@dataclass(slots=True)
class Scenario:
    id: str
    title: str
    seed: str
    section: int
    clients: list[str]
    commands: list[Regex]
    branches: list[Branch]
    participants: list[Participant]
    diagram_items: list[DiagramItem] | Callable[[], list[DiagramItem]]
    """The diagram, or what builds it when first asked (``diagram``)."""
    summary: str = ""
    real_client: str = ""
    path: str = ""
    origin: str = "built-in"

    @property
    def diagram(self) -> list[DiagramItem]:
        """The documented sequence. Only the runbook and the screen draw it, so
        knowledge that was validated when cached builds it when first asked."""
        if callable(self.diagram_items):
            self.diagram_items = self.diagram_items()
        return self.diagram_items

    def branch(self, branch_id: str) -> Branch | None:
        for b in self.branches:
            if b.id == branch_id:
                return b
        return None


@dataclass(slots=True)
class Rule:
    id: str
    title: str
    severity: Severity
    explanation: str
    next_steps: list[str]
    references: list[Reference]
    when: list[Condition]
    scenario: str | None = None
    branches: list[str] = field(default_factory=list)
    suppressed_by: list[str] = field(default_factory=list)
    fallback: bool = False
    defaults: dict[str, str] = field(default_factory=dict)
    """Placeholder values used when no condition captured them."""
    priority: int = 100
    """Which finding leads when several fire: higher first, and a fallback is dropped
    when an error of higher priority fired. Default 100, as for the seed scenarios'
    rules; generic failure classes sit below, known bugs above their class."""
    symptoms: list[str] = field(default_factory=list)
    fires: list[str] = field(default_factory=list)
    silent: list[str] = field(default_factory=list)
    real_client: str = ""
    path: str = ""
    line: int = 0
    origin: str = "built-in"
    probe: ProbeRef | None = None
    """The probe that can confirm this rule on the live cloud (``osdoctor probe``)."""
    target: str | None = None
    """The capture naming the one target the rule is about (``stack``): its request
    conditions see only that target's exchanges (``kb.targets``)."""
    since: str = ""
    """The osdoctor version that introduced the rule: with the id, it never changes."""


@dataclass(slots=True)
class RemovedRule:
    """A rule taken out of service. It stays in the knowledge as ``status: removed``
    so that its id is never given to another rule: a report, a runbook link or a
    user's ``suppressed_by`` naming the id keeps meaning what it meant."""

    id: str
    why: str
    replaced_by: str | None
    since: str
    path: str = ""
    line: int = 0
    origin: str = "built-in"

    def replacement_note(self) -> str:
        return f" (replaced by {self.replaced_by})" if self.replaced_by else " (not replaced)"


class _Checker:
    def __init__(self, path: str, issues: list[Issue]) -> None:
        self.path = path
        self.issues = issues
        self.ok = True
        # Knowledge that was cached had no issue at all, so its keys and templates
        # need no second look (see ``kb.cache``, ``trusted_patterns``).
        self.checks = validating()

    def error(self, node: Any, message: str) -> None:
        line = node.line if isinstance(node, Node) else 0
        self.issues.append(Issue(self.path, line, message))
        self.ok = False

    def note(self, node: Node, key: str, message: str) -> None:
        """A problem in one field that leaves the document usable: reported, and
        the rule still loads (so one missing ``since`` does not silence a rule)."""
        self.issues.append(Issue(self.path, node.line, message, field=key))

    def text(self, node: Node, key: str, required: bool = True) -> str:
        value = node.get(key)
        if value is None:
            if required:
                self.error(node, f"missing '{key}'")
            return ""
        if not isinstance(value, str) or (required and not value.strip()):
            self.error(node, f"'{key}' must be text")
            return ""
        return value

    def texts(self, node: Node, key: str) -> list[str]:
        value = node.get(key, [])
        if isinstance(value, str):
            return [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.error(node, f"'{key}' must be a list of text items")
            return []
        return list(value)

    def unknown_keys(self, node: Node, known: tuple[str, ...], what: str) -> None:
        if not self.checks:
            return
        for key in node:
            if key not in known:
                self.error(node, f"unknown key '{key}' in {what}; known keys: {', '.join(known)}")

    def conditions(self, node: Node, key: str, where: str) -> list[Condition]:
        spec = node.get(key)
        if spec is None:
            self.error(node, f"missing '{key}' (the conditions that must all hold)")
            return []
        try:
            return compile_conditions(spec)
        except ConditionError as exc:
            line = node.line
            if isinstance(spec, list):
                for item in spec:
                    try:
                        Condition(item)
                    except ConditionError:
                        line = item.line if isinstance(item, Node) else line
                        break
            self.issues.append(Issue(self.path, line, f"{where}: {exc}"))
            self.ok = False
            return []

    def template(self, node: Node, text: str, key: str) -> None:
        if not self.checks:
            return
        try:
            list(string.Formatter().parse(text))
        except ValueError as exc:
            self.error(node, f"'{key}' is not a valid template ({exc}); write {{{{ for a brace")


def _references(c: _Checker, node: Node) -> list[Reference]:
    refs: list[Reference] = []
    raw = node.get("references")
    if not isinstance(raw, list) or not raw:
        c.error(node, "missing 'references': at least one seed file and section, or a url")
        return refs
    for item in raw:
        seed: Any = None
        section: Any = None
        note = ""
        if isinstance(item, dict) and "url" in item:
            url, title = item.get("url"), item.get("title", "")
            if not isinstance(url, str) or not re.match(r"https?://\S+$", url):
                c.error(node, f"reference {item!r}: url must be an http(s) address")
            elif not isinstance(title, str):
                c.error(node, f"reference {item!r}: title must be text")
            else:
                refs.append(Reference("", 0, str(item.get("note", "") or ""), url, title))
            continue
        if isinstance(item, str):
            m = re.fullmatch(r"\s*(\S+\.txt)\s+section\s+(\d+)\s*", item)
            if m:
                seed, section = m.group(1), int(m.group(2))
        elif isinstance(item, dict):
            seed, section, note = item.get("seed"), item.get("section"), item.get("note", "")
        if seed not in SEEDS:
            c.error(node, f"reference {item!r}: the seed must be one of {', '.join(SEEDS)}")
            continue
        if not isinstance(section, int) or not 1 <= section <= SEEDS[seed][1]:
            c.error(node, f"reference {item!r}: section must be 1 to {SEEDS[seed][1]}")
            continue
        refs.append(Reference(seed, section, str(note or "")))
    return refs


_DIAGRAM_KEYS = (
    "from",
    "to",
    "text",
    "reply",
    "match",
    "note",
    "over",
    "alt",
    "loop",
    "steps",
    "label",
    "branch",
    "branches",
)


def _diagram(c: _Checker, items: Any, participants: set[str]) -> list[DiagramItem]:
    out: list[DiagramItem] = []
    if not isinstance(items, list):
        c.error(items, "'diagram' must be a list of steps")
        return out
    for item in items:
        if not isinstance(item, Node):
            c.error(item, "each diagram step is a mapping")
            continue
        c.unknown_keys(item, _DIAGRAM_KEYS, "a diagram step")
        if "alt" in item:
            blocks = []
            for block in item["alt"] if isinstance(item["alt"], list) else []:
                if not isinstance(block, Node):
                    c.error(item, "each 'alt' choice is a mapping with label and steps")
                    continue
                branches = block.get("branches", block.get("branch", []))
                if isinstance(branches, str):
                    branches = [branches]
                blocks.append(
                    DiagramBlock(
                        str(block.get("label", "")),
                        list(branches),
                        _diagram(c, block.get("steps", []), participants),
                    )
                )
            out.append(DiagramItem("alt", blocks=blocks))
        elif "loop" in item:
            block = DiagramBlock(
                str(item["loop"]), [], _diagram(c, item.get("steps", []), participants)
            )
            out.append(DiagramItem("loop", blocks=[block]))
        elif "note" in item:
            over = item.get("over", [])
            over = [over] if isinstance(over, str) else list(over)
            for p in over:
                if p not in participants:
                    c.error(item, f"note over unknown participant '{p}'")
            out.append(DiagramItem("note", text=str(item["note"]), over=over))
        else:
            src, dst = str(item.get("from", "")), str(item.get("to", ""))
            for p in (src, dst):
                if p not in participants:
                    c.error(item, f"unknown participant '{p}' (declare it under participants)")
            pattern = None
            if "match" in item:
                try:
                    pattern = RequestPattern(item["match"])
                except ConditionError as exc:
                    c.error(item, f"match: {exc}")
            out.append(
                DiagramItem(
                    "message",
                    src,
                    dst,
                    str(item.get("text", "")),
                    bool(item.get("reply", False)),
                    pattern,
                )
            )
    return out


def _later_diagram(
    items: Any, participants: list[Participant], path: str
) -> Callable[[], list[DiagramItem]]:
    """What builds a trusted scenario's diagram when first asked: as it would have
    been built at load time (it had no issue then)."""

    def build() -> list[DiagramItem]:
        with trusted_patterns():
            return _diagram(_Checker(path, []), items, {p.id for p in participants})

    return build


_SCENARIO_KEYS = (
    "id",
    "title",
    "seed",
    "section",
    "clients",
    "commands",
    "participants",
    "diagram",
    "branches",
    "summary",
    "real_client",
)
_BRANCH_KEYS = (
    "id",
    "title",
    "outcome",
    "when",
    "any_command",
    "divergence",
    "summary",
    "real_client",
)


def build_scenario(node: Any, path: str, issues: list[Issue]) -> Scenario | None:
    c = _Checker(path, issues)
    if not isinstance(node, Node):
        c.error(node, "a scenario file holds one mapping (id, title, seed, ...)")
        return None
    c.unknown_keys(node, _SCENARIO_KEYS, "a scenario")
    sid = c.text(node, "id")
    if sid and not _ID.fullmatch(sid):
        c.error(node, f"id '{sid}' must look like 'client.name' (lower case, dots, dashes)")
    seed = c.text(node, "seed")
    section = node.get("section")
    if seed and seed not in SEEDS:
        c.error(node, f"seed '{seed}' is not one of {', '.join(SEEDS)}")
    if not isinstance(section, int):
        c.error(node, "'section' must be the seed's section number")
        section = 0
    commands = []
    for rx in c.texts(node, "commands"):
        try:
            commands.append(compile_regex(rx))
        except re.error as exc:
            c.error(node, f"command pattern {rx!r} is not a valid regular expression: {exc}")
    participants = []
    for p in node.get("participants", []) or []:
        if isinstance(p, dict) and "id" in p:
            participants.append(
                Participant(str(p["id"]), str(p.get("label", p["id"])), bool(p.get("actor", False)))
            )
        else:
            c.error(node, "each participant is a mapping with id and label")
    steps: list[DiagramItem] | Callable[[], list[DiagramItem]]
    if c.checks:
        steps = _diagram(c, node.get("diagram", []), {p.id for p in participants})
    else:
        steps = _later_diagram(node.get("diagram", []), participants, path)
    branches = []
    seen: set[str] = set()
    raw_branches = node.get("branches")
    if not isinstance(raw_branches, list) or not raw_branches:
        c.error(node, "missing 'branches': at least one")
        raw_branches = []
    for b in raw_branches:
        if not isinstance(b, Node):
            c.error(node, "each branch is a mapping")
            continue
        c.unknown_keys(b, _BRANCH_KEYS, "a branch")
        bid = c.text(b, "id")
        if bid and not _BRANCH_ID.fullmatch(bid):
            c.error(b, f"branch id '{bid}' must be kebab-case")
        if bid in seen:
            c.error(b, f"branch id '{bid}' is used twice in this scenario")
        seen.add(bid)
        outcome = one_of(b.get("outcome", "failure"), OUTCOMES)
        if outcome is None:
            c.error(b, "outcome is success, failure or unknown")
        divergence = b.get("divergence")
        if divergence is not None:
            c.template(b, str(divergence), "divergence")
        branches.append(
            Branch(
                bid,
                c.text(b, "title"),
                outcome or "failure",
                c.conditions(b, "when", f"branch {bid}"),
                bool(b.get("any_command", False)),
                divergence,
                str(b.get("summary", "")),
                str(b.get("real_client", "")),
                b.line,
            )
        )
    clients = c.texts(node, "clients")
    for client in clients:
        if client not in CLIENTS:
            c.error(node, f"client '{client}' is not one of {', '.join(CLIENTS)}")
    if not c.ok:
        return None
    return Scenario(
        sid,
        c.text(node, "title"),
        seed,
        section,
        clients,
        commands,
        branches,
        participants,
        steps,
        str(node.get("summary", "")),
        str(node.get("real_client", "")),
        path,
    )


_RULE_KEYS = (
    "id",
    "title",
    "severity",
    "scenario",
    "branches",
    "branch",
    "when",
    "explanation",
    "next_steps",
    "references",
    "examples",
    "suppressed_by",
    "fallback",
    "symptoms",
    "real_client",
    "probe",
    "priority",
    "defaults",
    "target",
    "since",
    "status",
    "why_removed",
    "replaced_by",
)
#: What ``since`` holds: an osdoctor version, as ``osdoctor --version`` prints it.
_VERSION = regex.compile(r"\d+\.\d+(?:\.\d+)?")


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def _since(c: _Checker, node: Node) -> str:
    """The rule's ``since``, "" when missing (``kb lint`` says so, see
    ``completeness_issues``); reported when it is not a released version."""
    from osdoctor import __version__

    value = node.get("since")
    if value is None:
        return ""
    if not isinstance(value, str) or not _VERSION.fullmatch(value):
        c.note(
            node, "since", f'{value!r} is not a version; write it quoted: since: "{__version__}"'
        )
        return str(value)  # reported here, once: not as missing too
    if _version_key(value) > _version_key(__version__):
        c.note(node, "since", f"{value} is later than this osdoctor ({__version__})")
    return value


def completeness_issues(rule: Rule | RemovedRule) -> list[Issue]:
    """What a rule lacks for its history (``since``) and its proof (``examples``):
    errors in the built-in knowledge, warnings in a user's own."""
    from osdoctor import __version__

    severity: Literal["error", "warning"] = "error" if rule.origin == "built-in" else "warning"
    missing = []
    if not rule.since:
        missing.append(
            (
                "since",
                f"rule {rule.id}: missing: the osdoctor version that introduced it, "
                f'e.g. since: "{__version__}"',
            )
        )
    if isinstance(rule, Rule):
        for key, words in (("fires", "must fire on"), ("silent", "must stay silent on")):
            if not getattr(rule, key):
                missing.append(
                    (
                        f"examples.{key}",
                        f"rule {rule.id}: missing: at least one fixture it {words}",
                    )
                )
    return [Issue(rule.path, rule.line, message, severity, key) for key, message in missing]


def build_removed_rule(node: Node, path: str, issues: list[Issue]) -> RemovedRule | None:
    """A ``status: removed`` rule: an id, why it went and what replaces it, and no
    conditions (it can never fire)."""
    c = _Checker(path, issues)
    c.unknown_keys(node, _RULE_KEYS, "a rule")
    rid = c.text(node, "id")
    since = _since(c, node)
    why = node.get("why_removed")
    if not isinstance(why, str) or not why.strip():
        c.note(node, "why_removed", "a removed rule says why it was removed")
        why = ""
    replaced = node.get("replaced_by")
    if "replaced_by" not in node:
        c.note(node, "replaced_by", "missing: the id of the rule that replaces it, or null")
    elif replaced is not None and not (isinstance(replaced, str) and _ID.fullmatch(replaced)):
        c.note(node, "replaced_by", "the id of the rule that replaces this one, or null")
        replaced = None
    if "when" in node:
        c.note(node, "when", f"rule {rid} is removed but still has conditions: delete 'when'")
    if not rid:
        return None
    return RemovedRule(rid, why, replaced, since, path, node.line)


def _examples(c: _Checker, node: Node) -> tuple[list[str], list[str]]:
    """The fixtures a rule must fire on and stay silent on (see ``completeness_issues``
    for a rule that names none)."""
    examples = node.get("examples", {}) or {}
    if not isinstance(examples, dict):
        c.note(node, "examples", "write examples: {fires: [fixture, ...], silent: [fixture, ...]}")
        return [], []
    lists = []
    for key in ("fires", "silent"):
        value = examples.get(key) or []
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            c.note(node, f"examples.{key}", "must be a list of fixture names")
            value = []
        lists.append([str(v) for v in value])
    return lists[0], lists[1]


def build_rule(node: Any, path: str, issues: list[Issue]) -> Rule | None:
    c = _Checker(path, issues)
    if not isinstance(node, Node):
        c.error(node, "a rule is a mapping (id, title, severity, when, explanation, ...)")
        return None
    c.unknown_keys(node, _RULE_KEYS, "a rule")
    status = node.get("status", "active")
    if status not in ("active", "removed"):
        c.note(node, "status", f"{status!r} is not active or removed")
    for key in ("why_removed", "replaced_by"):
        if key in node:
            c.note(node, key, "only a rule with status: removed has it")
    rid = c.text(node, "id")
    if rid and not _ID.fullmatch(rid):
        c.error(node, f"id '{rid}' must look like 'area.short-name' (lower case, dots, dashes)")
    severity = one_of(node.get("severity"), SEVERITIES)
    if severity is None:
        c.error(node, f"severity must be one of {', '.join(SEVERITIES)}")
    explanation = c.text(node, "explanation")
    c.template(node, explanation, "explanation")
    steps = c.texts(node, "next_steps")
    if not steps:
        c.error(node, "missing 'next_steps': at least one thing to do")
    for s in steps:
        c.template(node, s, "next_steps")
    branches = c.texts(node, "branches") + c.texts(node, "branch")
    fires, silent = _examples(c, node)
    rule = Rule(
        rid,
        c.text(node, "title"),
        severity or "error",
        explanation,
        steps,
        _references(c, node),
        c.conditions(node, "when", f"rule {rid}"),
        scenario=node.get("scenario"),
        branches=branches,
        suppressed_by=c.texts(node, "suppressed_by"),
        fallback=bool(node.get("fallback", False)),
        symptoms=[s.strip() for s in c.texts(node, "symptoms") if s.strip()],
        fires=[str(f) for f in fires],
        silent=[str(s) for s in silent],
        real_client=str(node.get("real_client", "")),
        path=path,
        line=node.line,
        since=_since(c, node),
    )
    defaults = node.get("defaults", {}) or {}
    if not isinstance(defaults, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in defaults.items()
    ):
        c.error(node, "'defaults' maps placeholder names to text, e.g. {server: the server}")
    else:
        rule.defaults = dict(defaults)
    priority = node.get("priority", 100)
    if not isinstance(priority, int) or isinstance(priority, bool) or not -1000 <= priority <= 1000:
        c.error(node, "'priority' must be a whole number from -1000 to 1000 (higher leads)")
    else:
        rule.priority = priority
    if branches and not rule.scenario:
        c.error(node, "'branches' needs 'scenario'")
    target = node.get("target")
    if target is not None:
        if not isinstance(target, str) or not re.fullmatch(r"\w+", target):
            c.error(node, "'target' is the name of a capture, e.g. target: stack")
        else:
            rule.target = target
    if "probe" in node:
        probe = parse_probe_ref(node["probe"])
        if isinstance(probe, str):
            c.error(node, probe)
        else:
            rule.probe = probe
    return rule if c.ok else None
