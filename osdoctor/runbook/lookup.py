"""``osdoctor lookup``: from an error message (or a piece of one) to the rule or
scenario branch that explains it, when the customer sent no log.

Exact matches come first (the symptom equals the text, or one contains the
other, with ``...`` and ``<name>`` standing for any text), then fuzzy ones by
shared words and spelling. Pure Python and quick: no log is parsed.
"""

from __future__ import annotations

import difflib
import json
import re
import textwrap
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from osdoctor.kb.loader import KnowledgeBase
from osdoctor.kb.text_placeholders import shown
from osdoctor.runbook.knowledge import Symptom, prose, rules_for_branch, symptoms
from osdoctor.runbook.pages import branch_anchor, rule_page

#: How a symptom matched, best first.
HOW = ("exact", "contains", "fuzzy")
_MIN_FUZZY = 0.5
#: Beside an exact or containing match, a fuzzy one is shown only when it is this
#: close: a few shared words ("404 Not Found" for "No valid host was found") are noise.
CLEAR_FUZZY = 0.8
_WILDCARD = re.compile(r"\.\.\.|…|<[^<>]{1,40}>")
_TOKEN = re.compile(r"[a-z0-9_]+(?:[.\-][a-z0-9_]+)*")
_STOP = frozenset(
    {
        "a",
        "an",
        "the",
        "of",
        "to",
        "in",
        "on",
        "for",
        "is",
        "and",
        "or",
        "with",
        "error",
        "was",
        "be",
        "not",
        "no",
        "by",
        "at",
        "it",
        "this",
        "that",
    }
)
_PREFIX = re.compile(r"^(?:error|warning|critical)\s*:\s*", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Hit:
    symptom: Symptom
    how: str
    """"exact", "contains" or "fuzzy"."""
    score: float
    """Within its kind of match: how much of the longer text the shorter one covers,
    or the fuzzy similarity (0 to 1)."""
    generality: int = 0
    """0 a rule for given branches, 1 for a whole scenario, 2 for any scenario, 3 a
    fallback (or a branch): the more specific explanation comes first."""
    info: bool = False
    """The rule is an info one: it explains a normal step, not a failure."""


def normalise(text: str) -> str:
    """Case, spacing, quoting and a leading ``ERROR:`` do not matter to a user."""
    flat = " ".join(text.replace("…", "...").split()).casefold()
    flat = _PREFIX.sub("", flat.strip().strip("'\"`").strip())
    return flat


@lru_cache(maxsize=1024)
def _pattern(text: str) -> re.Pattern[str]:
    """``text`` as a regex in which ``...`` and ``<name>`` stand for any text."""
    parts = _WILDCARD.split(text)
    return re.compile(".+?".join(re.escape(p) for p in parts))


def _tokens(text: str) -> list[str]:
    return [t for t in _TOKEN.findall(text) if t not in _STOP]


def _token_similarity(query: list[str], symptom: list[str]) -> float:
    """How much of the query the symptom's words explain (a near-identical
    spelling counts), blended with how much of the symptom the query covers."""
    if not query or not symptom:
        return 0.0
    pool = set(symptom)
    found = 0.0
    for word in query:
        if word in pool:
            found += 1
        elif len(word) > 3:
            found += 0.8 if any(_close(word, other) for other in pool) else 0.0
    coverage = found / len(query)
    dice = 2 * found / (len(query) + len(symptom))
    return 0.7 * coverage + 0.3 * dice


@lru_cache(maxsize=65536)
def _close(word: str, other: str) -> bool:
    """What ``difflib.get_close_matches(word, [other], cutoff=0.8)`` decides, for one
    pair: the same words meet again in every symptom and every query."""
    matcher = difflib.SequenceMatcher(None, other, word)
    return (
        matcher.real_quick_ratio() >= 0.8
        and matcher.quick_ratio() >= 0.8
        and matcher.ratio() >= 0.8
    )


@lru_cache(maxsize=2048)
def _matcher_of(symptom: str) -> difflib.SequenceMatcher[str]:
    """A matcher that has read ``symptom`` as its second text once: the index of it
    that each comparison would otherwise build again."""
    return difflib.SequenceMatcher(None, "", symptom, autojunk=False)


def _match(query: str, symptom: str) -> tuple[str, float] | None:
    if not symptom:
        return None
    if query == symptom:
        return "exact", 1.0
    s_rx, q_rx = _pattern(symptom), _pattern(query)
    if s_rx.fullmatch(query) or q_rx.fullmatch(symptom):
        return "exact", 1.0
    if s_rx.search(query):
        return "contains", len(_WILDCARD.sub("", symptom)) / max(1, len(query))
    if q_rx.search(symptom):
        return "contains", len(_WILDCARD.sub("", query)) / max(1, len(symptom))
    q_tokens, s_tokens = _tokens(query), _tokens(_WILDCARD.sub(" ", symptom))
    score = _token_similarity(q_tokens, s_tokens)
    matcher = _matcher_of(symptom)
    matcher.set_seq1(query)
    # Each ratio bounds the next from above: the costly one only where it can count.
    bound = min(matcher.real_quick_ratio(), matcher.quick_ratio())
    if bound >= _MIN_FUZZY and bound > score:
        score = max(score, matcher.ratio())
    return ("fuzzy", score) if score >= _MIN_FUZZY else None


def lookup(kb: KnowledgeBase, text: str, limit: int = 5) -> list[Hit]:
    """The rules and branches whose symptoms match ``text``, best first, one hit
    per rule or branch. Within a kind of match, rules (which say what to do) come
    before branches, and a rule for the scenario before a generic one."""
    query = normalise(text)
    if len(_WILDCARD.sub("", query).strip()) < 2:
        return []
    best: dict[str, Hit] = {}
    for symptom in symptoms(kb):
        found = _match(query, normalise(symptom.text))
        if found is None:
            continue
        rule = kb.rules.get(symptom.rule or "")
        info = rule is not None and rule.severity == "info"
        hit = Hit(symptom, *found, generality=_generality(kb, symptom), info=info)
        previous = best.get(symptom.target)
        if previous is None or _rank(hit) < _rank(previous):
            best[symptom.target] = hit
    for rule_id in kb.rules:
        if rule_id.casefold() == query:
            best[rule_id] = Hit(Symptom(rule_id, rule=rule_id), "exact", 1.0)
    hits = sorted(best.values(), key=_rank)
    if any(h.how != "fuzzy" for h in hits):
        hits = [h for h in hits if h.how != "fuzzy" or h.score >= CLEAR_FUZZY]
    return hits[:limit]


def _generality(kb: KnowledgeBase, symptom: Symptom) -> int:
    rule = kb.rules.get(symptom.rule or "")
    if rule is None:
        return 3
    if rule.fallback:
        return 3
    if rule.scenario is None:
        return 2
    return 0 if rule.branches else 1


def _rank(hit: Hit) -> tuple[int, int, int, int, float, str]:
    """Best first: a rule that says what is wrong before one that says all is well
    (an info rule such as "the 404 before the name lookup is normal" matches the
    words of many errors), then how closely, then how specific."""
    return (
        1 if hit.info else 0,
        HOW.index(hit.how),
        0 if hit.symptom.rule else 1,
        hit.generality,
        -round(hit.score, 6),
        hit.symptom.target,
    )


def hit_json(kb: KnowledgeBase, hit: Hit) -> dict[str, Any]:
    """One hit with what a support engineer needs: the explanation and what to do."""
    out: dict[str, Any] = {
        "matched": hit.symptom.text,
        "how": hit.how,
        "score": round(hit.score, 3),
    }
    sym = hit.symptom
    if sym.rule is not None:
        rule = kb.rules[sym.rule]
        out.update(
            {
                "kind": "rule",
                "id": rule.id,
                "title": shown(rule.title),
                "severity": rule.severity,
                "scenario": rule.scenario,
                "branches": list(rule.branches),
                "explanation": prose(rule.explanation),
                "next_steps": [shown(s) for s in rule.next_steps],
                "references": [str(r) for r in rule.references],
                "runbook": rule_page(rule.id),
                "real_client": prose(rule.real_client) or None,
            }
        )
        return out
    scenario = kb.scenarios[sym.scenario or ""]
    branch = scenario.branch(sym.branch or "")
    assert branch is not None
    out.update(
        {
            "kind": "branch",
            "id": f"{scenario.id}/{branch.id}",
            "title": branch.title,
            "scenario": scenario.id,
            "scenario_title": scenario.title,
            "branch": branch.id,
            "outcome": branch.outcome,
            "summary": prose(branch.summary) or None,
            "rules": [r.id for r in rules_for_branch(kb, scenario, branch)],
            "references": [f"{scenario.seed} section {scenario.section}"],
            "runbook": branch_anchor(scenario.id, branch.id),
            "real_client": prose(branch.real_client) or None,
        }
    )
    return out


def render_json(kb: KnowledgeBase, query: str, hits: list[Hit]) -> str:
    doc = {"query": query, "results": [hit_json(kb, h) for h in hits]}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def _para(text: str, indent: str) -> list[str]:
    out: list[str] = []
    for paragraph in text.split("\n\n"):
        out.extend(
            textwrap.wrap(paragraph, 78, initial_indent=indent, subsequent_indent=indent) or [""]
        )
        out.append("")
    return out


def render_text(kb: KnowledgeBase, query: str, hits: list[Hit]) -> str:
    if not hits:
        return (
            f"No rule or scenario branch matches {query!r}.\n"
            "Try a shorter piece of the message (the words after ERROR:), "
            "or list everything with: osdoctor kb list\n"
        )
    out: list[str] = []
    pad = "   "
    for n, hit in enumerate(hits, 1):
        d = hit_json(kb, hit)
        out.append(f"{n}. {d['matched']}  ({hit.how})")
        if d["kind"] == "rule":
            out.append(f"{pad}rule {d['id']} [{d['severity']}]: {d['title']}")
            if d["scenario"]:
                where = f"{pad}scenario {d['scenario']}"
                out.append(
                    where + (f", branch {', '.join(d['branches'])}" if d["branches"] else "")
                )
            out.append("")
            out.extend(_para(d["explanation"], pad))
            out.append(f"{pad}Next steps:")
            out.extend(f"{pad}  - {step}" for step in d["next_steps"])
        else:
            out.append(f"{pad}branch {d['id']} ({d['outcome']}): {d['title']}")
            out.append(f"{pad}scenario: {d['scenario_title']}")
            if d["summary"]:
                out.append("")
                out.extend(_para(d["summary"], pad))
            if d["rules"]:
                out.append(f"{pad}Explained by: " + ", ".join(f"rule {r}" for r in d["rules"]))
        if d["real_client"]:
            out.append(f"{pad}Where the real client differs:")
            out.extend(_para(d["real_client"], pad + "  "))
        out.append(f"{pad}See the runbook page {d['runbook']}")
        out.append("")
    return "\n".join(line.rstrip() for line in out).rstrip() + "\n"
