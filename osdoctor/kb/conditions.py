"""The condition language shared by scenario branches and diagnostic rules.

A condition list is YAML that a support engineer can write: every item must
hold. Each item is a mapping with one key (see ``knowledge/README.md``):
``request``, ``no_request``, ``sequence``, ``last_request``, ``message``,
``no_message``, ``traceback``, ``no_traceback``, ``exit_code``, ``outcome``,
``command``, ``client``, ``any``, ``all``, ``not``. Conditions compile once;
evaluating one returns the evidence lines and captured values, or None.
"""

from __future__ import annotations

import contextlib
import functools
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, get_args

from osdoctor import regex
from osdoctor.facts import Facts, facts_of
from osdoctor.facts import server as server_facts
from osdoctor.facts.decisive import exchange_quotes
from osdoctor.facts.facts_model import FAILURE_KINDS, TRANSPORT_CLASSES
from osdoctor.facts.known_names import version_tuple
from osdoctor.facts.template_values import values as fact_values
from osdoctor.kb.regex_tree import Node
from osdoctor.kb.regex_tree import parse as parse_regex
from osdoctor.model import (
    LOGGED_AS,
    MESSAGE_KINDS,
    OUTCOMES,
    Command,
    Evidence,
    Exchange,
    Outcome,
    Resource,
    ResourceField,
    Trace,
    TransportKind,
)
from osdoctor.parse.http_text import split_url
from osdoctor.servicelog.join import BY_ID, JOIN_KINDS, in_error
from osdoctor.servicelog.record import LEVELS, RECORD_FORMATS, at_least

CONDITION_KEYS = (
    "request",
    "no_request",
    "sequence",
    "last_request",
    "message",
    "no_message",
    "traceback",
    "no_traceback",
    "exit_code",
    "outcome",
    "command",
    "client",
    "failure",
    "fault",
    "client_error",
    "exception",
    "client_version",
    "server",
    "resource",
    "command_before",
    "any",
    "all",
    "not",
)
SERVER_KEYS = ("level", "service", "logger", "exception", "message", "frame", "match", "format")
#: What a ``server`` condition's ``match`` may ask for: a tie by request id (the
#: id, the global id, the answer's own traceback), any tie, or ties of these kinds.
SERVER_MATCHES = ("id", "any", *JOIN_KINDS)
FAILURE_KEYS = (
    "kind",
    "status",
    "service",
    "method",
    "path",
    "fault",
    "fault_type",
    "fault_shape",
    "transport",
    "inner",
    "resource",
    "words",
)
#: The keys of a failure condition that are regular expressions on the facts' texts.
_FAILURE_REGEXES = ("fault", "fault_type", "fault_shape", "inner", "resource", "words")
EXCEPTION_KEYS = ("type", "message", "frame", "package")
RESOURCE_KEYS = ("type", "name", "field", "matches", "with")
PATTERN_KEYS = (
    "service",
    "method",
    "path",
    "query",
    "status",
    "header",
    "no_header",
    "header_value",
    "request_header",
    "no_request_header",
    "body",
    "request_body",
    "error",
    "count",
    "logged_as",
    "repeat",
)
_PARAM = regex.compile(r"\{(\w+)(\*?)\}")
_validate = True

#: What a request pattern's ``error`` may name: the parser's kinds, or any.
_ERROR_KINDS = ("any", *get_args(TransportKind))
#: Transport error kinds the parser tells apart within "connection".
_CONNECTION_KINDS = frozenset({"proxy", "connection-reset"})


Regex = re.Pattern[str] | regex.Pattern[str]
"""A pattern of the knowledge: compiled at once when the knowledge is checked, on
first use when it was checked before (see ``trusted_patterns``): start-up is
mostly regex compilation, and most rules are never evaluated on a given run."""


def compiled(rx: Regex) -> re.Pattern[str]:
    return rx.compiled if isinstance(rx, regex.Pattern) else rx


@functools.lru_cache(maxsize=1024)
def required_words(pattern: str) -> tuple[str, ...] | None:
    """Words of which every match of ``pattern`` contains one (most often a single
    run of plain characters), or None: a text with none of them cannot match,
    which a substring test over many texts at once tells faster than searching
    each. Case-insensitive patterns have none."""
    # Not compiled to be checked: a pattern that does not compile never matches, so
    # what it requires is never asked, and compiling would undo lazy compilation.
    tree = parse_regex(pattern, checked=False)
    if tree is None or tree.flags & (re.IGNORECASE | re.LOCALE):
        return None
    return _required(tree.nodes)


def _required(nodes: list[Node]) -> tuple[str, ...] | None:
    found: list[tuple[str, ...]] = []
    run: list[str] = []
    for kind, value in [*nodes, ("end", None)]:
        if kind == "literal":
            run.append(chr(value))
            continue
        if run:
            found.append(("".join(run),))
            run = []
        sub: tuple[str, ...] | None = None
        if kind == "group" and not value[1] and not value[2]:
            sub = _required(value[3])  # a group without flags of its own
        elif kind == "repeat" and value[0] >= 1:
            sub = _required(value[2])  # repeated at least once
        elif kind == "branch":
            alternatives = [_required(alt) for alt in value]
            if all(alternatives):
                sub = tuple(w for alt in alternatives if alt for w in alt)
        # Anything else (classes, anchors, lookarounds, optional parts) ends the run
        # and promises nothing.
        if sub:
            found.append(sub)
    # The best: the shortest of its words longest, then the fewest words.
    return max(found, key=lambda ws: (min(map(len, ws)), -len(ws)), default=None)


