"""The decisive failure of a run, read once from its trace.

A client's log is full of answers that are not failures: the 404 of an ID
lookup before the search by name, the 300 of version discovery, the 401 that
makes keystoneauth fetch a fresh token, the 409 an ironic retry gets past.
The failure that counts is the last answer the run did not recover from; when
the log holds no exchange for it (a paste of the client's output only), the
client's printed error and the fault bodies quoted in the text stand in.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping

from osdoctor import regex
from osdoctor.facts import fault_text as faults
from osdoctor.facts import no_answer as transport
from osdoctor.facts import printed as printed_errors
from osdoctor.facts import resource_facts
from osdoctor.facts.facts_model import (
    AsyncFailure,
    ClientError,
    ExceptionFact,
    Facts,
    Failure,
    Fault,
    Transport,
)
from osdoctor.facts.fullest import fullest, looks_cut
from osdoctor.facts.known_names import (
    is_version_root,
    resource_of,
    service_for,
    service_name,
    type_of_project,
    usual_type,
    versions_in,
)
from osdoctor.facts.quotes import LineWords
from osdoctor.faultwords import words
from osdoctor.model import Exchange, Frame, Message, Trace
from osdoctor.parse.http_text import split_url
from osdoctor.servicetable import table

_REQUEST_ID = regex.compile(r"\b(req-[0-9a-f]{8}-[0-9a-f-]{27,})\b")
# Swift's (and radosgw's) transaction id, which it returns as its request id.
_SWIFT_TRANS_ID = regex.compile(r"\btx[0-9a-f]{21}-[0-9a-f]{10}\b")
_ERROR_LINE = regex.compile(r"^ERROR(?: \((?P<cls>\w+)\))?:\s*(?P<text>.*)$")
# What a client prints when a call failed, whatever its prefix (non-debug pastes).
_CLIENT_FAILED = regex.compile(
    r"\(HTTP (?P<status>[1-5]\d\d)\)|^Unexpected API Error|"
    r"^(?P<xx>[45])xx (?:Client|Server) error|"
    r"Expected HTTP response code \[[\d, ]+\] when accessing \[(?P<gm>[A-Z]+) (?P<gurl>\S+)\],"
    r" but got (?P<gstatus>\d{3}) instead|"
    # openstacksdk's HttpException; before 2019 without the status ("Client Error for
    # url: ..."), as shade's own errors quote it.
    r"(?:(?P<sstatus>[45]\d\d): )?(?P<ssource>Client|Server) Error for url: "
    r"(?P<surl>https?://[^\s,]+)|"
    r"^Error contacting \w+ server|^Connection to \w+ failed: |"
    r"(?:^|: )(?:Unable to establish connection to|SSL exception connecting to) |"
    r"\b(?:Auth|Account|Container|Object) (?:HEAD|GET|PUT|POST|DELETE|COPY) failed: https?://|"
    r"^Could not find versioned identity endpoints|\[SSL: [A-Z_]+\] |"
    r"^Failed to validate: |^Invalid OpenStack \w+ credentials|"
    r"publicURL endpoint for \S+ service(?: named \S+)? not found|"
    r"endpoint for \S+ service(?: in \S+ region)? not found"
)
# A service's refusal quoted in any printed line, a table cell or a wrapper's report
# included: words no successful run prints (``refusals`` in knowledge/services.yaml).
_REFUSAL = regex.compile("|".join(r.words for r in table().refusals))
# The refusals that stand for a 400: the words of Invalid* exceptions.
_INVALID = regex.compile("|".join(r.words for r in table().refusals if r.status == 400))
# The status words stand for when the paste lost the "(HTTP nnn)": ``status_words``
# of knowledge/services.yaml, then the refusals that carry a status (``_INVALID``).
_WORD_STATUS = tuple((regex.compile(words), status) for words, status in words().word_statuses())
_STATUS_WORDS = regex.compile(
    r"\b(?P<status>[45]\d\d) (?:Not Found|Forbidden|Unauthorized|"
    r"Conflict|Bad Request|Internal Server Error|Service Unavailable|"
    r"Bad Gateway|Gateway Time-?out)\b",
    re.I,
)
_EXCEPTION_LINE = regex.compile(
    r"^(?:[a-z_][\w]*\.)*(?P<type>[A-Z]\w*(?:Error|Exception|Failure|NotFound|Unauthorized|"
    r"Forbidden|Conflict|Timeout|Options|Unavailable))(?: \(HTTP \d+\))?: (?P<message>.*)$"
)
_NOUN = regex.compile(
    r"^openstack (?:--?\S+ )*(?:[a-z]+ )*?(?P<noun>[a-z]+) (?:create|delete|set|"
    r"unset|show|list|add|remove|update|rebuild|resize|start|stop|reboot)\b"
)
_HTTP_ERROR = regex.compile(r"\(HTTP [45]\d\d\)")
_STATUS_IN_TEXT = regex.compile(r"\(HTTP ([1-5]\d\d)\)")
_ATTEMPT = regex.compile(r"Attempt (\d+) of (\d+)")
_NOVA_HEADER = regex.compile(r"\bX-Compute-Request-Id\b", re.I)
_CLASS_IN_TEXT = regex.compile(r"<class '(?P<cls>[\w.]+)'>")
_URL = regex.compile(r"https?://[^\s'\"\]\[)(,]+")
_STARTING = regex.compile(
    r"Starting new HTTPS? connection \(\d+\): "
    r"(?P<host>[^\s:]+)(?::(?P<port>\d+))?"
)
_REQ = regex.compile(r"REQ: curl .*?(?P<url>https?://[^\s'\"]+)(?:.*?-X (?P<method>[A-Z]+))?")
_TABLE_ROW = regex.compile(r"^\|\s*(?P<field>[\w:.-]+)\s*\|\s*(?P<value>.*?)\s*\|?\s*$")
# Nova's fault as a Python dict repr, wherever a wrapped table left it.
_FAULT_REPR = regex.compile(
    r"""\{\s*u?'message'\s*:\s*u?'(?P<m>[^']+)',\s*u?'code'\s*:\s*\d+(?:.*?u?'details'\s*:"""
    r"""\s*u?'(?P<d>[^'|\n]+))?"""
)
# A resource as JSON (``-f json``, an Ansible module's result), one key a line.
_JSON_KEY = regex.compile(r'^\s*"(?P<key>status|message|name)"\s*:\s*"(?P<v>[^"]*)"')
_POLICY_SERVICE = regex.compile(r"Policy doesn't allow (?P<target>[a-z_]+)[:_]")
# Quota error classes a relaying service (Heat, Nova) quotes, and whose quota it is
# (``quota_errors`` of each service in knowledge/services.yaml).
_QUOTA_ERRORS = tuple(
    (service.usual_type, words) for service in table().services for words in service.quota_errors
)
_QUOTA_CLASS = regex.compile(
    "|".join(rf"\b(?P<q{i}>{words})\b" for i, (_type, words) in enumerate(_QUOTA_ERRORS)) or r"(?!)"
)
_FAULT_MESSAGE = regex.compile(r"""['"]message['"]\s*:\s*u?['"](?P<m>.+?)(?:['"]\s*[,}]|$)""")
_ERROR_STATUS = frozenset(
    {
        "ERROR",
        "error",
        "FAILED",
        "CREATE_FAILED",
        "UPDATE_FAILED",
        "DELETE_FAILED",
        "deploy failed",
        "clean failed",
        "error_deleting",
    }
)
_CLIENT_PACKAGES = regex.compile(
    r"(?:site|dist)-packages/(?P<pkg>[A-Za-z_]\w*)|"
    r"/opt/stack/[\w.-]+/(?P<stack>[A-Za-z_]\w*)/"
)
_SERVICE_SAYS = regex.compile(r"Error contacting (?P<name>\w+) server|<class '(?P<cls>\w+)client\.")


