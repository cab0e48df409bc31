"""Loading the built-in knowledge, then the user's own, into one knowledge base.

A broken user file is reported with its path and line and left out; it never
stops the built-in knowledge from loading. Ids are unique across both: a user
rule cannot silently replace a built-in one.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from osdoctor.faultwords import check as check_fault_words
from osdoctor.kb.cache import Listing, documents_key, list_documents, load_documents
from osdoctor.kb.conditions import trusted_patterns
from osdoctor.kb.schema import (
    Issue,
    RemovedRule,
    Rule,
    Scenario,
    build_removed_rule,
    build_rule,
    build_scenario,
)
from osdoctor.kb.yamlfile import Node, YamlError
from osdoctor.servicetable import check as check_services
from osdoctor.servicetable import rule_ids


def builtin_dir() -> Path:
    """The knowledge shipped with osdoctor: inside the installed package, or at the
    top of a source checkout."""
    package = Path(__file__).resolve().parent.parent
    inside = package / "knowledge"
    if inside.is_dir():
        return inside
    return package.parent / "knowledge"


@dataclass(slots=True)
class KnowledgeBase:
    scenarios: dict[str, Scenario] = field(default_factory=dict)
    rules: dict[str, Rule] = field(default_factory=dict)
    removed: dict[str, RemovedRule] = field(default_factory=dict)
    """Rules taken out of service (``status: removed``): their ids stay taken."""
    issues: list[Issue] = field(default_factory=list)
    sources: list[Path] = field(default_factory=list)
    refusals: list[tuple[str, int, str, str]] = field(default_factory=list)
    """(path, line, words, rule) of the services table's refusals that name a rule."""
    status_words: list[tuple[str, int, str, str]] = field(default_factory=list)
    """(path, line, words, rule) of its status words that name a rule."""
    index: Any = field(default=None, repr=False, compare=False)
    """What its rules and branches require (``kb.index``), built on first use."""

    def add_dir(self, root: Path, origin: str, listing: Listing | None = None) -> None:
        """The knowledge files under ``root`` (``listing``: as ``list_documents``
        already found them)."""
        if not root.is_dir():
            if origin != "built-in":
                self.issues.append(Issue(str(root), 0, "knowledge folder not found", "warning"))
            return
        self.sources.append(root)
        docs, trusted, save = load_documents(root, listing)
        before = len(self.issues)
        with trusted_patterns() if trusted else contextlib.nullcontext():
            for path, doc in docs:
                self.add_document(path, doc, origin, checked=trusted)
        if not trusted and len(self.issues) == before:
            save()

    def add_document(self, path: str, doc: Any, origin: str, checked: bool = False) -> None:
        """Add one parsed file. ``checked``: it passed validation before (the knowledge
        cache says its content is unchanged), so its patterns are not compiled again."""
        if isinstance(doc, YamlError):
            self.issues.append(Issue(path, doc.line, doc.message))
            return
        if doc is None:
            self.issues.append(Issue(path, 0, "the file is empty", "warning"))
            return
        if not isinstance(doc, Node):
            self.issues.append(Issue(path, 1, "a knowledge file holds a mapping"))
            return
        kind = doc.get("kind")
        if kind is None:
            kind = (
                "rule"
                if ("severity" in doc or "explanation" in doc)
                else ("scenario" if "seed" in doc else "rules" if "rules" in doc else "rule")
            )
        body = Node({k: v for k, v in doc.items() if k != "kind"})
        body.line = doc.line
        if kind == "services":
            self._check_services(doc, path, origin, patterns=not checked)
        elif kind == "scenario":
            self._add_scenario(build_scenario(body, path, self.issues), path, origin)
        elif kind == "rule":
            self._add_any_rule(body, path, origin)
        elif kind == "rules":
            for item in doc.get("rules", []) or []:
                self._add_any_rule(item, path, origin)
        else:
            self.issues.append(
                Issue(path, doc.line, f"kind '{kind}' is not scenario, rule, rules or services")
            )

    def _check_services(self, doc: Node, path: str, origin: str, patterns: bool = True) -> None:
        """The services table is read by the parser on its own (``servicetable``), before
        any knowledge loads: here it is only checked, so that ``kb lint`` names a bad
        entry with its line. A user's folder cannot replace it."""
        if origin != "built-in":
            self.issues.append(
                Issue(path, doc.line, "only the built-in services table is read", "warning")
            )
            return
        problems = check_services(doc, patterns) + check_fault_words(doc, patterns)
        for line, message in problems:
            self.issues.append(Issue(path, line, message))
        if not problems:
            for section, named in (
                ("refusals", self.refusals),
                ("status_words", self.status_words),
            ):
                for item in doc.get(section) or []:
                    line = getattr(item, "line", doc.line)
                    named += [(path, line, item["words"], r) for r in rule_ids(item.get("rule"))]

    def _add_scenario(self, scenario: Scenario | None, path: str, origin: str) -> None:
        if scenario is None:
            return
        if scenario.id in self.scenarios:
            other = self.scenarios[scenario.id].path
            self.issues.append(
                Issue(path, 1, f"scenario id '{scenario.id}' is already defined in {other}")
            )
            return
        scenario.origin = origin
        self.scenarios[scenario.id] = scenario

    def _add_any_rule(self, node: Any, path: str, origin: str) -> None:
        if isinstance(node, Node) and node.get("status") == "removed":
            self._add_removed(build_removed_rule(node, path, self.issues), path, origin)
        else:
            self._add_rule(build_rule(node, path, self.issues), path, origin)

    def _id_taken(self, rid: str, path: str, line: int) -> bool:
        """Whether ``rid`` is already some rule's, live or removed (then said so)."""
        if rid in self.rules:
            message = f"rule id '{rid}' is already defined in {self.rules[rid].path}"
        elif rid in self.removed:
            message = (
                f"rule id '{rid}' reuses the id of the rule removed in {self.removed[rid].path}; "
                "an id is never reused: choose a new one"
            )
        else:
            return False
        self.issues.append(Issue(path, line, message, field="id"))
        return True

    def _add_rule(self, rule: Rule | None, path: str, origin: str) -> None:
        if rule is None or self._id_taken(rule.id, path, rule.line):
            return
        rule.origin = origin
        self.rules[rule.id] = rule

    def _add_removed(self, rule: RemovedRule | None, path: str, origin: str) -> None:
        if rule is None or self._id_taken(rule.id, path, rule.line):
            return
        rule.origin = origin
        self.removed[rule.id] = rule

    def check_references(self) -> None:
        """Cross-document checks: scenarios and branches that rules name exist, and a
        refusal or status words of the services table are read by the rules they name."""
        for what, entries in (("refusal", self.refusals), ("status words", self.status_words)):
            for path, line, words, rid in entries:
                named = self.rules.get(rid)
                if named is None:
                    self.issues.append(Issue(path, line, f"{what} '{words}': no rule '{rid}'"))
                elif not any(re.search(words, symptom) for symptom in named.symptoms):
                    self.issues.append(
                        Issue(
                            path,
                            line,
                            f"{what} '{words}': no symptom of rule {rid} has these words "
                            "(the facts and the rule would read different words)",
                        )
                    )
        for gone in self.removed.values():
            if gone.replaced_by is not None and gone.replaced_by not in self.rules:
                self.issues.append(
                    Issue(
                        gone.path,
                        gone.line,
                        f"rule {gone.id}: replaced_by names no rule in service "
                        f"'{gone.replaced_by}'",
                        field="replaced_by",
                    )
                )
        for rule in self.rules.values():
            if rule.scenario is not None:
                scenario = self.scenarios.get(rule.scenario)
                if scenario is None:
                    self.issues.append(
                        Issue(
                            rule.path,
                            rule.line,
                            f"rule {rule.id}: unknown scenario '{rule.scenario}'",
                        )
                    )
                    continue
                for b in rule.branches:
                    if scenario.branch(b) is None:
                        self.issues.append(
                            Issue(
                                rule.path,
                                rule.line,
                                f"rule {rule.id}: scenario {rule.scenario} has no branch '{b}'",
                            )
                        )
            for other in rule.suppressed_by:
                if other in self.removed:
                    self.issues.append(
                        Issue(
                            rule.path,
                            rule.line,
                            f"rule {rule.id}: suppressed_by names the removed rule '{other}'"
                            + self.removed[other].replacement_note(),
                            field="suppressed_by",
                        )
                    )
                elif other not in self.rules:
                    self.issues.append(
                        Issue(
                            rule.path,
                            rule.line,
                            f"rule {rule.id}: suppressed_by names unknown rule '{other}'",
                        )
                    )


