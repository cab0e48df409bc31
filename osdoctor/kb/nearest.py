"""``--why-not``: the documented paths a run came closest to, and what did not
happen on each, in words.

A branch's conditions are the steps its path expects (a request answered 404,
a line the client prints, an exit code). The nearest branches are those of
the scenarios the command could be, other than the one taken, where most of
those steps happened; each is shown with the first expected step that did
not, written as a reader would say it ("the client printing 'Stack not
found: …'"), not as the regular expression that checks it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from osdoctor.kb.conditions import Condition, Context, Match
from osdoctor.kb.index import index_for
from osdoctor.kb.loader import KnowledgeBase
from osdoctor.kb.matcher import selects
from osdoctor.kb.schema import Branch, Scenario
from osdoctor.kb.words import regex_words
from osdoctor.model import NearMiss, ScenarioMatch

#: Conditions that say which run this is, not a step of its path.
_CONTEXT = ("command", "client")
#: What makes a request pattern tell a path apart from a routine run.
_TELLING = (
    "error",
    "body",
    "header",
    "no_header",
    "header_value",
    "request_body",
    "count",
    "query",
)
#: A path came close when at least this share of its steps happened.
CLOSE = 0.5
_SHOWN = 3


def _quoted(regex: Any) -> str:
    return f"“{regex_words(str(regex))}”"


_BOUNDS = {">=": "at least", "<=": "at most", ">": "more than", "<": "fewer than"}


def _times(count: str) -> str:
    """A pattern's ``count`` in words: "once", "3 times", "at least twice"."""
    count = count.strip()
    bound = next((b for b in _BOUNDS if count.startswith(b)), "")
    number = count[len(bound) :].strip()
    said = {"1": "once", "2": "twice"}.get(number, f"{number} times")
    return f"{_BOUNDS[bound]} {said}" if bound else said


def request_words(spec: Any) -> str:
    """A request pattern as a reader says it: "DELETE /stacks/{stack} answered 404"."""
    if not isinstance(spec, dict):
        return "a request"
    method = spec.get("method")
    parts = ["/".join(map(str, method)) if isinstance(method, list) else str(method or "a request")]
    if "path" in spec:
        parts.append(str(spec["path"]))
    elif "service" in spec:
        parts.append(f"to {spec['service']}")
    if "query" in spec:
        parts.append(f"with the query {_quoted(spec['query'])}")
    status = spec.get("status")
    if status is not None:
        shown = "/".join(map(str, status)) if isinstance(status, list) else str(status)
        parts.append(
            {"none": "left unanswered", "error": "failing"}.get(shown, f"answered {shown}")
        )
    if "error" in spec:
        parts.append(
            f"failing ({spec['error']})" if spec["error"] not in ("any", True) else "failing"
        )
    if "header" in spec:
        parts.append(f"with a {spec['header']} header")
    if "no_header" in spec:
        parts.append(f"without a {spec['no_header']} header")
    if isinstance(spec.get("header_value"), dict):
        for name, regex in spec["header_value"].items():
            parts.append(f"with {name}: {_quoted(regex)}")
    if "body" in spec:
        parts.append(f"whose answer says {_quoted(spec['body'])}")
    if "request_body" in spec:
        parts.append(f"sending {_quoted(spec['request_body'])}")
    if "count" in spec:
        parts.append(f"({_times(str(spec['count']))})")
    return " ".join(parts)