def compile_regex(pattern: str) -> Regex:
    """Compile now (and raise ``re.error``), unless the knowledge is trusted."""
    return re.compile(pattern) if _validate else regex.compile(pattern)


def validating() -> bool:
    """Whether the knowledge being loaded is checked, not trusted (``trusted_patterns``)."""
    return _validate


@contextlib.contextmanager
def trusted_patterns() -> Iterator[None]:
    """While loading knowledge that already passed validation, compile lazily."""
    global _validate
    previous, _validate = _validate, False
    try:
        yield
    finally:
        _validate = previous


class ConditionError(ValueError):
    """A condition that cannot be compiled; the message says what to write instead."""


@dataclass(slots=True)
class Context:
    trace: Trace
    outcome: Outcome
    _texts: list[tuple[int, str]] | None = None
    _facts: Facts | None = None
    _values: dict[str, str] | None = None
    live: bool = False
    """The command is still running: a request without an answer yet is no hang,
    and its end, so its exit code, is not known yet."""
    scope: list[Exchange] | None = None
    """The exchanges request conditions see, when narrower than the trace's: one
    target's (see ``kb.targets``)."""
    _memo: dict[Condition, Match | None] = field(default_factory=dict)
    """What each condition gave on this run: scenarios, rules and the nearest
    misses ask the same conditions again. For one outcome, which the diagnosis
    settles between its steps: ``_memo_outcome``."""
    _memo_outcome: Outcome | None = None
    _selected: dict[str, bool] = field(default_factory=dict)
    """Per scenario id, whether its commands include the run's."""
    _printed: dict[str | None, tuple[list[tuple[int, str]], str]] = field(default_factory=dict)
    """Per message kind (None: every text), the lines and the same as one string,
    which a pattern's required words are looked for in before any line is searched."""
    atoms: Any = None
    """What the knowledge's index knows of the run (``kb.index.RunAtoms``), once found."""

    def facts(self) -> Facts:
        """The facts of the trace (see ``osdoctor.facts``), computed once."""
        if self._facts is None:
            self._facts = facts_of(self.trace, self.live)
        return self._facts

    def fact_values(self) -> dict[str, str]:
        """The facts as template values (``{failure}``, ``{fault}``, ``{quote}``...)."""
        if self._values is None:
            self._values = fact_values(self.facts())
        return self._values

    def printed(self, kind: Any) -> tuple[list[tuple[int, str]], str]:
        """The lines a ``message`` condition searches (those of one kind, or every
        text), and the same lines as one string."""
        key = kind if kind is None or isinstance(kind, str) else repr(kind)
        found = self._printed.get(key)
        if found is None:
            if kind is None:
                items = self.texts()
            else:
                items = [(m.line, m.text) for m in self.trace.messages if m.kind == kind]
            found = self._printed[key] = (items, "\n".join(text for _line, text in items))
        return found

    @property
    def exchanges(self) -> list[Exchange]:
        return self.trace.exchanges if self.scope is None else self.scope

    def texts(self) -> list[tuple[int, str]]:
        """Every printed line worth searching: messages, exception lines, errors."""
        if self._texts is None:
            items = [(m.line, m.text) for m in self.trace.messages]
            for tb in self.trace.tracebacks:
                line = f"{tb.exc_type}: {tb.message}" if tb.message else tb.exc_type
                items.append((tb.last_line, line))
            items.sort(key=lambda item: item[0])
            self._texts = items
        return self._texts


@dataclass(slots=True)
class Match:
    evidence: list[Evidence] = field(default_factory=list)
    captures: dict[str, str] = field(default_factory=dict)


def compile_template(template: str) -> tuple[Regex, list[str]]:
    """``/stacks/{stack}/events`` -> a regex that must match the END of a URL path,
    so that any endpoint prefix (``/heat-api/v1/{project}``) is allowed before it."""
    out = []
    names = []
    pos = 0
    for m in _PARAM.finditer(template):
        out.append(re.escape(template[pos : m.start()]))
        name, star = m.group(1), m.group(2)
        if name in names:
            out.append(f"(?P={name})")
        else:
            names.append(name)
            out.append(f"(?P<{name}>.+?)" if star else f"(?P<{name}>[^/?]+)")
        pos = m.end()
    out.append(re.escape(template[pos:]))
    return compile_regex("".join(out) + "/?$"), names


def _status_is(value: int) -> Callable[[Exchange], bool]:
    return lambda ex: ex.status == value


def _status_class(low: int) -> Callable[[Exchange], bool]:
    return lambda ex: ex.status is not None and low <= ex.status < low + 100


def _no_response(ex: Exchange) -> bool:
    return ex.response is None


def _has_error(ex: Exchange) -> bool:
    return ex.error is not None


def _status_test(spec: Any) -> Callable[[Exchange], bool]:
    items = spec if isinstance(spec, list) else [spec]
    tests: list[Callable[[Exchange], bool]] = []
    for item in items:
        if isinstance(item, bool):
            raise ConditionError("status must be a number, '4xx', 'none' or 'error'")
        if isinstance(item, int) or (isinstance(item, str) and item.isdigit()):
            tests.append(_status_is(int(item)))
        elif isinstance(item, str) and re.fullmatch(r"[1-5]xx", item):
            tests.append(_status_class(int(item[0]) * 100))
        elif item == "none":
            tests.append(_no_response)
        elif item == "error":
            tests.append(_has_error)
        else:
            raise ConditionError(f"status {item!r}: use a number, '4xx', 'none' or 'error'")
    if len(tests) == 1:
        return tests[0]

    def holds(ex: Exchange) -> bool:
        for test in tests:
            if test(ex):
                return True
        return False

    return holds