#: The built-in knowledge as last built in this process, by what its documents are:
#: a library caller or a test suite that loads it again and again (a dask map, one
#: ``main()`` per case) builds it once rather than each time (about 30 ms).
_BUILT: dict[str, KnowledgeBase] = {}


def _builtin() -> KnowledgeBase:
    """A knowledge base holding the built-in knowledge: a copy of the one built
    before while its documents are unchanged (an edit makes a new key)."""
    root = builtin_dir()
    listing = list_documents(root)
    key = documents_key(listing)
    built = _BUILT.get(key)
    if built is None:
        built = KnowledgeBase()
        built.add_dir(root, "built-in", listing)
        if built.issues:
            return built  # reported to this caller; the next one sees them afresh
        _BUILT.clear()
        _BUILT[key] = built
    return KnowledgeBase(
        scenarios=dict(built.scenarios),
        rules=dict(built.rules),
        removed=dict(built.removed),
        issues=list(built.issues),
        sources=list(built.sources),
        refusals=list(built.refusals),
        status_words=list(built.status_words),
    )


def load_knowledge(extra_dirs: list[Path] | None = None, user: bool = True) -> KnowledgeBase:
    """Built-in knowledge, then the user's folder, then any folders given."""
    kb = _builtin()
    if user:
        from osdoctor.paths import user_knowledge_dir

        user_dir = user_knowledge_dir()
        if user_dir.is_dir():
            kb.add_dir(user_dir, "user")
    for extra in extra_dirs or []:
        kb.add_dir(extra, "user")
    kb.check_references()
    return kb