#: The kinds of printed line a client's error may be among (not debug chatter, not
#: a service's pasted log line).
_CLIENT_WORDS = frozenset({"error", "text", "warning", "clean_up"})
_PASTE = regex.compile(r"^(?:`|</?code>)+|(?:`|</?code>)+$")
_WRAPPERS = frozenset({"positional", "six", "debtcollector", "wrapt", "functools", "decorator"})


#: An error page the client printed as it got it (``4xx Client error: b'<!DOCTYPE
#: HTML ...>\\n<html>...'``): the bytes' repr, its line ends escaped.
_PRINTED_PAGE = regex.compile(r"(?:\bb)?['\"]?<(?:!DOCTYPE|html|head|body|title|h1)\b", re.I)


#: Lines a wrapped fault body may run over in a paste.
_WRAPPED_BODY = 6
_DISCOVERY_AT = regex.compile(
    r"Failed to contact the endpoint at (?P<url>https?://\S+?)\.? for discovery"
)


def _printed_page(text: str) -> tuple[str, Fault] | None:
    """The words before an HTML error page a client printed, and the page's fault."""
    m = _PRINTED_PAGE.search(text)
    if m is None:
        return None
    page = text[m.start() :].replace("\\n", " ").lstrip("b'\"").rstrip(" '\"")
    return text[: m.start()].rstrip(), faults.from_html(page)


def _page_read(text: str) -> str:
    """A printed line holding an HTML error page, with the page read as words: its
    heading and message, not the markup (which would split into lines of tags)."""
    found = _printed_page(text)
    if found is None:
        return text
    head, fault = found
    said = fault.message.strip(" '\"")
    return f"{head} {said}".strip() if said else text


def _split(text: str) -> list[str]:
    """A printed line, with the ``\\n`` of an escaped paste (Ansible) taken as line ends
    and the backticks or ``<code>`` tags of a pasting site dropped."""
    parts = text.split("\\n") if "\\n" in text else [text]
    out = []
    for part in parts:
        part = part.strip()
        if part[:1] in ("`", "<") or part[-1:] in ("`", ">"):
            part = _PASTE.sub("", part).strip()
        out.append(part)
    return out


def _request_id(ex: Exchange) -> str:
    resp = ex.response
    if resp is None:
        return ""
    if resp.request_id:
        return resp.request_id
    for name in (
        "x-openstack-request-id",
        "x-compute-request-id",
        "openstack-request-id",
        "x-trans-id",
    ):
        value = resp.header(name)
        if value:
            return value
    return ""