def count_test(spec: Any) -> Callable[[int], bool]:
    """A request pattern's ``count``: how many matching exchanges it asks for."""
    if isinstance(spec, int) and not isinstance(spec, bool):
        return lambda n: n == spec
    m = re.fullmatch(r"\s*(>=|<=|>|<|==)?\s*(\d+)\s*", str(spec))
    if not m:
        raise ConditionError(f"count {spec!r}: use a number or '>=N', '<=N', '>N', '<N'")
    op, value = m.group(1) or "==", int(m.group(2))
    return {
        ">=": lambda n: n >= value,
        "<=": lambda n: n <= value,
        ">": lambda n: n > value,
        "<": lambda n: n < value,
        "==": lambda n: n == value,
    }[op]


def _regex(value: Any, what: str) -> Regex:
    if not isinstance(value, str):
        raise ConditionError(f"{what} must be a regular expression (a string)")
    try:
        return compile_regex(value)
    except re.error as exc:
        raise ConditionError(f"{what} {value!r} is not a valid regular expression: {exc}") from None


def _groups(rx: Regex, text: str | None) -> dict[str, str]:
    m = rx.search(text or "")
    return {k: v for k, v in m.groupdict().items() if v is not None} if m else {}


def _body_groups(rx: Regex, text: str | None) -> dict[str, str]:
    """Groups of a body regex as a reader wants them: a JSON string's escapes
    (``\\n``, ``\\"``) decoded, on one line."""
    out = _groups(rx, text)
    for key, value in out.items():
        if "\\" in value:
            try:
                decoded = json.loads(f'"{value}"')
            except ValueError:
                continue
            if isinstance(decoded, str):
                out[key] = " ".join(decoded.split())
    return out


class RequestPattern:
    """What one exchange must look like."""

    def __init__(self, spec: Any) -> None:
        if not isinstance(spec, dict):
            raise ConditionError("a request pattern is a mapping (method, path, status...)")
        unknown = [k for k in spec if k not in PATTERN_KEYS]
        if unknown:
            raise ConditionError(
                f"unknown key {unknown[0]!r} in a request pattern; known: {', '.join(PATTERN_KEYS)}"
            )
        self.spec = spec
        tests: list[Callable[[Exchange], bool]] = []
        if "service" in spec:
            raw = spec["service"]
            services = set(raw) if isinstance(raw, list) else {raw}
            tests.append(lambda ex: ex.service in services)
        if "method" in spec:
            methods = spec["method"] if isinstance(spec["method"], list) else [spec["method"]]
            mset = {str(m).upper() for m in methods}
            tests.append(lambda ex: ex.request.method in mset)
        if "logged_as" in spec:
            logged = _choices(spec["logged_as"], LOGGED_AS, "logged_as")
            tests.append(lambda ex: ex.request.logged_as in logged)
        if "status" in spec:
            tests.append(_status_test(spec["status"]))
        if "error" in spec:
            kind = spec["error"]
            if kind in ("any", True):
                tests.append(lambda ex: ex.error is not None)
            else:
                kinds = _choices(kind, _ERROR_KINDS, "error")
                if "connection" in kinds:
                    # The parser's finer kinds of what it once called "connection".
                    kinds |= _CONNECTION_KINDS
                tests.append(lambda ex: ex.error is not None and ex.error.kind in kinds)
        # The tests above only compare fields; the path and those below search texts.
        cheap = len(tests)
        if "query" in spec:
            qre = _regex(spec["query"], "query")
            tests.append(lambda ex: qre.search(ex.query) is not None)
        if "header" in spec:
            name = str(spec["header"])
            tests.append(
                lambda ex: ex.response is not None and ex.response.header(name) is not None
            )
        if "no_header" in spec:
            nname = str(spec["no_header"])
            tests.append(lambda ex: ex.response is not None and ex.response.header(nname) is None)
        if "header_value" in spec:
            hv = spec["header_value"]
            if not isinstance(hv, dict) or len(hv) != 1:
                raise ConditionError("header_value is a mapping of one header name to a regex")
            ((hname, hregex),) = hv.items()
            hre = _regex(hregex, "header_value")
            tests.append(
                lambda ex: (
                    ex.response is not None
                    and hre.search(ex.response.header(str(hname)) or "") is not None
                )
            )
        if "request_header" in spec:
            rname = str(spec["request_header"])
            tests.append(lambda ex: ex.request.header(rname) is not None)
        if "no_request_header" in spec:
            nrname = str(spec["no_request_header"])
            tests.append(lambda ex: ex.request.header(nrname) is None)
        if "body" in spec:
            bre = _regex(spec["body"], "body")
            tests.append(
                lambda ex: (
                    ex.response is not None
                    and ex.response.body is not None
                    and ex.response.body.text is not None
                    and bre.search(ex.response.body.text) is not None
                )
            )
        if "request_body" in spec:
            rbre = _regex(spec["request_body"], "request_body")
            tests.append(
                lambda ex: (
                    ex.request.body is not None
                    and ex.request.body.text is not None
                    and rbre.search(ex.request.body.text) is not None
                )
            )
        self.path: Regex | None = None
        if "path" in spec:
            if not isinstance(spec["path"], str) or not spec["path"].startswith("/"):
                raise ConditionError(
                    "path is a template that starts with '/', e.g. /stacks/{stack}"
                )
            self.path, _ = compile_template(spec["path"])
        self.tests = tests
        self._first, self._rest = tuple(tests[:cheap]), tuple(tests[cheap:])
        # Named groups of the body and header_value regexes become placeholders (a
        # fault message, an X-Trans-Id), read once the exchange has matched.
        self._captors: list[Callable[[Exchange], dict[str, str]]] = []
        if "body" in spec and "(?P<" in spec["body"]:
            self._captors.append(
                lambda ex: _body_groups(
                    bre, ex.response.body.text if ex.response and ex.response.body else None
                )
            )
        if "header_value" in spec and "(?P<" in str(hregex):
            self._captors.append(
                lambda ex: _groups(hre, ex.response.header(str(hname)) if ex.response else None)
            )
        self.count = count_test(spec["count"]) if "count" in spec else None
        self.repeat = int(spec.get("repeat", 1))

    def match(self, ex: Exchange) -> dict[str, str] | None:
        # Every test must hold and none has effects: the cheap ones go first.
        for test in self._first:
            if not test(ex):
                return None
        captures: dict[str, str] = {}
        if self.path is not None:
            m = self.path.search(split_url(ex.request.url)[1])
            if m is None:
                return None
            captures = {k: v for k, v in m.groupdict().items() if v is not None}
        for test in self._rest:
            if not test(ex):
                return None
        for captor in self._captors:
            captures.update(captor(ex))
        return captures

    def describe(self) -> str:
        parts = []
        if "method" in self.spec:
            m = self.spec["method"]
            parts.append("/".join(m) if isinstance(m, list) else str(m))
        if "path" in self.spec or not parts:
            # A template's parameters read as what stands there: /servers/<server>.
            path = _PARAM.sub(lambda m: f"<{m.group(1)}>", str(self.spec.get("path", "")))
            parts.append(path or "to any path")
        if "status" in self.spec:
            parts.append(f"answered {self.spec['status']}")
        if "no_header" in self.spec:
            parts.append(f"without {self.spec['no_header']}")
        if "header" in self.spec:
            parts.append(f"with {self.spec['header']}")
        if "error" in self.spec:
            parts.append(f"failing ({self.spec['error']})")
        return " ".join(parts)


