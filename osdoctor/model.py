"""The trace model: what a client's debug log says happened, free of any front end.

Every element keeps the 1-based input line numbers it came from, so that a
finding can point at the lines that prove it. Bodies keep a bounded copy of
their text plus their position in the input: memory follows the number of
exchanges, not the size of the bodies.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from enum import Enum, StrEnum
from operator import attrgetter
from typing import Any, Literal, TypeVar, get_args

from osdoctor import regex
from osdoctor.headers import curl_headers, resp_headers
from osdoctor.servicelog.record import ServiceRecord

# The closed sets of words the model uses. They are Literal types rather than
# enums so that they stay plain strings (the JSON report writes them as they
# are) while mypy refuses a value outside the set, where one is made and where
# one is compared: ``kind == "eror"`` is a type error, not a silent miss.

Severity = Literal["error", "warning", "info"]
"""How much a finding matters; also the order findings are grouped in."""
SEVERITIES: tuple[Severity, ...] = get_args(Severity)

Outcome = Literal["success", "failure", "unknown"]
"""How the run ended: ``unknown`` when the log says neither (no exit code, no
error): it ends before the command did, or shows only the command's output."""
OUTCOMES: tuple[Outcome, ...] = get_args(Outcome)

MessageKind = Literal[
    "error",
    "warning",
    "output",
    "debug",
    "clean_up",
    "end",
    "text",
    "command",
    "server",
    "elision",
    "note",
    "cancelled",
]
"""What a printed line is (see ``Message.kind``)."""
MESSAGE_KINDS: tuple[MessageKind, ...] = get_args(MessageKind)

TransportKind = Literal[
    "connection-refused",
    "timeout",
    "dns",
    "tls",
    "proxy",
    "connection-reset",
    "no-answer",
    "discovery",
    "connection",
]
"""Why a request got no HTTP answer (see ``TransportError.kind``)."""
TRANSPORT_KINDS: tuple[TransportKind, ...] = get_args(TransportKind)

LoggedAs = Literal["curl", "auth", "urllib3", "redirect", "error", "httplib", "gophercloud"]
"""Which line of the log shows a request (see ``Request.logged_as``)."""
LOGGED_AS: tuple[LoggedAs, ...] = get_args(LoggedAs)

TraceFormat = Literal["debug", "log-file", "session", "unknown"]
"""What kind of log a trace was read from (see ``Trace.format``)."""

Origin = Literal["client", "server"]
"""Whose traceback it is: the client's, or a service's pasted beside it."""

#: Body text kept per exchange, at most (characters). Larger bodies keep their
#: head and are marked truncated; the input position allows a re-read.
BODY_KEEP = 256 * 1024
#: Characters of a request's or an answer's line kept to quote it as evidence.
QUOTE_KEEP = 240
_CURL_HEADERS = regex.compile(r" -H ['\"]")


def line_quote(text: str) -> str:
    """The words of a log line a finding quotes for a request or an answer: the line
    as read, up to its first header when it is a curl line (``REQ: curl -g -i -X GET
    URL …``), cut at ``QUOTE_KEEP`` characters; a cut quote ends with "…"."""
    head = _CURL_HEADERS.search(text, 0, QUOTE_KEEP) if "curl" in text[:16] else None
    if head is not None:
        return text[: head.start()] + " …"
    return text if len(text) <= QUOTE_KEEP else text[: QUOTE_KEEP - 1] + "…"


_Model = TypeVar("_Model")


def _pickled_by_fields(cls: type[_Model]) -> type[_Model]:
    """Pickle ``cls`` as its class and its fields in order: the traces of a big log
    go to the diagnosing child by the thousand, and a slotted dataclass's
    default way (a dict of its slots per object) took a tenth of the reading."""
    get = attrgetter(*(f.name for f in fields(cls)))  # type: ignore[arg-type]

    def __reduce__(self: _Model) -> tuple[type[_Model], tuple[Any, ...]]:
        return cls, get(self)

    cls.__reduce__ = __reduce__  # type: ignore[assignment,method-assign]
    return cls


class _Unparsed(Enum):
    """The mark of a body whose JSON was not read yet: one object in every process,
    so that a body sent to the diagnosing child (pickled) is still unread there."""

    MARK = "unparsed"