class _Later:
    """What the exchanges after a point show, grown from the end of the run so that
    every failed exchange is judged in one pass: constant work per exchange (sets
    only), so a run of any number of failed requests costs time linear in it."""

    __slots__ = ("ok_calls", "ok_bases", "any_ok", "token_ok", "get_prefixes")

    def __init__(self) -> None:
        self.ok_calls: set[tuple[str, str]] = set()
        self.ok_bases: set[str] = set()
        self.any_ok = False
        self.token_ok = False
        self.get_prefixes: set[tuple[str | None, str]] = set()

    def add(self, ex: Exchange, base: str, path: str) -> None:
        """Learn from ``ex``, whose URL splits into ``base`` and ``path``."""
        if ex.request.method == "GET":
            # Every ancestor of the path, each found by one rfind from the end.
            prefix = path.rstrip("/")
            while prefix:
                self.get_prefixes.add((ex.service, prefix))
                prefix = prefix[: prefix.rfind("/")] if "/" in prefix else ""
        status = ex.status
        if status is None or status >= 400:
            return
        self.any_ok = True
        self.ok_calls.add((ex.request.method, ex.request.url))
        self.ok_bases.add(base)
        if ex.service == "identity" and ex.request.method == "POST":
            self.token_ok = True

    def recovers(self, ex: Exchange, base: str, path: str) -> bool:
        """Whether the run got past failed ``ex``: a retry that worked, a fresh token,
        discovery that fell back, an ID lookup followed by the search by name."""
        status = ex.status
        if ex.error is not None or status is None:
            return base in self.ok_bases
        if (ex.request.method, ex.request.url) in self.ok_calls:
            return True
        if status == 401 and self.token_ok:
            return True
        if is_version_root(path) and self.any_ok:
            return True
        if status in (400, 404) and ex.request.method in ("GET", "HEAD"):
            parent = path.rstrip("/").rpartition("/")[0]
            return bool(parent) and (ex.service, parent) in self.get_prefixes
        return False


def exchange_quotes(ex: Exchange, with_error: bool = True) -> list[tuple[int, str]]:
    """The lines of an exchange and their words: the request's, the answer's, the
    transport error's; what the log does not quote (a stand-in of a folded round)
    is said the way the log would."""
    req = ex.request
    out = [(req.line, req.quote or f"{req.method} {req.url}".strip())]
    resp = ex.response
    if resp is not None:
        reason = f" {resp.reason}" if resp.reason else ""
        out.append((resp.line, resp.quote or f"answered {resp.status}{reason}"))
    if with_error and ex.error is not None:
        out.append((ex.error.line, ex.error.message[:200]))
    return out


def _exchange_failure(ex: Exchange, agent: str) -> Failure:
    url = ex.request.url
    base, path, _ = split_url(url)
    stype = service_for(ex.service, url, agent)
    failure = Failure(
        kind="http" if ex.error is None else "transport",
        line=ex.first_line,
        status=ex.status,
        method=ex.request.method,
        url=url,
        path=ex.path or path,
        endpoint=base,
        service=stype,
        service_name=service_name(stype),
        resource=resource_of(ex.path or path),
        request_id=_request_id(ex),
    )
    failure.evidence.extend(exchange_quotes(ex, with_error=False))
    if ex.response is not None:
        body = ex.response.body
        if body is not None:
            failure.fault = faults.from_body(
                body.text, body.json() if body.text else None, body.omitted
            )
        if body is not None and body.first_line and failure.fault is not None:
            failure.evidence.append((body.first_line, failure.fault.message[:200]))
            inner = _CLASS_IN_TEXT.search(failure.fault.message)
            if inner:
                failure.inner = inner.group("cls")
    if ex.error is not None and ex.error.kind != "no-answer":
        failure.transport = transport.of_exchange(
            ex.error.kind, ex.error.detail, ex.error.message, url
        )
        failure.evidence.append((ex.error.line, ex.error.message[:200]))
    elif ex.response is None:  # the parser's "no-answer": the log ends inside the request
        host = base.partition("://")[2]
        name, _, port = host.partition(":")
        failure.kind = "transport"
        failure.transport = Transport(
            "hung",
            name,
            port or ("443" if base.startswith("https") else "80"),
            url,
            "the log ends while the client waits for the answer",
        )
    return failure


_INTERRUPTED = (130, 143, -2, -15)
"""Exit codes of a client stopped by Ctrl-C or a kill while it waited."""


def _answered_before(exchanges: list[Exchange], ex: Exchange) -> bool:
    key = (ex.request.method, ex.path or split_url(ex.request.url)[1])
    return any(
        o is not ex
        and o.response is not None
        and (o.request.method, o.path or split_url(o.request.url)[1]) == key
        for o in exchanges
    )


def _auth_sent(ex: Exchange) -> str:
    if ex.service == "identity" and ex.request.method == "POST":
        return ""
    if ex.request.header("X-Auth-Token"):
        return "a Keystone token"
    if ex.request.header("Authorization"):
        return "basic auth (an Authorization header, no Keystone token)"
    return "no credentials"


def _refine_transport(failure: Failure, ex: Exchange, error: ClientError | None) -> None:
    """The exchange's error line may say less than the client's final message
    (keystoneauth's DiscoveryFailure carries the SSL error it wraps)."""
    t = failure.transport
    if t is None:
        return
    if error is not None and error.line >= ex.first_line:
        better = transport.classify(error.text, t.url)
        if t.kind in ("connection", "tls") and better.kind != "connection":
            failure.transport = better
            return
        if not t.detail and better.kind == t.kind:
            # A discovery line the parser refined from the summary names no cause:
            # the summary's words do.
            t.detail = better.detail
    if t.kind == "connection" and ex.error is not None and ex.error.kind == "tls":
        t.kind = "tls"


def _printed(trace: Trace) -> list[tuple[int, str, Message]]:
    """Every printed line worth reading for failures, escaped pastes split; a table
    row only when it quotes a service's refusal (a check tool's report)."""
    out = []
    for m in trace.messages:
        if m.kind in ("command", "end") or (m.kind == "output" and not _REFUSAL.search(m.text)):
            continue
        text = m.text
        if m.kind == "output":
            # The one cell that says it, not the table's other columns.
            text = next(c for c in m.text.strip(" |").split("|") if _REFUSAL.search(c))
        if m.kind == "clean_up":
            text = text.partition(":")[2].strip()
            if not text:
                continue
        if "<" in text:
            text = _page_read(text)
        for part in _split(text):
            if part:
                out.append((m.line, part, m))
    return out