def exchange_evidence(ex: Exchange) -> list[Evidence]:
    """The lines of an exchange, in the log's words."""
    return [Evidence(line, text) for line, text in exchange_quotes(ex)]


_REQUEST_ID_HEADERS = ("x-openstack-request-id", "x-compute-request-id", "x-trans-id")


def request_id(ex: Exchange) -> str | None:
    """The id the service logged this request under, when the answer names it."""
    if ex.response is None:
        return None
    if ex.response.request_id:
        return ex.response.request_id
    for name in _REQUEST_ID_HEADERS:
        value = ex.response.header(name)
        if value:
            return value.strip()
    return None


def exchange_captures(ex: Exchange) -> dict[str, str]:
    """What a matched exchange gives templates; ``request_id`` only when logged."""
    method, url = ex.request.method, ex.request.url
    path = ex.path or split_url(url)[1]
    out = {
        "method": method,
        "url": url,
        "path": path,
        # the call as the log shows it: a transport error names no method
        "call": f"{method} {url}" if method else f"the request to {url}",
        "call_path": f"{method} {path}" if method else f"the request to {path}",
        "status": str(ex.status) if ex.status is not None else "none",
        "service": ex.service or "unknown",
    }
    rid = request_id(ex)
    if rid:
        out["request_id"] = rid
    return out


Evaluator = Callable[[Context], "Match | None"]
_UNSET = Match()  # a memo's "not asked yet": no condition returns this one