def words(cond: Condition) -> str:
    """What a condition expects, in words."""
    key, value = cond.key, cond.value
    if key in ("request", "last_request"):
        what = request_words(value)
        if key == "request":
            return what
        return (
            what.replace("a request", "the last request", 1)
            if what.startswith("a request")
            else f"the last request being {what}"
        )
    if key == "no_request":
        return "no request at all" if not value else f"no {request_words(value)}"
    if key == "sequence":
        return "in this order: " + "; then ".join(request_words(p) for p in value)
    if key in ("message", "no_message"):
        text = value.get("text", "") if isinstance(value, dict) else value
        said = f"the client printing {_quoted(text)}"
        return said if key == "message" else "no line " + said.removeprefix("the client ")
    if key in ("traceback", "no_traceback"):
        spec = value if isinstance(value, dict) else {"type": value} if value else {}
        what = (
            f"a {regex_words(str(spec['type']))} traceback" if spec.get("type") else "a traceback"
        )
        if spec.get("message"):
            what += f" saying {_quoted(spec['message'])}"
        return f"the client crashing with {what}" if key == "traceback" else f"no {what[2:]}"
    if key == "exit_code":
        items = value if isinstance(value, list) else [value]
        return "exit code " + " or ".join(
            {"none": "not in the log", "nonzero": "not 0", "zero": "0"}.get(str(i), str(i))
            for i in items
        )
    if key == "outcome":
        return f"the command's outcome being {value}"
    if key == "command":
        return f"the command {_quoted(value)}"
    if key == "client":
        return f"the {value} client"
    if key == "any":
        return "one of: " + "; or ".join(words(Condition(c)) for c in value)
    if key == "all":
        return "; ".join(words(Condition(c)) for c in value)
    if key == "not":
        return "not " + words(Condition(value))
    return str(key)


def _telling(cond: Condition) -> bool:
    """A step that shows this path was taken when it happens: a line the client
    printed, a crash, an error answer; not merely a token issued or a failed run,
    which every run of the kind has."""
    if cond.key in ("message", "traceback", "sequence"):
        return True
    if cond.key in ("request", "last_request"):
        spec = cond.value if isinstance(cond.value, dict) else {}
        statuses = spec.get("status")
        statuses = statuses if isinstance(statuses, list) else [statuses]
        return any(k in spec for k in _TELLING) or any(
            s is not None and not str(s).startswith("2") for s in statuses
        )
    if cond.key in ("any", "all"):
        return any(_telling(Condition(c)) for c in cond.value)
    return False


def _miss(
    scenario: Scenario, branch: Branch, ctx: Context, ask: Callable[[Condition, Context], Any]
) -> NearMiss | None:
    steps = [c for c in branch.when if c.key not in _CONTEXT]
    context = [c for c in branch.when if c.key in _CONTEXT]
    if not steps or any(ask(c, ctx) is None for c in context):
        return None
    held = 0
    happened = False
    missing: Condition | None = None
    for cond in steps:
        if ask(cond, ctx) is not None:
            held += 1
            happened = happened or _telling(cond)
        elif missing is None:
            missing = cond
    if missing is None or not happened:
        return None
    return NearMiss(scenario.id, branch.id, branch.title, held, len(steps), words(missing))


def _evaluate(cond: Condition, ctx: Context) -> Match | None:
    return cond(ctx)


def nearest(kb: KnowledgeBase, ctx: Context, match: ScenarioMatch | None) -> list[NearMiss]:
    """Up to three documented paths, other than the one taken, where at least half
    the expected steps happened, nearest first."""
    misses: list[NearMiss] = []
    index = index_for(kb)
    ask = _evaluate if index is None else index.holds
    for scenario in sorted(kb.scenarios.values(), key=lambda s: s.id):
        selected = selects(scenario, ctx)
        for branch in scenario.branches:
            if match is not None and (scenario.id, branch.id) == (match.id, match.branch):
                continue
            if not (selected or branch.any_command):
                continue
            # The index skipped, in the matcher, the branches tried on any command
            # that cannot hold: those are asked through it, the others were asked.
            miss = _miss(scenario, branch, ctx, ask if branch.any_command else _evaluate)
            if miss is not None and miss.held and miss.score >= CLOSE:
                misses.append(miss)
    misses.sort(key=lambda m: (-m.score, -m.held, m.scenario, m.branch))
    return misses[:_SHOWN]