_FAIL_WORDS = (
    "HTTP",
    "rror",
    "Unable",
    "SSL",
    "Could not",
    "not found",
    "Failed",
    "Invalid",
    "xx ",
    "Expected",
    "olicy",
    "valid host",
    "uota",
    "failed: ",
)


def _may_fail(text: str) -> bool:
    """A cheap test before the failure patterns: most printed lines are chatter.
    (A plain loop: faster than a generator, or one alternation of the words.)"""
    for word in _FAIL_WORDS:
        if word in text:
            return True
    return False


def _client_error(printed: list[tuple[int, str, Message]]) -> ClientError | None:
    found: ClientError | None = None
    for line, text, m in printed:
        em = _ERROR_LINE.match(text)
        if em:
            found = ClientError(em.group("text").strip() or text, line, em.group("cls") or "")
        elif m.kind == "error" or (
            _may_fail(text) and (_CLIENT_FAILED.search(text) or _REFUSAL.search(text))
        ):
            invalid = _INVALID.search(text) if m.kind != "error" else None
            if invalid is not None and not _CLIENT_FAILED.search(text):
                # a poster's words or a library's label before the service's own
                # ("I get `Failure: cinder.exception.InvalidInput: Invalid input ..."):
                # the quote starts where the service's words do
                text = text[invalid.start() :].rstrip("`'\" ")
            found = ClientError(text, line)
        elif m.kind == "clean_up":
            found = ClientError(text, line)
    if found is not None and looks_cut(found.text):
        # A paste cut the last copy short: an earlier copy of the same refusal
        # (another attempt, another node) is whole, and is quoted as it stands.
        lines = {t: line for line, t, _m in printed}
        whole = fullest(found.text, lines)
        if whole is not None:
            found = ClientError(whole, lines[whole], found.error_class)
    return found


def _exception(trace: Trace, printed: list[tuple[int, str, Message]]) -> ExceptionFact | None:
    for tb in reversed(trace.tracebacks):
        if not tb.exc_type:
            continue
        frame = package = ""
        for fr in reversed(tb.frames):
            pm = _CLIENT_PACKAGES.search(fr.file)
            if pm and (pm.group("pkg") or pm.group("stack")) not in _WRAPPERS:
                package = pm.group("pkg") or pm.group("stack") or ""
                frame = (
                    f"{fr.file.rpartition('-packages/')[2] or fr.file}:{fr.lineno} in {fr.function}"
                )
                break
        if not frame and tb.frames:
            fr = tb.frames[-1]
            frame = f"{fr.file}:{fr.lineno} in {fr.function}"
        return ExceptionFact(
            tb.exc_type.rpartition(".")[2],
            tb.message,
            tb.last_line,
            frame,
            package,
            _installs(tb.frames),
        )
    found: ExceptionFact | None = None
    frame = package = ""
    for line, text, _m in printed:
        fm = _PRINTED_FRAME.search(text)
        if fm:
            pm = _CLIENT_PACKAGES.search(fm.group("file"))
            if pm:
                package = pm.group("pkg") or pm.group("stack") or ""
                frame = (
                    f"{fm.group('file').rpartition('-packages/')[2]}:{fm.group('no')} "
                    f"in {fm.group('fn')}"
                )
        em = _EXCEPTION_LINE.match(text)
        if em:
            found = ExceptionFact(
                em.group("type"), em.group("message").strip(), line, frame, package
            )
    return found


_PRINTED_FRAME = regex.compile(r'File \\?"(?P<file>[^"\\]+)\\?", line (?P<no>\d+), in (?P<fn>\w+)')
_INSTALL = regex.compile(r"^(?P<root>.*?/(?:site|dist)-packages)/(?P<pkg>[A-Za-z_]\w*)")


def _installs(frames: list[Frame]) -> list[tuple[str, list[str]]]:
    """The package folders a traceback runs through, each with its packages in
    order; empty when there is only one (the usual, consistent install)."""
    roots: dict[str, list[str]] = {}
    for fr in frames:
        m = _INSTALL.match(fr.file)
        if m:
            pkgs = roots.setdefault(m.group("root"), [])
            if m.group("pkg") not in pkgs:
                pkgs.append(m.group("pkg"))
    # A helper (``positional``) is named only where a folder gives nothing else: it
    # is then what shows that folder's installation.
    shown = [
        (root, [p for p in pkgs if p not in _WRAPPERS] or pkgs) for root, pkgs in roots.items()
    ]
    return shown if len(shown) > 1 else []


_BUILD_ABORTED = regex.compile(r"Build of instance \S+ aborted")


def _async_failure(trace: Trace) -> AsyncFailure | None:
    """A resource shown in an error state after the command that made it succeeded:
    a ``status | ERROR`` row with its ``fault`` row, or Nova's "Server reported
    ERROR status" with the fault on the next lines."""
    status = fault = name = ""
    line = 0
    prev_reported = False
    json_message = ""
    for m in trace.messages:
        jm = _JSON_KEY.match(m.text)
        if jm:
            key, value = jm.group("key"), jm.group("v")
            if key == "message":
                json_message = value
            elif key == "status" and value in _ERROR_STATUS:
                status, line = value, line or m.line
                fault = fault or json_message
            continue
        fr = None if fault else _FAULT_REPR.search(m.text)
        if fr:
            details = (fr.group("d") or "").strip()
            fault = f"{fr.group('m')}: {details}" if details else fr.group("m")
            status, line = status or "ERROR", m.line
            continue
        row = _TABLE_ROW.match(m.text)
        if row:
            field, value = row.group("field"), row.group("value").strip(" |")
            if field in ("status", "provision_state", "stack_status") and value in _ERROR_STATUS:
                status, line = value, line or m.line
            elif field == "fault" and value:
                fm = _FAULT_MESSAGE.search(value)
                quoted = faults.in_text(value)
                fault = quoted.message if quoted else (fm.group("m") if fm else value)
                line = m.line
            elif field == "name" and value:
                name = value
            continue
        if (
            prev_reported
            and "Build of instance" in m.text
            or _BUILD_ABORTED.search(m.text)
            and not fault
        ):
            fault = m.text.strip().lstrip("{").strip()
            fault = re.sub(r"^\d{3} \S+ \S+ \S+ \S+\s+", "", fault)
            status = status or "ERROR"
            line = line or m.line
        prev_reported = "reported ERROR status" in m.text
        if prev_reported:
            status, line = "ERROR", m.line
    if not status:
        return None
    return AsyncFailure(name or "the resource", status, fault, line)