_UNPARSED: Any = _Unparsed.MARK
#: Frames that are never where a client defect is: argument helpers, the
#: standard library, HTTP plumbing.
_HELPER_FRAME = regex.compile(
    r"/(?:positional|six|debtcollector|requests|urllib3|http|httplib2?|socket|ssl|"
    r"importlib|runpy|functools|contextlib|abc)(?:/|\.py)|/python\d(?:\.\d+)?/[\w]+\.py$"
)


def _lookup(headers: dict[str, str], name: str) -> str | None:
    lname = name.lower()
    for key, value in headers.items():
        if key.lower() == lname:
            return value
    return None


def _json_head(text: str) -> Any:
    """The JSON value of a head cut anywhere: its open string and brackets closed,
    or else its last whole member kept (the text up to the last comma or bracket)."""
    closers: list[str] = []
    safe = -1  # text[:safe] ends after a whole member...
    safe_closers = ""  # ...and these close it
    in_string = escaped = False
    for i, c in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "{[":
            closers.append("}" if c == "{" else "]")
            safe, safe_closers = i + 1, "".join(reversed(closers))
        elif c in "}]":
            if closers:
                closers.pop()
            safe, safe_closers = i + 1, "".join(reversed(closers))
        elif c == ",":
            safe, safe_closers = i, "".join(reversed(closers))
    tail = ('"' if in_string and not escaped else "") + "".join(reversed(closers))
    for candidate in (text + tail, text[:safe] + safe_closers if safe >= 0 else ""):
        try:
            return json.loads(candidate)
        except ValueError:
            continue
    return None


@_pickled_by_fields
@dataclass(slots=True)
class Body:
    """A request or response body as logged."""

    first_line: int
    last_line: int
    text: str | None
    """The kept text: None when dropped to bound memory (see ``dropped``)."""
    size: int = 0
    """Characters the log held for this body."""
    truncated: bool = False
    """True when ``text`` holds only the head of the body."""
    dropped: bool = False
    """True when the text was released after parsing; ``first_line`` still locates it."""
    omitted: str | None = None
    """The client's note when it did not log the body ("Omitted, Content-Type is set to...")."""
    cut: bool = False
    """True when the paste cut the body's line at its width (its line is exactly
    as long as the paste's lines): ``json()`` then reads what the head holds."""
    _json: Any = field(default=_UNPARSED, repr=False, compare=False)

    def json(self) -> Any:
        """The body as JSON, parsed on first use; None when it is not JSON. A cut
        body gives the members its head holds whole (and a string cut short)."""
        if self._json is _UNPARSED:
            value: Any = None
            if self.text and not self.truncated:
                stripped = self.text.strip()
                if stripped[:1] in ("{", "["):
                    try:
                        value = json.loads(stripped)
                    except ValueError:
                        value = _json_head(stripped) if self.cut else None
            self._json = value
        return self._json


@_pickled_by_fields
@dataclass(slots=True)
class Request:
    method: str
    url: str
    line: int
    raw_headers: str = ""
    """Headers as logged, parsed on demand (see ``headers``): a poll-heavy log holds
    many exchanges, and a dict per exchange would dominate memory."""
    body: Body | None = None
    logged_as: LoggedAs = "curl"
    """"curl" for a REQ line, "auth" for keystoneauth's unlogged token request,
    "urllib3" when only the connection pool's line shows it, "redirect" for a hop
    keystoneauth followed without logging a new request line, "error" when only
    the transport error names it, "httplib" for http.client's ``send:`` line,
    "gophercloud" for a Go client's (terraform's) request line."""
    quote: str = ""
    """The log's words for the request (``line_quote`` of its line): what evidence
    shows, rather than words the log does not have. Empty for a stand-in."""

    @property
    def headers(self) -> dict[str, str]:
        return curl_headers(self.raw_headers)

    def header(self, name: str) -> str | None:
        """A header value, case-insensitively."""
        return _lookup(self.headers, name)


@_pickled_by_fields
@dataclass(slots=True)
class Response:
    status: int | None
    line: int
    reason: str | None = None
    raw_headers: str = ""
    """Headers as logged (``K: V K2: V2`` or a dict repr), parsed on demand."""
    body: Body | None = None
    last_line: int = 0
    request_id: str | None = None
    quote: str = ""
    """The log's words for the answer (``line_quote`` of its first line)."""

    @property
    def headers(self) -> dict[str, str]:
        return resp_headers(self.raw_headers)

    def header(self, name: str) -> str | None:
        """A header value, case-insensitively."""
        return _lookup(self.headers, name)