class Condition:
    """One compiled condition item."""

    def __init__(self, spec: Any) -> None:
        if not isinstance(spec, dict) or len(spec) != 1:
            raise ConditionError(
                "each condition is a mapping with exactly one key, e.g. '- message: \"...\"'"
            )
        ((key, value),) = spec.items()
        if key not in CONDITION_KEYS:
            raise ConditionError(f"unknown condition {key!r}; known: {', '.join(CONDITION_KEYS)}")
        self.key = key
        self.value = value
        self._eval: Evaluator = getattr(self, "_c_" + key)(value)
        self._described: str | None = None

    def __call__(self, ctx: Context) -> Match | None:
        # Conditions only read the run: the same one gives the same answer until the
        # outcome, the one input the diagnosis changes, does. Nobody changes a Match a
        # condition returns (evaluate_all copies into its own).
        memo = ctx._memo
        if ctx._memo_outcome != ctx.outcome:
            memo.clear()
            ctx._memo_outcome = ctx.outcome
        m = memo.get(self, _UNSET)
        if m is _UNSET:
            m = memo[self] = self._eval(ctx)
        return m

    def describe(self) -> str:
        """The condition in words, as a candidate's reason says it (once: every run
        that does not take a branch says why)."""
        if self._described is None:
            self._described = self._describe()
        return self._described

    def _describe(self) -> str:
        v = self.value
        if self.key == "no_request" and not v:
            return "no request at all"
        if self.key in ("traceback", "no_traceback"):
            spec = v if isinstance(v, dict) else {"type": v} if v else {}
            what = f"a {spec['type']} traceback" if "type" in spec else "a traceback"
            if "message" in spec:
                what += f" whose message matches {spec['message']!r}"
            return what if self.key == "traceback" else "no " + what[2:]
        if self.key in ("message", "no_message"):
            text = v.get("text", "") if isinstance(v, dict) else v
            return (
                "a printed line matching " if self.key == "message" else "no printed line matching "
            ) + repr(text)
        if self.key in ("request", "no_request", "last_request"):
            text = RequestPattern(v).describe()
            return {
                "request": "a request " + text,
                "no_request": "no request " + text,
                "last_request": "the last request " + text,
            }[self.key]
        if self.key == "sequence":
            return "requests in order: " + "; ".join(RequestPattern(p).describe() for p in v)
        if self.key in ("any", "all"):
            return f"{self.key} of: " + "; ".join(Condition(c).describe() for c in v)
        if self.key == "not":
            return "not " + Condition(v).describe()
        return f"{self.key.replace('_', ' ')} {v}"

    # -- compilers ---------------------------------------------------------
    def _c_request(self, spec: Any) -> Evaluator:
        pattern = RequestPattern(spec)

        def ev(ctx: Context) -> Match | None:
            found: list[tuple[Exchange, dict[str, str]]] = []
            if pattern.count is None:
                # The last matching exchange is the one that tells: the final failure.
                for ex in reversed(ctx.exchanges):
                    caps = pattern.match(ex)
                    if caps is not None:
                        found.append((ex, caps))
                        break
            else:
                for ex in ctx.exchanges:
                    caps = pattern.match(ex)
                    if caps is not None:
                        found.append((ex, caps))
            if pattern.count is not None:
                if not pattern.count(len(found)):
                    return None
            elif not found:
                return None
            match = Match()
            for shown, _caps in found[:3] + (found[-1:] if len(found) > 3 else []):
                match.evidence.extend(exchange_evidence(shown))
            if found:
                last, caps = found[-1]
                match.captures.update(exchange_captures(last))
                match.captures.update(caps)
            match.captures["count"] = str(len(found))
            return match

        return ev

    def _c_no_request(self, spec: Any) -> Evaluator:
        pattern = RequestPattern(spec)

        def ev(ctx: Context) -> Match | None:
            for ex in ctx.exchanges:
                if pattern.match(ex) is not None:
                    return None
            return Match()

        return ev

    def _c_last_request(self, spec: Any) -> Evaluator:
        pattern = RequestPattern(spec)

        def ev(ctx: Context) -> Match | None:
            if not ctx.exchanges:
                return None
            ex = ctx.exchanges[-1]
            caps = pattern.match(ex)
            if caps is None:
                return None
            return Match(exchange_evidence(ex), {**exchange_captures(ex), **caps})

        return ev

    def _c_sequence(self, spec: Any) -> Evaluator:
        if not isinstance(spec, list) or not spec:
            raise ConditionError("sequence is a list of request patterns, in order")
        patterns = [RequestPattern(p) for p in spec]

        def ev(ctx: Context) -> Match | None:
            match = Match()
            exchanges = ctx.exchanges
            i = 0
            for pattern in patterns:
                hits = 0
                while i < len(exchanges) and hits < pattern.repeat:
                    caps = pattern.match(exchanges[i])
                    if caps is not None:
                        hits += 1
                        match.evidence.extend(exchange_evidence(exchanges[i])[-1:])
                        match.captures.update(exchange_captures(exchanges[i]))
                        match.captures.update(caps)
                    i += 1
                if hits < pattern.repeat:
                    return None
            return match

        return ev

    def _c_message(self, spec: Any) -> Evaluator:
        kind = None
        if isinstance(spec, dict):
            kind = spec.get("kind")
            if kind is not None:
                _choices(kind, MESSAGE_KINDS, "message kind")
            spec = spec.get("text", "")
        rx = _regex(spec, "message")
        words: list[tuple[str, ...] | None] = []  # the pattern's, found on first use

        def ev(ctx: Context) -> Match | None:
            if not words:
                words.append(required_words(rx.pattern))
            items, joined = ctx.printed(kind)
            needed = words[0]
            if needed is not None:
                for word in needed:
                    if word in joined:
                        break
                else:
                    return None  # no line has any of the words every match contains
            search = compiled(rx).search
            for line, text in items:
                m = search(text)
                if m:
                    caps = {k: v for k, v in m.groupdict().items() if v is not None}
                    return Match([Evidence(line, text)], caps)
            return None

        return ev

    def _c_no_message(self, spec: Any) -> Evaluator:
        inner = self._c_message(spec)
        return lambda ctx: None if inner(ctx) is not None else Match()

    def _c_traceback(self, spec: Any) -> Evaluator:
        if not isinstance(spec, dict):
            spec = {"type": spec}
        type_rx = _regex(spec["type"], "traceback type") if "type" in spec else None
        msg_rx = _regex(spec["message"], "traceback message") if "message" in spec else None

        def ev(ctx: Context) -> Match | None:
            for tb in reversed(ctx.trace.tracebacks):
                if tb.origin != "client":
                    continue  # a service's traceback, pasted beside the client's output
                if type_rx is not None and not type_rx.search(tb.exc_type):
                    continue
                if msg_rx is not None and not msg_rx.search(tb.message):
                    continue
                text = f"{tb.exc_type}: {tb.message}" if tb.message else tb.exc_type
                return Match(
                    [Evidence(tb.last_line, text)],
                    {"exception": tb.exc_type, "exception_message": tb.message},
                )
            return None

        return ev

    def _c_no_traceback(self, spec: Any) -> Evaluator:
        inner = self._c_traceback(spec if isinstance(spec, dict | str) else {})
        return lambda ctx: None if inner(ctx) is not None else Match()

    def _c_exit_code(self, spec: Any) -> Evaluator:
        items = spec if isinstance(spec, list) else [spec]

        def holds(code: int | None) -> bool:
            for item in items:
                if item == "none" and code is None:
                    return True
                if item == "nonzero" and code not in (None, 0):
                    return True
                if item == "zero" and code == 0:
                    return True
                if isinstance(item, int) and code == item:
                    return True
            return False

        def ev(ctx: Context) -> Match | None:
            code = ctx.trace.exit_code
            if ctx.live and code is None:
                # No exit yet is not "no exit in the log": what depends on the end
                # waits for it, and a command that has not ended has not failed.
                return Match() if holds(0) else None
            if not holds(code):
                return None
            line = ctx.trace.exit_line
            ev_ = [Evidence(line, f"exit code {code}")] if line else []
            return Match(ev_, {"exit_code": str(code)})

        return ev

    def _c_outcome(self, spec: Any) -> Evaluator:
        wanted = _choices(spec, OUTCOMES, "outcome")
        return lambda ctx: Match() if ctx.outcome in wanted else None

    def _c_command(self, spec: Any) -> Evaluator:
        rx = _regex(spec, "command")

        def ev(ctx: Context) -> Match | None:
            cmd = ctx.trace.command
            if cmd is None:
                return None
            m = rx.search(cmd)
            if m is None:
                return None
            caps = {k: v for k, v in m.groupdict().items() if v is not None}
            line = ctx.trace.command_line
            return Match([Evidence(line, cmd)] if line else [], caps)

        return ev

    def _c_client(self, spec: Any) -> Evaluator:
        wanted = set(spec) if isinstance(spec, list) else {spec}
        return lambda ctx: Match() if ctx.trace.client in wanted else None

    def _c_failure(self, spec: Any) -> Evaluator:
        if spec in ("any", True, None) or spec == {}:
            spec = {}
        if not isinstance(spec, dict):
            raise ConditionError("failure is 'any' or a mapping of: " + ", ".join(FAILURE_KEYS))
        unknown = [k for k in spec if k not in FAILURE_KEYS]
        if unknown:
            raise ConditionError(
                f"unknown key {unknown[0]!r} in a failure condition; known: "
                f"{', '.join(FAILURE_KEYS)}"
            )
        kinds = _choices(spec.get("kind"), FAILURE_KINDS, "failure kind")
        transports = _choices(spec.get("transport"), TRANSPORT_CLASSES, "transport")
        status = _status_value_test(spec["status"]) if "status" in spec else None
        services = _choices(spec.get("service"), None, "service")
        methods = {m.upper() for m in _choices(spec.get("method"), None, "method") or ()}
        path = compile_template(spec["path"])[0] if "path" in spec else None
        regexes = {
            key: _regex(spec[key], f"failure {key}") for key in _FAILURE_REGEXES if key in spec
        }

        def ev(ctx: Context) -> Match | None:
            f = ctx.facts().failure
            if f is None:
                return None
            if kinds and f.kind not in kinds:
                return None
            if transports and (f.transport is None or f.transport.kind not in transports):
                return None
            if status is not None and not status(f.status):
                return None
            if services and f.service not in services:
                return None
            if methods and f.method not in methods:
                return None
            captures: dict[str, str] = {}
            if path is not None:
                pm = path.search(f.path)
                if pm is None:
                    return None
                captures.update({k: v for k, v in pm.groupdict().items() if v is not None})
            vals = ctx.fact_values()
            texts = {
                "fault": vals["fault"],
                "fault_type": vals["fault_type"],
                "fault_shape": vals["fault_shape"],
                "inner": f.inner,
                "resource": f.resource,
                "words": vals["all_words"],
            }
            for key, rx in regexes.items():
                m = rx.search(texts[key])
                if m is None:
                    return None
                captures.update({k: v for k, v in m.groupdict().items() if v is not None})
            evidence = [Evidence(line, text) for line, text in f.evidence if line]
            af = ctx.facts().async_failure
            if "words" in regexes and af is not None and af.line and af.fault:
                evidence.append(Evidence(af.line, af.fault[:200]))
            return Match(evidence, captures)

        return ev

    def _c_fault(self, spec: Any) -> Evaluator:
        return self._c_failure({"fault": spec})

    def _c_client_error(self, spec: Any) -> Evaluator:
        rx = _regex(spec, "client_error")

        def ev(ctx: Context) -> Match | None:
            ce = ctx.facts().client_error
            if ce is None:
                return None
            m = rx.search(ce.text)
            if m is None:
                return None
            caps = {k: v for k, v in m.groupdict().items() if v is not None}
            return Match([Evidence(ce.line, ce.text)], caps)

        return ev

    def _c_exception(self, spec: Any) -> Evaluator:
        if not isinstance(spec, dict):
            spec = {"type": spec}
        unknown = [k for k in spec if k not in EXCEPTION_KEYS]
        if unknown:
            raise ConditionError(
                f"unknown key {unknown[0]!r} in an exception condition; "
                f"known: {', '.join(EXCEPTION_KEYS)}"
            )
        regexes = {
            key: _regex(spec[key], f"exception {key}") for key in EXCEPTION_KEYS if key in spec
        }

        def ev(ctx: Context) -> Match | None:
            exc = ctx.facts().exception
            if exc is None:
                return None
            texts = {
                "type": exc.type,
                "message": exc.message,
                "frame": exc.frame,
                "package": exc.package,
            }
            captures: dict[str, str] = {}
            for key, rx in regexes.items():
                m = rx.search(texts[key])
                if m is None:
                    return None
                captures.update({k: v for k, v in m.groupdict().items() if v is not None})
            text = f"{exc.type}: {exc.message}" if exc.message else exc.type
            return Match([Evidence(exc.line, text)], captures)

        return ev

    def _c_client_version(self, spec: Any) -> Evaluator:
        if not isinstance(spec, dict) or "package" not in spec:
            raise ConditionError(
                "client_version is a mapping: {package: NAME, range: '>=2.0,<3.0'}"
            )
        package = str(spec["package"]).lower().replace("_", "-")
        tests = _version_tests(str(spec.get("range", "")))

        def ev(ctx: Context) -> Match | None:
            version = ctx.facts().versions.get(package)
            if version is None:
                return None
            have = version_tuple(version)
            if not all(test(have) for test in tests):
                return None
            return Match([], {"client_version": f"{package} {version}"})

        return ev

    def _c_server(self, spec: Any) -> Evaluator:
        if not isinstance(spec, dict):
            raise ConditionError("server is a mapping of: " + ", ".join(SERVER_KEYS))
        unknown = [k for k in spec if k not in SERVER_KEYS]
        if unknown:
            raise ConditionError(
                f"unknown key {unknown[0]!r} in a server condition; known: {', '.join(SERVER_KEYS)}"
            )
        level = str(spec.get("level", "WARNING")).upper()
        if level not in LEVELS:
            raise ConditionError(f"unknown server level {level!r}; known: {', '.join(LEVELS)}")
        ties = _choices(spec.get("match"), SERVER_MATCHES, "server match")
        kinds = set() if not ties or "any" in ties else ties - {"id"}
        if "id" in ties:
            kinds |= BY_ID
        # A record tied by time alone is no cause of a run the service did not fail
        # (a 4xx, a name not found), unless the condition asks for such ties by name.
        timed = bool(ties & {"time", "last-words"})
        formats = _choices(spec.get("format"), RECORD_FORMATS, "server format")
        regexes = {
            key: _regex(spec[key], f"server {key}")
            for key in ("service", "logger", "exception", "message", "frame")
            if key in spec
        }

        def ev(ctx: Context) -> Match | None:
            for joined in ctx.facts().server:
                record = joined.record
                if not at_least(record.level, level) or (kinds and joined.kind not in kinds):
                    continue
                if not timed and joined.kind in ("time", "last-words") and not _failed_there(ctx):
                    continue
                if formats and record.format not in formats:
                    continue
                texts = {
                    "service": record.service,
                    "logger": record.logger,
                    "exception": record.exception,
                    "message": server_facts.words(joined),
                    "frame": "\n".join(record.frames),
                }
                captures: dict[str, str] = {}
                for key, rx in regexes.items():
                    m = rx.search(texts[key])
                    if m is None:
                        break
                    captures.update({k: v for k, v in m.groupdict().items() if v is not None})
                else:
                    failure = ctx.facts().failure
                    failing = failure.service_name if failure is not None else ""
                    values = server_facts.values(joined, ctx.trace, failing)
                    return Match([server_facts.evidence(joined)], {**values, **captures})
            return None

        return ev

    def _c_command_before(self, spec: Any) -> Evaluator:
        rx = _regex(spec, "command_before")

        def ev(ctx: Context) -> Match | None:
            for command in reversed(commands_before(ctx)):
                m = rx.search(command.text)
                if m is not None:
                    caps = {k: v for k, v in m.groupdict().items() if v is not None}
                    caps["before_command"] = command.text
                    caps["before_line"] = str(command.line)
                    return Match([Evidence(command.line, command.typed or command.text)], caps)
            return None

        return ev

    def _c_resource(self, spec: Any) -> Evaluator:
        if not isinstance(spec, dict) or "field" not in spec:
            raise ConditionError(
                "resource is a mapping: {field: NAME, matches: REGEX}, optionally with "
                "type, name and with: {OTHER FIELD: REGEX}"
            )
        unknown = [k for k in spec if k not in RESOURCE_KEYS]
        if unknown:
            raise ConditionError(
                f"unknown key {unknown[0]!r} in a resource condition; known: "
                f"{', '.join(RESOURCE_KEYS)}"
            )
        field_rx = _field_regex(spec["field"], "resource field")
        value_rx = _regex(spec.get("matches", r"\S"), "resource matches")
        type_rx = _regex(spec["type"], "resource type") if "type" in spec else None
        name_rx = _regex(spec["name"], "resource name") if "name" in spec else None
        others = spec.get("with") or {}
        if not isinstance(others, dict):
            raise ConditionError("resource with: is a mapping of field name to regex")
        siblings = [
            (_field_regex(k, "resource with field"), _regex(v, f"resource with {k}"))
            for k, v in others.items()
        ]

        def ev(ctx: Context) -> Match | None:
            shown = ctx.trace.resources
            earlier = ctx.trace.earlier_resources
            for res in [*reversed(shown), *reversed(earlier)]:
                if type_rx is not None and not type_rx.search(res.type):
                    continue
                caps: dict[str, str] = {}
                if name_rx is not None:
                    nm = name_rx.search(res.name)
                    if nm is None:
                        continue
                    caps.update({k: v for k, v in nm.groupdict().items() if v is not None})
                found = _resource_field(res, field_rx, value_rx)
                if found is None:
                    continue
                f, m = found
                evidence = [Evidence(f.line, f.text or f.value[:200])]
                caps.update({k: v for k, v in m.groupdict().items() if v is not None})
                for sibling_field, sibling_value in siblings:
                    other = _resource_field(res, sibling_field, sibling_value)
                    if other is None:
                        break
                    evidence.append(Evidence(other[0].line, other[0].text or other[0].value[:200]))
                    caps.update({k: v for k, v in other[1].groupdict().items() if v is not None})
                else:
                    caps.update(
                        {
                            "resource_field": f.name,
                            "resource_value": f.value,
                            **({"resource_type": res.type} if res.type else {}),
                            **({"resource_name": res.name} if res.name else {}),
                        }
                    )
                    return Match(evidence, caps)
            return None

        return ev

    def _c_any(self, spec: Any) -> Evaluator:
        subs = compile_conditions(spec)

        def ev(ctx: Context) -> Match | None:
            for sub in subs:
                m = sub(ctx)
                if m is not None:
                    return m
            return None

        return ev

    def _c_all(self, spec: Any) -> Evaluator:
        subs = compile_conditions(spec)
        return lambda ctx: match_all(subs, ctx)

    def _c_not(self, spec: Any) -> Evaluator:
        sub = Condition(spec)
        return lambda ctx: None if sub(ctx) is not None else Match()