def _text_failure(
    printed: list[tuple[int, str, Message]],
    error: ClientError | None,
    agent: str,
    command: str = "",
) -> Failure | None:
    """A failure known only from printed text: the client's error line and any fault
    body quoted beside it (a paste of the output, an Ansible or terraform log)."""
    fault: Fault | None = None
    fault_line = 0
    for at, (line, text, m) in enumerate(printed):
        found = faults.in_text(text)
        if found is None and text != m.text and "\\n" in m.text:
            found = faults.in_text(m.text)  # a body whose strings hold escaped newlines
        if found is None and faults.starts_fault(text):
            # a fault body the paste wrapped onto the next lines: read it whole
            found = faults.in_text(" ".join(t for _l, t, _m in printed[at : at + _WRAPPED_BODY]))
        if found is not None:
            fault, fault_line = found, line
    if fault is None and error is not None:
        for line, _t, m in printed:
            page = _printed_page(m.text) if line == error.line and "<" in m.text else None
            if page is not None:
                fault, fault_line = page[1], line
                break
    if error is None and fault is None:
        return None
    line = error.line if error is not None else fault_line
    text = error.text if error is not None else ""
    failure = Failure(kind="client", line=line)
    for i, (_l, t, _m) in enumerate(printed):
        if "Expected HTTP" in t and "but got" not in t:
            t = " ".join(x for _n, x, _k in printed[i : i + 2])  # wrapped before the URL
        gm = _CLIENT_FAILED.search(t) if "Expected HTTP" in t else None
        if gm and gm.group("gm"):
            failure.method, failure.url = gm.group("gm"), gm.group("gurl")
            failure.status = int(gm.group("gstatus"))
    sm = _CLIENT_FAILED.search(text) if text else None
    if sm and sm.group("surl"):
        failure.status = int(sm.group("sstatus")) if sm.group("sstatus") else None
        failure.url = failure.url or sm.group("surl")
    elif sm and sm.group("status"):
        failure.status = int(sm.group("status"))
    elif sm and sm.group("xx"):
        status = _STATUS_WORDS.search(text)
        failure.status = int(status.group("status")) if status else int(sm.group("xx")) * 100
    if fault is not None and failure.status is None:
        code = re.match(r"\d{3}", fault.code or "")
        failure.status = int(code.group(0)) if code else None
    if failure.status is None and text:
        hm = _STATUS_IN_TEXT.search(text)  # after words another alternative matched first
        failure.status = int(hm.group(1)) if hm else None
    if failure.status is None and text:
        failure.status = next((st for rx, st in _WORD_STATUS if rx.search(text)), None)
        if failure.status is None and not _REFUSAL.search(text):
            status = _STATUS_WORDS.search(text)
            failure.status = int(status.group("status")) if status else None
    if failure.status is not None or fault is not None:
        failure.kind = "http"
    context = _context(printed, line, text)
    if transport.SIGNS.search(context):
        failure.kind = "transport"
        failure.transport = transport.classify(context)
        failure.url = failure.transport.url
    if not failure.url:
        um = _URL.search(text)
        if um and failure.kind == "http" and text[um.start() - 1 : um.start()] in ("'", '"'):
            um = None  # a URL the service's words quote: "... not supported: 'https://...'"
        failure.url = um.group(0).rstrip(".:") if um else ""
    if failure.url:
        base, path, _ = split_url(failure.url)
        failure.endpoint, failure.path = base, path
        failure.resource = resource_of(path)
    else:
        for _l, t, _m in printed:
            em = _DISCOVERY_AT.search(t)
            if em:  # keystoneauth fell back to the catalog's URL: that is the endpoint
                failure.endpoint = em.group("url").rstrip("/")
    stype = service_for(None, failure.url, agent, command or _typed(printed))
    for _l, t, _m in printed:
        says = _SERVICE_SAYS.search(t)
        if says:
            project = says.group("name") or says.group("cls")
            stype = type_of_project(project) or stype
    if not stype:
        qm = _QUOTA_CLASS.search(context)  # a relayed quota error names its service's class
        stype = _QUOTA_ERRORS[int(str(qm.lastgroup)[1:])][0] if qm else stype
    if not stype and any(_NOVA_HEADER.search(t) for _l, t, _m in printed):
        stype = "compute"  # the answer's headers, printed by fog/excon: only Nova's say so
    if not stype and "identity" in context:
        stype = "identity"  # keystoneauth's discovery: "versioned identity endpoints"
    pm = _POLICY_SERVICE.search(text) if text else None
    if pm:
        target = pm.group("target")
        named = table().of_policy_prefix(target)
        stype = named.usual_type if named is not None else usual_type(target) or stype
    proved = words().service_of(fault.shape) if fault is not None else ""
    if proved:
        stype = proved  # a body only this service answers with (``service`` of its shape)
    if text.startswith("Unexpected API Error") or "Unexpected API Error" in context:
        stype = "compute"  # Nova's words; the class names who failed inside
        inner = _CLASS_IN_TEXT.search(context)
        if inner:
            failure.inner = inner.group("cls")
    if fault is not None and failure.status is None:
        failure.status = words().status_of_type(fault.type)
    if not stype and text and _SWIFT_TRANS_ID.search(text):
        stype = "object-store"  # Swift's request ids are its transaction ids: tx<21 hex>-<10 hex>
    failure.service, failure.service_name = stype, service_name(stype)
    if not failure.resource:
        nm = _NOUN.search(command or _typed(printed))
        failure.resource = nm.group("noun") if nm else ""
    failure.fault = fault
    rid = _REQUEST_ID.search(text) if text else None
    failure.request_id = rid.group(1) if rid else ""
    if error is not None:
        failure.evidence.append((error.line, error.text[:200]))
    if fault is not None and (error is None or fault_line != line):
        failure.evidence.append((fault_line, fault.message[:200]))
    return failure