@_pickled_by_fields
@dataclass(slots=True)
class TransportError:
    """A request that got no HTTP response: refused, timed out, TLS, DNS."""

    kind: TransportKind
    """"connection-refused", "timeout", "dns", "tls", "proxy" (a proxy refused the
    tunnel or the connection), "connection-reset", "no-answer" (the log ends while
    the request waits: the client hung), "discovery" (keystoneauth gave up on
    version discovery; a later line may refine it) or "connection" (other)."""
    message: str
    line: int
    detail: str | None = None
    """The precise cause within ``kind`` when the log names it: for "tls",
    "certificate" (verification failed) or "wrong-version" (TLS spoken to a
    plain-HTTP port); for "proxy", the proxy's answer ("403 Forbidden"); for
    "no-answer", the host the client was waiting for."""


@_pickled_by_fields
@dataclass(slots=True)
class Exchange:
    """One HTTP request with what came back for it."""

    index: int
    request: Request
    response: Response | None = None
    error: TransportError | None = None
    service: str | None = None
    """Catalog service type (``orchestration``, ``identity``...), when known."""
    path: str = ""
    """The URL path with the service's endpoint prefix removed (``/stacks/x/events``)."""
    query: str = ""
    time: float | None = None
    """Seconds from the start of the run, when the log carries times."""
    redirected_from: int | None = None
    """Index of the 3xx exchange this request follows, when it is a redirect hop."""

    @property
    def status(self) -> int | None:
        return self.response.status if self.response else None

    @property
    def first_line(self) -> int:
        return self.request.line

    @property
    def last_line(self) -> int:
        end = self.request.line
        if self.request.body:
            end = max(end, self.request.body.last_line)
        if self.response:
            end = max(end, self.response.line, self.response.last_line)
            if self.response.body:
                end = max(end, self.response.body.last_line)
        if self.error:
            end = max(end, self.error.line)
        return end


@_pickled_by_fields
@dataclass(slots=True)
class Fold:
    """The middle of a long run of repeating requests (polls, retries): counted, not kept.

    A ``--wait`` that polls for hours repeats the same few requests; the first
    and the last ones of the run stay in ``Trace.exchanges``, the rest are
    summed here so memory does not grow with the length of the wait.
    """

    after: int
    """``index`` of the last exchange kept before the folded ones."""
    count: int
    first_line: int
    last_line: int
    pattern: list[str] = field(default_factory=list)
    """One period of the run, e.g. ["GET /stacks/x/events 302", "GET /stacks/x/y/events 200"]."""


@_pickled_by_fields
@dataclass(slots=True)
class Message:
    """A line the client printed that is not part of an HTTP exchange."""

    line: int
    kind: MessageKind
    """"error" (``ERROR: ...``), "warning", "output" (stdout: tables, per-item
    lines), "debug" (other debug lines), "clean_up", "end", "text" (other
    printed lines), "command" (a shell prompt or ``+`` xtrace line: the text is
    the command typed), "server" (a service's own log line pasted beside the
    client's output: not the client's words), "elision" (a gap the poster left:
    ``...``, ``[... collector: ...]``, ``--- (...) ---``), "note" (osdoctor's own
    note in a session, e.g. that it added ``--debug``), "cancelled" (the user
    cancelled the run)."""
    text: str
    repeats: int = 1
    """Identical consecutive lines are folded into one message."""
    last_line: int = 0


@_pickled_by_fields
@dataclass(slots=True)
class Frame:
    file: str
    lineno: int
    function: str
    line: int


@_pickled_by_fields
@dataclass(slots=True)
class Traceback:
    """A Python traceback the client printed: a client defect, not a cloud answer."""

    first_line: int
    last_line: int
    exc_type: str
    message: str
    frames: list[Frame] = field(default_factory=list)
    origin: Origin = "client"
    """"client", or "server" when it is a service's traceback pasted beside the
    client's output (behind a service's log prefix, or in service code only)."""

    @property
    def client_frame(self) -> Frame | None:
        """The innermost frame in the client's own code (the clients, their
        libraries, keystoneauth), past helpers such as ``positional`` and the
        standard library: where a client defect shows."""
        for frame in reversed(self.frames):
            if not _HELPER_FRAME.search(frame.file):
                return frame
        return self.frames[-1] if self.frames else None