def _failed_there(ctx: Context) -> bool:
    """Whether the run failed on the services' side: a 5xx, no answer, a resource
    in ERROR, a failure the client only printed (a paste without exchanges); not a
    refusal the client earned (a 4xx, a name not found after a 404)."""
    failure = ctx.facts().failure
    if failure is None:
        return False
    if failure.kind in ("transport", "async") or (failure.status or 0) >= 500:
        return True
    if failure.status is not None:
        return False
    return not ctx.trace.exchanges or any(
        ex.error is not None or (ex.status or 0) >= 500 or in_error(ex)
        for ex in ctx.trace.exchanges
    )


def commands_before(ctx: Context) -> list[Command]:
    """The command lines the log shows before the one that failed (this run's and
    the runs' before it): the ones before the decisive failure's line, the
    command that ran it left out."""
    t = ctx.trace
    failure = ctx.facts().failure
    limit = failure.line if failure is not None and failure.line else t.line_count + 1
    before = [c for c in [*t.earlier, *t.commands] if c.line < limit]
    return before[:-1]


def _field_regex(value: Any, what: str) -> Regex:
    """A field name pattern, matched whole and in any case (``task_state``,
    ``.*_status_reason``), against the names rules write (``ResourceField.key``)."""
    if not isinstance(value, str):
        raise ConditionError(f"{what} must be a field name or a regular expression")
    return _regex(f"(?i:{value})\\Z", what)