def _context(printed: list[tuple[int, str, Message]], line: int, text: str) -> str:
    """The error line with the few printed lines after it: a hard-wrapped paste
    spreads one message over several lines."""
    before = [t for ln, t, _m in printed if line - 2 <= ln < line]
    after = [t for ln, t, _m in printed if line < ln <= line + 4]
    return " ".join([*before, text, *after]) if text else ""


def _hung_in_text(printed: list[tuple[int, str, Message]]) -> Failure | None:
    """The log ends with the client opening a connection and nothing after it."""
    tail = [(line, text) for line, text, _m in printed if text and not text.startswith("[...")]
    if not tail:
        return None
    line, text = tail[-1]
    sm = _STARTING.search(text)
    if sm is None:
        return None
    url = method = ""
    for _l, t in reversed(tail[:-1]):
        rm = _REQ.search(t)
        if rm:
            url, method = rm.group("url"), rm.group("method") or "GET"
            break
    host, port = sm.group("host"), sm.group("port") or ""
    base, path, _ = split_url(url) if url else ("", "", "")
    if not port:
        port = base.rpartition(":")[2] if base.count(":") > 1 else "80"
    stype = service_for(None, url) if url else ""
    failure = Failure(
        kind="transport",
        line=line,
        method=method,
        url=url,
        path=path,
        endpoint=base,
        service=stype,
        service_name=service_name(stype),
        resource=resource_of(path) if path else "",
        transport=Transport(
            "hung", host, port, url, "the log ends while the client waits for the answer"
        ),
    )
    failure.evidence.append((line, text))
    return failure


_TYPED = regex.compile(
    r"(?:^|[#$>]\s*|^\+ |[“\"`]\s*)(?P<cmd>(?:openstack|nova|cinder|neutron|glance|"
    r"heat|ironic|baremetal|keystone|swift|gnocchi|system)\s[^“”\"`]*)"
)


def _typed(printed: list[tuple[int, str, Message]]) -> str:
    """The command line typed at a prompt in a paste."""
    for _line, text, _m in printed[:50]:
        tm = _TYPED.search(text)
        if tm:
            return tm.group("cmd").strip()
    return ""


def _agent(trace: Trace) -> str:
    """What says which CLI this is: a User-Agent, the command, a command line typed
    at a prompt in the paste."""
    for ex in trace.exchanges[:5]:
        ua = ex.request.header("User-Agent")
        if ua:
            return ua
    if trace.command:
        return trace.command
    for m in trace.messages[:50]:
        tm = _TYPED.search(m.text)
        if tm:
            return tm.group("cmd").strip()
    return ""


_seen_versions = functools.lru_cache(maxsize=1024)(versions_in)


def _versions_in(text: str) -> Mapping[str, str]:
    """``versions_in``, once per short text: every request of a run, and the runs of
    a log, send the same User-Agent; tracebacks run through the same files."""
    return _seen_versions(text) if len(text) <= 512 else versions_in(text)


def _versions(trace: Trace) -> dict[str, str]:
    found: dict[str, str] = {}
    for ex in trace.exchanges[:20]:
        ua = ex.request.header("User-Agent")
        if ua:
            found.update(_versions_in(ua))
    for tb in trace.tracebacks[-3:]:
        for fr in tb.frames:
            found.update(_versions_in(fr.file))
    for m in trace.messages:
        if "User-Agent" in m.text or "packages/" in m.text or "/nix/store/" in m.text:
            found.update(_versions_in(m.text))
    return found


_AUTH_FIELDS = [
    ("user", regex.compile(r"""['"](?:username|user_name)['"]\s*:\s*u?['"](?P<v>[^'"]+)""")),
    ("user", regex.compile(r""""user"\s*:\s*\{[^{}]*?"name"\s*:\s*"(?P<v>[^"]+)""")),
    (
        "project",
        regex.compile(
            r"""['"](?:project_name|tenantName|tenant_name)['"]\s*:\s*u?['"]"""
            r"""(?P<v>[^'"]+)"""
        ),
    ),
    ("project", regex.compile(r""""project"\s*:\s*\{[^{}]*?"name"\s*:\s*"(?P<v>[^"]+)""")),
    (
        "user_domain",
        regex.compile(r"""['"]user_domain_(?:name|id)['"]\s*:\s*u?['"](?P<v>[^'"]+)"""),
    ),
    (
        "project_domain",
        regex.compile(
            r"""['"]project_domain_(?:name|id)['"]\s*:\s*u?['"]"""
            r"""(?P<v>[^'"]+)"""
        ),
    ),
    ("auth_type", regex.compile(r"Using auth plugin: (?P<v>\S+)")),
    # The same, typed as options on the command line.
    ("user", regex.compile(r"--os-username[ =](?P<v>[^\s-]\S*)")),
    ("project", regex.compile(r"--os-(?:project|tenant)-name[ =](?P<v>[^\s-]\S*)")),
    ("user_domain", regex.compile(r"--os-user-domain-(?:name|id)[ =](?P<v>[^\s-]\S*)")),
    ("project_domain", regex.compile(r"--os-project-domain-(?:name|id)[ =](?P<v>[^\s-]\S*)")),
    ("auth_type", regex.compile(r"--os-auth-type[ =](?P<v>[^\s-]\S*)")),
]