@_pickled_by_fields
@dataclass(slots=True)
class Command:
    """A command line the log shows: a shell prompt, an xtrace line, osc's
    ``START with options``, a session header. A paste may hold several runs."""

    line: int
    text: str
    """As typed, without the ``--debug`` flags."""
    client: str
    """The client the program belongs to (see ``Trace.client``), "unknown" when
    it is not an OpenStack client (``grep``, ``cat``)."""
    typed: str = ""
    """The line as the log has it (a prompt, ``--debug`` and all), as a finding
    quotes it; "" when it is the same as ``text``."""


@_pickled_by_fields
@dataclass(slots=True)
class ResourceField:
    """One field of a resource the client printed, where it printed it."""

    name: str
    """As printed (``OS-EXT-STS:task_state``, ``Provisioning State``)."""
    value: str
    line: int
    text: str = ""
    """The printed line the field is on, as a finding quotes it (redacted, cut)."""

    @property
    def key(self) -> str:
        """The name as rules write it: lower case, words joined by ``_``, without an
        API extension's prefix (``OS-EXT-STS:task_state`` is ``task_state``)."""
        name = self.name.strip().rpartition(":")[2] if ":" in self.name else self.name
        return "_".join(name.strip().lower().replace("-", " ").split())


ResourceForm = Literal["table", "row", "yaml", "json", "shell", "value", "event", "words"]
"""How a resource was printed: a Field/Value table, a row of a list, ``-f yaml``,
``-f json``, ``-f shell``, ``-f value``, a Heat event line, the client's words."""


@_pickled_by_fields
@dataclass(slots=True)
class Resource:
    """A resource as a ``show`` or ``list`` printed it (see ``parse.resources``)."""

    line: int
    form: ResourceForm
    fields: list[ResourceField] = field(default_factory=list)
    type: str = ""
    """What it is (``server``, ``node``, ``stack``, ``volume``, ``cluster``,
    ``service``...), from the command that printed it or its own fields."""
    command: str = ""
    """The command line that printed it, when the log shows one."""

    def get(self, key: str) -> ResourceField | None:
        """The field of that key (see ``ResourceField.key``), if printed."""
        for f in self.fields:
            if f.key == key:
                return f
        return None

    @property
    def name(self) -> str:
        """Its name, else its ID, as printed; "" when neither was."""
        for key in ("name", "resource_name", "stack_name", "id", "uuid", "binary", "host"):
            f = self.get(key)
            if f is not None and f.value and f.value.lower() not in ("none", "null", "-"):
                return f.value
        return ""


@_pickled_by_fields
@dataclass(slots=True)
class Trace:
    """Everything parsed from one log."""

    source: str = "-"
    command: str | None = None
    """The command as the user typed it, without the ``--debug`` flags."""
    command_line: int | None = None
    client: str = "unknown"
    """openstackclient, heatclient, ironicclient, swiftclient, a legacy client
    (novaclient, cinderclient, neutronclient, glanceclient, keystoneclient,
    gnocchiclient, cgtsclient for StarlingX ``system``, ...; see
    ``parse.commands.CLIENTS``) or unknown."""
    commands: list[Command] = field(default_factory=list)
    """Every command line seen, in order (the first ones; see ``parse.commands``).
    ``command`` is the first OpenStack client's among them."""
    api_versions: dict[str, str] = field(default_factory=dict)
    catalog: dict[str, list[str]] = field(default_factory=dict)
    """Service type -> endpoint URLs from the token's catalog."""
    exchanges: list[Exchange] = field(default_factory=list)
    """Exchanges in order. Their ``index`` counts every request of the log; the
    middle of a long run of repeating requests is in ``folds`` instead, and so
    is the middle of a log holding more exchanges than are kept (see ``dropped``)."""
    folds: list[Fold] = field(default_factory=list)
    messages: list[Message] = field(default_factory=list)
    tracebacks: list[Traceback] = field(default_factory=list)
    exit_code: int | None = None
    exit_line: int | None = None
    line_count: int = 0
    format: TraceFormat = "unknown"
    """"debug", "log-file", "session" or "unknown"."""
    problems: list[str] = field(default_factory=list)
    """What could not be read, in plain words ("line 40 is cut after 1 MiB")."""
    openstack_lines: int = 0
    """Lines recognised as an OpenStack client's; zero means not a client log."""
    dropped: int = 0
    """Exchanges counted but no longer kept: the middle of a log of many runs
    (see ``parse.parser.KEEP_FIRST``). Grows while a log is read."""
    followed: bool = False
    """Another run of the same log begins after this one: what this run's lines
    do not say was not cut off by the end of the log."""
    service_records: list[ServiceRecord] = field(default_factory=list)
    """Records read from the services' own log files for this run (``--service-log``,
    see ``osdoctor.servicelog``); those pasted in the log itself are read from
    its lines when the run is joined."""
    resources: list[Resource] = field(default_factory=list)
    """The resources ``show`` and ``list`` output printed, in any ``-f`` format,
    with each field's line (see ``parse.resources``)."""
    earlier: list[Command] = field(default_factory=list)
    """The last command lines of the runs before this one in the same log (the
    ``source openrc`` typed, the ``server lock`` run): evidence a failure may cite."""
    earlier_resources: list[Resource] = field(default_factory=list)
    """The last resources the runs before this one printed (a list that showed
    a backup still creating before the delete that failed)."""