def _resource_field(
    resource: Resource, name: Regex, value: Regex
) -> tuple[ResourceField, re.Match[str]] | None:
    for f in resource.fields:
        if name.match(f.key) is not None:
            m = value.search(f.value)
            if m is not None:
                return f, m
    return None


def _choices(value: Any, allowed: tuple[str, ...] | None, what: str) -> set[str]:
    if value is None:
        return set()
    items = value if isinstance(value, list) else [value]
    out = {str(v) for v in items}
    if allowed is not None:
        bad = sorted(out - set(allowed))
        if bad:
            raise ConditionError(f"{what} {bad[0]!r}: use one of {', '.join(allowed)}")
    return out


def _status_value_test(spec: Any) -> Callable[[int | None], bool]:
    """A ``status`` of a failure condition: numbers, ``4xx``, ``none`` (no answer)."""
    items = spec if isinstance(spec, list) else [spec]
    exact: set[int] = set()
    classes: set[int] = set()
    none = False
    for item in items:
        if isinstance(item, bool):
            raise ConditionError("status must be a number, '4xx' or 'none'")
        if isinstance(item, int) or (isinstance(item, str) and item.isdigit()):
            exact.add(int(item))
        elif isinstance(item, str) and re.fullmatch(r"[1-5]xx", item):
            classes.add(int(item[0]))
        elif item == "none":
            none = True
        else:
            raise ConditionError(f"status {item!r}: use a number, '4xx' or 'none'")

    def holds(status: int | None) -> bool:
        if status is None:
            return none
        return status in exact or status // 100 in classes

    return holds