def _auth(trace: Trace) -> dict[str, str]:
    """Who the client tried to be; never a secret (passwords are not read)."""
    texts = [
        m.text
        for m in trace.messages
        if m.text.startswith(("Using parameters", "Using auth plugin"))
    ]
    for ex in trace.exchanges[:10]:
        if (
            ex.service == "identity"
            and ex.request.method == "POST"
            and ex.request.body
            and ex.request.body.text
        ):
            texts.append(ex.request.body.text[:4000])
    texts.extend(c.text for c in trace.commands[:5])
    found: dict[str, str] = {}
    for text in texts:
        for name, rx in _AUTH_FIELDS:
            m = rx.search(text)
            if m and name not in found:
                found[name] = m.group("v")
    return found


def facts_of(trace: Trace, live: bool = False) -> Facts:
    """The facts of one trace; cheap enough to compute once per report. ``live``: the
    command is still running, so a request without an answer yet is not a hang.
    The failure's evidence quotes the log (``facts.quotes``)."""
    facts = _facts_of(trace, live)
    if facts.failure is not None and facts.failure.evidence:
        words = LineWords(trace)
        facts.failure.evidence = [(n, words.quoted(n, t)) for n, t in facts.failure.evidence]
    return facts


def _facts_of(trace: Trace, live: bool) -> Facts:
    facts = Facts(versions=_versions(trace), auth=_auth(trace))
    printed = _printed(trace)
    for _line, text, _m in printed:
        am = _ATTEMPT.search(text)
        if am:
            facts.attempts = f"{am.group(1)} of {am.group(2)}"
    stated = printed_errors.client_error(
        # The line as printed when it is one: a fold's pieces keep their spaces.
        [
            (line, m.text if m.text.strip() == text else text)
            for line, text, m in printed
            if m.kind in _CLIENT_WORDS
        ],
        _client_error(printed),
    )
    facts.client_error = stated.error
    if stated.error is not None and looks_cut(stated.error.text):
        # A paste cut the last copy short: an earlier whole copy of the same refusal
        # (another attempt, another node) is quoted as it stands, at its own line.
        lines = {t: line for line, t, _m in printed}
        whole = fullest(stated.error.text, lines)
        if whole is not None:
            stated.error = ClientError(whole, lines[whole], stated.error.error_class)
            facts.client_error = stated.error
    if stated.printed is not None and looks_cut(stated.printed.words):
        # As for the client's error line: an earlier whole copy is quoted as it
        # stands, never glued to the cut one (see ``facts.fullest``).
        whole = fullest(stated.printed.words, (t for _l, t, _m in printed))
        if whole is not None:
            stated.printed.words = printed_errors.without_status(whole)
    facts.exception = _exception(trace, printed) or _with_frames(
        printed_errors.bare_exception(stated.printed), trace
    )
    facts.async_failure = _async_failure(trace)
    if facts.async_failure is None or not facts.async_failure.fault:
        shown = resource_facts.async_failure(trace.resources)
        if shown is not None and (facts.async_failure is None or shown.fault):
            facts.async_failure = shown
    elif len(facts.async_failure.fault) < 80:
        # A fault cell the table wrapped over several rows: the line read kept its
        # first row, the resource reader the whole cell.
        shown = resource_facts.async_failure(trace.resources)
        if (
            shown is not None
            and len(shown.fault) > len(facts.async_failure.fault)
            and shown.fault.startswith(facts.async_failure.fault)
        ):
            facts.async_failure.fault = shown.fault
    if facts.async_failure is not None and facts.client_error is not None:
        fields = {f.line for r in trace.resources for f in r.fields}
        if facts.client_error.line in fields:
            # A resource's own field (a fault, a status_reason quoting a refusal) is
            # its state, not the client's error: the command printed it and went on.
            facts.client_error = None
            stated = printed_errors.Stated(None)
    agent = _agent(trace)
    exchanges = trace.exchanges
    decisive: Exchange | None = None
    later = _Later()
    for i in range(len(exchanges) - 1, -1, -1):
        ex = exchanges[i]
        base, path, _ = split_url(ex.request.url)
        path = ex.path or path
        hung = ex.response is None and (ex.error is None or ex.error.kind == "no-answer")
        status = ex.status
        failed = (
            (ex.error is not None and not hung)
            or (status is not None and status >= 400)
            or (hung and i == len(exchanges) - 1 and not live)
        )
        if failed:
            if later.recovers(ex, base, path):
                facts.recovered.append(ex.index)
            elif decisive is None:
                decisive = ex  # the last failure not recovered from
        later.add(ex, base, path)
    facts.recovered.reverse()
    if trace.exit_code == 0:
        if facts.async_failure is not None:
            facts.failure = _async_as_failure(facts.async_failure)
        elif (
            not exchanges
            and facts.client_error is not None
            and _HTTP_ERROR.search(facts.client_error.text)
        ):
            # A wrapper's exit status (an Ansible task's rc, a shell loop) over a client
            # that printed an HTTP error: the status hides the failure, the words do not.
            facts.failure = _text_failure(
                printed, facts.client_error, agent, _command_of(trace, facts.client_error)
            )
            if facts.failure is not None:
                printed_errors.refine(facts.failure, stated)
        return facts
    last_line = exchanges[-1].last_line if exchanges else 0
    later_error = facts.client_error is not None and facts.client_error.line > last_line
    if decisive is not None:
        terminal = (
            decisive is exchanges[-1]
            or trace.exit_code not in (None, 0)
            or (facts.client_error is not None and facts.client_error.line > decisive.first_line)
            or bool(trace.tracebacks)
        )
        if (
            decisive.response is None
            and decisive.error is None
            and (
                trace.exit_code not in (None, *_INTERRUPTED)
                or later_error
                or trace.tracebacks
                or _answered_before(exchanges, decisive)
            )
        ):
            # Not hung: the client went on and said why, or a poll it had made many
            # times was interrupted between two answers.
            terminal = False
        if terminal:
            facts.auth_sent = _auth_sent(decisive)
            facts.failure = _exchange_failure(decisive, agent)
            _body_traceback(facts.failure, decisive, trace)
            _refine_transport(facts.failure, decisive, facts.client_error)
            if facts.client_error is not None and not facts.failure.request_id:
                rid = _REQUEST_ID.search(facts.client_error.text)
                facts.failure.request_id = rid.group(1) if rid else ""
            if facts.failure.fault is None or facts.failure.fault.shape == "omitted":
                quoted = _text_failure(printed, None, agent)
                if (
                    quoted is not None
                    and quoted.fault is not None
                    and quoted.line >= decisive.first_line
                ):
                    facts.failure.fault = quoted.fault
            return facts
    hung_text = (
        _hung_in_text(printed) if trace.exit_code is None and not later_error and not live else None
    )
    if hung_text is not None:
        facts.failure = hung_text
        return facts
    from_text = _text_failure(
        printed, facts.client_error, agent, _command_of(trace, facts.client_error)
    )
    if from_text is not None:
        printed_errors.refine(from_text, stated)
        facts.failure = from_text
        _shown_before(facts.failure, trace, stated)
    elif facts.exception is not None:
        exc = facts.exception
        context = _context(printed, exc.line, f"{exc.type}: {exc.message}")
        facts.failure = Failure(kind="client", line=exc.line)
        if transport.SIGNS.search(context):
            facts.failure.kind = "transport"
            facts.failure.transport = transport.classify(context)
            facts.failure.url = facts.failure.transport.url
            facts.failure.endpoint = split_url(facts.failure.url)[0]
            facts.failure.service = service_for(None, facts.failure.url, agent) or (
                "identity" if "identity" in context else ""
            )
            facts.failure.service_name = service_name(facts.failure.service)
        facts.failure.evidence.append(
            (facts.exception.line, f"{facts.exception.type}: {facts.exception.message}"[:200])
        )
    elif facts.async_failure is not None:
        facts.failure = _async_as_failure(facts.async_failure)
    return facts