@dataclass(slots=True)
class Evidence:
    line: int
    text: str
    source: str = ""
    """The service log file the line is in, "" for the log being explained."""

    @property
    def in_log(self) -> bool:
        """Whether ``line`` is a line of the log being explained (not of a service log)."""
        return not self.source

    @property
    def where(self) -> str:
        """``line 12``, or ``nova-api.log:812`` for a line of a service log."""
        if not self.source:
            return f"line {self.line}"
        return f"{self.source.replace(chr(92), '/').rpartition('/')[2]}:{self.line}"


@dataclass(slots=True)
class Finding:
    id: str
    severity: Severity
    title: str
    explanation: str
    next_steps: list[str] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)
    references: list[str] = field(default_factory=list)
    """The seed documents the rule comes from (for the JSON and the runbook)."""
    runbook: str = ""
    """The rule's runbook page (``rules/<id>.md``, as ``osdoctor runbook`` writes it):
    what reports point the user at."""
    captures: dict[str, str] = field(default_factory=dict)
    """What the rule's conditions captured (``{stack}``, ``{url}``...), as they fired:
    a probe's parameters are filled from these, without evaluating the rule again."""


class StepState(StrEnum):
    """What the log says about one documented step."""

    OBSERVED = "observed"
    """An exchange of the log matches the step, status included."""
    SKIPPED = "skipped"
    """No exchange of the log matches it."""
    DIVERGED = "diverged"
    """Not in the log, and the first step the run's failing branch missed."""
    UNCHECKED = "unchecked"
    """The step leaves no trace in a debug log (a local check, a printed table)."""


@dataclass(slots=True)
class StepResult:
    """One documented step of a scenario and what the run did with it."""

    label: str
    state: StepState
    lines: list[int] = field(default_factory=list)
    """For an observed step, the line of its request (a reply arrow: of the answer)."""
    note: str | None = None
    answered: tuple[int | None, int] | None = None
    """For a reply arrow not observed: what its request was answered instead
    (status, line), when that request was seen."""


@dataclass(slots=True)
class Candidate:
    """A scenario (and branch) considered, with why it was or was not taken."""

    scenario: str
    branch: str | None
    score: float
    reasons: list[str] = field(default_factory=list)


@dataclass(slots=True)
class NearMiss:
    """A documented path the run came close to (``--why-not``), and the first of
    its expected steps that did not happen, in words."""

    scenario: str
    branch: str
    title: str
    held: int
    """How many of the path's expected steps happened..."""
    steps: int
    """...of how many."""
    missing: str

    @property
    def score(self) -> float:
        return self.held / self.steps if self.steps else 0.0


@dataclass(slots=True)
class ScenarioMatch:
    id: str
    title: str
    branch: str | None
    seed: str
    section: int
    divergence: str | None = None
    steps: list[StepResult] = field(default_factory=list)
    branch_title: str | None = None


@dataclass(slots=True)
class Report:
    trace: Trace
    outcome: Outcome
    scenario: ScenarioMatch | None = None
    findings: list[Finding] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    facts: Any = None
    """The ``osdoctor.facts.Facts`` the rules saw (kept so renderers need not re-read)."""
    outranked: list[Finding] = field(default_factory=list)
    """Fallback findings whose conditions held but that a finding of higher
    priority replaces (a generic class under a scenario's rule or a known bug)."""
    near: list[NearMiss] = field(default_factory=list)
    """The documented paths the run came closest to, other than its own."""