def _version_tests(spec: str) -> list[Callable[[tuple[int, ...]], bool]]:
    tests: list[Callable[[tuple[int, ...]], bool]] = []
    for part in (p.strip() for p in spec.split(",")):
        if not part:
            continue
        m = re.fullmatch(r"(>=|<=|>|<|==)\s*(\d+(?:\.\d+)*)", part)
        if not m:
            raise ConditionError(f"version range {part!r}: write '>=2.0', '<3.1.4', '==1.2'")
        op, bound = m.group(1), version_tuple(m.group(2))
        tests.append(
            {
                ">=": lambda v, b=bound: v >= b,
                "<=": lambda v, b=bound: v <= b,
                ">": lambda v, b=bound: v > b,
                "<": lambda v, b=bound: v < b,
                "==": lambda v, b=bound: v[: len(b)] == b,
            }[op]
        )
    return tests


def compile_conditions(spec: Any) -> list[Condition]:
    if not isinstance(spec, list):
        raise ConditionError("conditions are a list: each item starts with '- '")
    return [Condition(item) for item in spec]


def match_all(conditions: list[Condition], ctx: Context) -> Match | None:
    """The match of ``evaluate_all``, without asking the conditions after the first
    that does not hold (conditions have no effects: the answer is the same)."""
    total = Match()
    for cond in conditions:
        m = cond(ctx)
        if m is None:
            return None
        total.evidence.extend(m.evidence)
        total.captures.update(m.captures)
    return total


def evaluate_all(
    conditions: list[Condition], ctx: Context
) -> tuple[Match | None, int, Condition | None]:
    """(match or None, how many held, the first that did not hold)."""
    total = Match()
    held = 0
    first_failed: Condition | None = None
    for cond in conditions:
        m = cond(ctx)
        if m is None:
            if first_failed is None:
                first_failed = cond
            continue
        held += 1
        total.evidence.extend(m.evidence)
        total.captures.update(m.captures)
    if first_failed is not None:
        return None, held, first_failed
    return total, held, None