def _with_frames(exc: ExceptionFact | None, trace: Trace) -> ExceptionFact | None:
    """An exception printed bare, with the frames of the traceback the paste kept
    beside it (cut before its last line, so the traceback names no exception)."""
    if exc is None:
        return None
    for tb in trace.tracebacks:
        if tb.origin == "client" and not tb.exc_type and abs(tb.first_line - exc.line) <= 3:
            for fr in reversed(tb.frames):
                pm = _CLIENT_PACKAGES.search(fr.file)
                if pm and (pm.group("pkg") or pm.group("stack")) not in _WRAPPERS:
                    exc.package = pm.group("pkg") or pm.group("stack") or ""
                    exc.frame = (
                        f"{fr.file.rpartition('-packages/')[2]}:{fr.lineno} in {fr.function}"
                    )
                    return exc
    return exc


def _command_of(trace: Trace, error: ClientError | None) -> str:
    """The client command that printed ``error``: the last one typed before it (a
    paste of several commands names the service of the one that failed)."""
    command = trace.command or ""
    if error is None:
        return command
    for typed in trace.commands:
        if typed.line > error.line:
            break
        if typed.client != "unknown":
            command = typed.text
    return command


def _body_traceback(failure: Failure, ex: Exchange, trace: Trace) -> None:
    """An answer whose text body is a service's own traceback: the parser reads its
    frames as a traceback of the service; its last line is the fault."""
    body = ex.response.body if ex.response is not None else None
    fault = failure.fault
    if body is None or fault is None or not fault.message.startswith("Traceback (most recent"):
        return
    for tb in trace.tracebacks:
        if tb.origin == "server" and body.first_line <= tb.first_line <= body.last_line + 1:
            kind = tb.exc_type.rpartition(".")[2]
            failure.fault = Fault(f"{kind}: {tb.message}" if tb.message else kind, "plain", kind)
            failure.evidence.append((tb.last_line, failure.fault.message[:200]))
            return


def _shown_before(failure: Failure, trace: Trace, stated: printed_errors.Stated) -> None:
    """The state of the failure's resource as a show or list printed it before the
    failure (this run's, or a run's before it): evidence of why it was refused."""
    target = stated.printed.target if stated.printed is not None else ""
    words = failure.fault.message if failure.fault is not None else ""
    names = resource_facts.names_in(failure.url, words, target)
    shown = [*trace.earlier_resources, *trace.resources]
    for line, text in resource_facts.shown_state(shown, names, failure.line):
        failure.evidence.append((line, text))


def _async_as_failure(af: AsyncFailure) -> Failure:
    failure = Failure(
        kind="async", line=af.line, fault=Fault(af.fault, "plain") if af.fault else None
    )
    failure.evidence.append(
        (af.line, f"{af.resource}: {af.status}" + (f" — {af.fault[:160]}" if af.fault else ""))
    )
    return failure
