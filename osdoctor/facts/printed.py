"""What the clients print when a call fails, read shape by shape.

Without ``--debug`` a ticket holds only the lines a client printed on stderr.
Each client has its own ways of saying "the service refused", and they
changed over the years; this module knows them (from each client's source),
and reads a printed line into who said what: the service's own words, the
status, the request id, the URL, the client's exception class, or the
client's summary of failures it printed above.

The shapes, and who prints them:

- ``<message> (HTTP <code>) (Request-ID: req-...)``: the ``__str__`` of
  novaclient's ``ClientException`` (2012 on), cinderclient's, keystoneclient's
  and keystoneauth's ``HttpError`` (2014 on: every ``openstack`` command through
  a python-*client), ironicclient, magnumclient, gnocchiclient, manilaclient,
  octaviaclient. Swift's and RGW's request ids are ``tx...``.
- ``ERROR (<Class>): <message>``: novaclient's shell from 2.20 (2014), and
  shells modelled on it; ``ERROR: <message>`` before it (2012-2014), and in
  cinderclient, heatclient (whose HTTP errors say ``ERROR: <message>``
  themselves, so ``openstack stack ...`` prints it too), magnumclient, troveclient.
  python-openstackclient up to 2.x (2013-2016) logged through
  ``%(levelname)s: %(name)s %(message)s``: ``ERROR: openstack <message>``.
- ``<Class>Exception: <status>: Client Error for url: <url>, <message>``:
  openstacksdk's ``HttpException`` (``openstack network ...`` since 2016,
  ``openstack server|image|volume ...`` as osc moved to the SDK, 2022 on; before
  2019 without the status: ``Error: Client Error for url: <url>, <message>``,
  quoted by shade after its own words);
  older SDKs printed only ``HttpException: Unknown error`` or
  ``HttpException: Conflict``; osc's network commands wrapped it as ``Error while
  executing command: <message>, <details>`` (2016-2026).
- A service's refusal above the client's summary of it: novaclient's
  ``do_action_on_many`` prints each failure (on Python 3 as a bytes repr) then
  ``ERROR (CommandError): Unable to reboot the specified server(s).``;
  cinderclient prints ``Delete for backup <id> failed: <message>`` then ``ERROR:
  Unable to delete any of the specified backups.``; osc prints ``Failed to
  delete server with name or ID 'db': <message>`` then ``1 of 3 servers failed
  to delete.``; osc's waits print ``Error creating server: <name>`` once the
  server went to ERROR. The service's words outrank the summary.
- ironicclient's retries: ``Error contacting Ironic server: <message> (HTTP
  409). Attempt 6 of 6``, then the last answer.
- neutronclient (2012-2023, cliff's ``%(message)s``): the bare message, then
  ``Neutron server returns request_ids: ['req-...']``; ``Connection to neutron
  failed: <reason>`` when it got no answer.
- glanceclient and ceilometerclient: ``Error communicating with <url> <reason>``
  (no answer), ``HTTPNotFound (HTTP 404) <message>`` (ceilometer), ``HTTP 404 Not
  Found: <message>`` (glance).
- Go clients (gophercloud: terraform, exporters, Kubernetes' cloud provider):
  net/http's ``Get "<url>": dial tcp <addr>: connect: connection refused``
  (unquoted URL before Go 1.14), ``dial tcp: lookup <host> ...: no such host``,
  ``x509: certificate signed by unknown authority``, ``http: server gave HTTP
  response to HTTPS client``, often inside the tool's own words.
- swiftclient: ``<Auth|Account|Container|Object> <METHOD> failed: <url> <status>
  <reason>  [first 60 chars of response] <body>``, then ``Failed Transaction ID:
  tx...``.
- barbicanclient: ``4xx Client error: <body>``, ``5xx Server error: <body>``.
- openstack4j (Java): ``ClientResponseException{message=<the service's message>,
  status=<status>, status-code=<NAME>}`` (2014 on), often cut before its start.
- Apache libcloud's OpenStack drivers: ``BaseHTTPError: <status> <reason> <the
  service's message>`` (``libcloud.common.exceptions.BaseHTTPError``, 2016 on).
- BOSH's OpenStack CPI (fog/excon, 2013 on) wraps the service's refusal in its own
  CloudError, anywhere in a line of its task output or backtrace: ``OpenStack API
  Bad Request (<message>). Check task debug log for details.``, likewise
  ``Conflict``, ``Request Entity Too Large error``, ``Service Unavailable error``,
  ``Internal Server error``, ``Unauthorized``; the message only when the body had one.
- designateclient's ``RemoteError`` and the osc plugins of octavia, manila and
  magnum print the service's message, bare or with ``(HTTP <code>)``: read as
  above, the service named by the command.
- Configuration the client lacks: ``Missing value auth-url required for auth
  plugin password`` (osc-lib), ``Missing parameter(s): `` with the missing
  options on the next lines (osc 1.x-2.x), ``You must provide a username via
  either --os-username or env[OS_USERNAME]`` (nova, cinder, heat, neutron),
  ``Expecting authentication method via`` and its indented lines, ``Expecting an
  auth URL via either --os-auth-url or env[OS_AUTH_URL]`` (keystoneclient 0.x).
- The service's own 401, as the shells of glance, heat, ceilometer and ironic
  (2012-2016) word it once the command's call was refused: ``Invalid OpenStack
  Identity credentials.`` (after the HTTP layer's ``Request returned failure
  status 401.``): the token the client got from Keystone was refused by the
  service. novaclient's ``Invalid OpenStack Nova credentials.`` (2011-2016) wraps
  its own authenticate(): Keystone refused the credentials (Ansible's nova
  modules and shade add ``: <message>``). keystoneclient's session prefixes what
  Keystone answered the token request with ``Authentication failure: `` (glance,
  2014-2016), its v2 client anything else with ``Authorization Failed: ``.
- Versions: ``Invalid client version '3'. must be one of: ...`` (novaclient's
  and cinderclient's ``get_client_class``), ``Invalid client version '3'. Major
  part should be '2'`` (novaclient 2.x api_versions).
- An exception the client did not expect, printed bare without ``--debug``
  (cliff's ``LOG.error(err)``): ``list index out of range``, ``'NoneType' object
  has no attribute 'get_token'``, ``ClientManager.is_service_available() takes 2
  positional arguments but 4 were given``: Python's own words say the type.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, get_args

from osdoctor import regex
from osdoctor.facts import fault_text as faults
from osdoctor.facts.facts_model import ClientError, ExceptionFact, Failure, Fault, Transport
from osdoctor.facts.known_names import PROJECT_TYPES, service_name
from osdoctor.facts.no_answer import classify as classify_transport
from osdoctor.parse.wraps import FOLD_MIN, starts_line, unfold

Role = Literal[
    "refusal", "summary", "error", "transport", "config", "version", "usage", "exception"
]
"""What a printed line is: a service's refusal (its words, with a status), the
client's summary of failures it printed above, an error whose author the line
does not say (heat's ``ERROR: Failed to validate: ...``, osc's ``No Server found
for x``), no answer at all, missing configuration, an unsupported version, or
an exception the client did not expect."""
ROLES: tuple[Role, ...] = get_args(Role)


@dataclass(slots=True)
class Printed:
    """One printed line read as a client's error."""

    line: int
    text: str
    """The line as printed."""
    words: str
    """The service's own words (for a refusal), else the client's."""
    role: Role
    status: int | None = None
    request_id: str = ""
    url: str = ""
    error_class: str = ""
    """The client's exception class when the line names it (``CommandError``,
    ``ConflictException``, ``HTTPNotFound``)."""
    service: str = ""
    """The project the line names (``Ironic`` of ``Error contacting Ironic
    server``, ``neutron`` of ``Connection to neutron failed``)."""
    target: str = ""
    """What the client failed on, as it says it (``server 'db'``)."""
    exc_type: str = ""
    """For an exception printed bare: the type Python's words say."""
    fault_type: str = ""
    """The service's error class when the line quotes its body (``NoNetworkAvailable``)."""


_RID = r"(?:req-[0-9a-f-]{20,}|tx[0-9a-f]{21}-[0-9a-f]{10}[\w-]*|[\w-]{8,})"
# "<words> (HTTP 409) (Request-ID: req-...)" and what may follow it.
_HTTP = regex.compile(
    r"^(?P<words>.*?)[\s.]*\(HTTP (?P<status>[1-5]\d\d)\)"
    r"(?: \(Request-ID: (?P<rid>" + _RID + r")\))?(?P<tail>.*)$"
)
_SDK = regex.compile(
    r"^(?P<cls>[A-Z]\w*(?:Exception|Error)): (?P<status>[1-5]\d\d): (?:Client|Server) Error "
    r"for url: (?P<url>\S+?)(?:, (?P<words>.+))?$"
)
# openstacksdk's HttpException before 2019 printed no status ("Error: Client Error for
# url: <url>, <details>"), and shade quoted it after its own words ("Error attaching IP
# <ip> to server <id>: Client Error for url: ...").
_SDK_BARE = regex.compile(
    r"^(?:(?P<head>[^:]{0,200}): )?(?P<source>Client|Server) Error for url: (?P<url>\S+?), "
    r"(?P<words>.+)$"
)
_SDK_OLD = regex.compile(r"^(?P<cls>HttpException|[A-Z]\w*Exception): (?P<words>.+)$")
_ERROR = regex.compile(r"^ERROR(?: \((?P<cls>\w+)\))?: ?(?P<rest>.*)$")
# osc 1.x-2.x logged "ERROR: <logger> <message>" (the logger: openstack, cliff.app...).
_LOGGER = regex.compile(r"^(?:openstack|cliff\.app|[a-z]+client(?:\.[\w.]+)?|osc_lib[\w.]*) ")
_TARGETED = (
    # osc's multi-target commands
    regex.compile(
        r"^Failed to (?P<verb>\w+) (?P<what>[\w ]+?) with (?:name or )?ID "
        r"'(?P<id>[^']*)': (?P<rest>.+)$"
    ),
    # cinderclient's
    regex.compile(
        r"^(?P<verb>Delete|Reset state|Migration|Retype|Extend|Force delete|Unmanage) for "
        r"(?P<what>[\w ]+?) (?P<id>\S+) failed: (?P<rest>.+)$"
    ),
)
_CONTACTING = regex.compile(
    r"^Error contacting (?P<svc>\w+) server: (?P<rest>.+?)(?:\.? Attempt \d+ of \d+)?$"
)
_EXECUTING = regex.compile(r"^Error while executing command: (?P<rest>.+)$")
_SUMMARY = regex.compile(
    r"^\d+ of \d+ [\w ]+? failed to \w+\.?$|"
    r"^Unable to \w+(?: \w+)*? (?:any of )?the specified [\w ()]+\.?$|"
    r"^Error (?:creating|deleting|migrating|rebooting|rebuilding|evacuating|resizing|"
    r"shelving|unshelving|offloading shelved) server(?: image| backup| snapshot)?(?:: .*)?$|"
    r"^Unable to delete any of the specified \w+\.?$"
)
_CEILOMETER = regex.compile(
    r"^(?P<cls>HTTP[A-Z]\w+) \(HTTP (?P<status>\d{3})\)(?: (?P<words>.+))?$"
)
# The shells' "except exc.Unauthorized" around the command's own calls.
_SERVICE_401 = regex.compile(r"^Invalid OpenStack Identity credentials\.?$")
# keystoneclient's AuthorizationFailure around the token request: Keystone's words.
_KEYSTONE_AUTH = regex.compile(r"^(?:Authentication failure|Authorization Failed): (?P<rest>.+)$")
# novaclient's "except exc.Unauthorized" around its authenticate(): Keystone's 401.
_KEYSTONE_401 = regex.compile(r"^Invalid OpenStack Nova credentials\.?(?::? (?P<said>.+))?$")
_GLANCE = regex.compile(r"^HTTP (?P<status>[1-5]\d\d)(?: [A-Z][\w -]*?)?: (?P<words>.+)$")
# webob's plain-text error body, as glanceclient prints it: "410 Gone" and, on the
# next line, the service's words (joined by ``read_lines``).
_STATUS_LINE = regex.compile(
    r"^(?P<status>[45]\d\d) (?:Bad Request|Unauthorized|Forbidden|Not Found|Method Not Allowed|"
    r"Conflict|Gone|Request Entity Too Large|Internal Server Error|Service Unavailable|"
    r"Bad Gateway|Gateway Time-?out)(?:: | {2,}|\n)(?P<words>.*)$"
)
# argparse's refusal of a command line (every client's parser): "openstack role
# list: error: unrecognized arguments: --group x".
_USAGE = regex.compile(r"^(?P<prog>[a-z][\w.\-]*(?: [a-z][\w\-]*){0,4}): error: (?P<why>.+)$")
_COMMUNICATING = regex.compile(
    r"^(?:SSL )?Error communicating with (?P<url>https?://\S+?):? (?P<reason>.+)$"
)
# Go's url.Error: "<Method> <url>: <net error>", inside whatever the tool says around it.
_GO_NET = regex.compile(
    r"\b(?:Get|Post|Put|Patch|Delete|Head) \"?(?P<url>https?://[^\s\"]*)\"?: "
    r"(?P<reason>(?:dial tcp|read tcp|write tcp|x509: |tls: |http: server gave|net/http: |"
    r"EOF\b|context deadline)[^\n]*)"
)
_CONNECTION_TO = regex.compile(r"^Connection to (?P<svc>\w+) failed: (?P<reason>.+)$")
_NO_ANSWER = regex.compile(
    r"^(?:Unable to establish connection to|SSL exception connecting to|"
    r"Failed to connect to|Unable to connect to) (?P<url>https?://\S+?):? (?P<reason>.*)$"
)
_SWIFT = regex.compile(
    r"^(?P<what>Auth|Account|Container|Object) (?P<method>HEAD|GET|PUT|POST|DELETE|COPY) "
    r"failed: (?P<url>\S+) (?P<status>[1-5]\d\d) (?P<reason>[\w ]+?)(?:\s+\[first \d+ chars "
    r"of response\] (?P<body>.*)|\s{2,}(?P<said>\S.*))?$"
)
_BARBICAN = regex.compile(r"^(?P<xx>[45])xx (?:Client|Server) error: (?P<words>.*)$")
_BOSH_CPI = regex.compile(
    r"OpenStack API (?P<reason>Bad Request|Conflict|Request Entity Too Large|Service "
    r"Unavailable|Internal Server|Unauthorized|Forbidden|Not Found)(?: error)?"
    r"(?: \((?P<words>.*?)\))?(?: error)?\. Check task debug log for details"
)
_OPENSTACK4J = regex.compile(
    r"^(?:.*?ClientResponseException\{message=)?(?P<words>.+?), status=(?P<status>[1-5]\d\d),"
    r" status-code=[A-Z_]+\}"
)
_LIBCLOUD = regex.compile(
    r"^(?:[\w.]+\.)?BaseHTTPError: (?P<status>[1-5]\d\d)(?: (?:Bad Request|Unauthorized|"
    r"Forbidden|Not Found|Method Not Allowed|Not Acceptable|Conflict|Request Entity Too Large|"
    r"Internal Server Error|Bad Gateway|Service Unavailable|Gateway Timeout))? (?P<words>.+)$"
)
_BOSH_STATUS = {
    "Bad Request": 400,
    "Unauthorized": 401,
    "Forbidden": 403,
    "Not Found": 404,
    "Conflict": 409,
    "Request Entity Too Large": 413,
    "Internal Server": 500,
    "Service Unavailable": 503,
}
_REQUEST_IDS = regex.compile(r"^Neutron server returns request_ids: \[(?P<ids>[^\]]*)\]")
_TRANSACTION = regex.compile(r"^Failed Transaction ID: (?P<tx>\S+)")
_CONFIG = regex.compile(
    r"^Missing value [\w-]+ required for auth plugin \w+|^Missing parameter\(s\):|"
    r"^You must provide (?:a |an |either )|"
    r"^Expecting (?:an auth URL|a password|a username|authentication method via)|"
    r"^Auth plugin requires parameters which were not given|"
    r"^Set a cloud-name with --os-cloud|^Cloud \S+ was not found\.?$|"
    r"^Could not find requested endpoint in Service Catalog|"
    r"^Auth versions? [\d.]+(?: and \d)? requires? python-keystoneclient"  # swiftclient
)
_VERSION = regex.compile(
    r"\bInvalid client version '(?P<asked>[^']*)'|"
    r"^(?:The specified version isn't supported by server|Server doesn't support microversions)|"
    r"^API version '[^']*' is not supported|"
    r"^(?P<svc>\w+) API version (?:is set to )?'?(?P<v>[\d.]+)'? is not (?:in supported versions|"
    r"supported|available)"
)
# Python's own words for the exceptions clients raise by mistake, and their types.
_PYTHON = (
    (
        regex.compile(
            r"^(?P<callee>[\w.]+)\(\) (?:takes (?:exactly |at most |at least |from \d+ to )?"
            r"\d+ (?:positional )?arguments? but \d+ (?:were|was) given|missing \d+ required "
            r"(?:positional |keyword-only )?arguments?:|got an unexpected keyword argument|"
            r"got multiple values for (?:keyword )?argument)"
        ),
        "TypeError",
    ),
    (
        regex.compile(
            r"^'\w+' object is not (?:subscriptable|iterable|callable)|^unsupported operand "
            r"type\(s\) for|^can only concatenate |^string indices must be integers|"
            r"^expected str, bytes or os\.PathLike object|^'\w+' object does not support "
        ),
        "TypeError",
    ),
    (
        regex.compile(
            r"^'?[\w.]+'? object has no attribute '\w+'|^module '\S+' has no attribute|"
            r"^\w+ instance has no attribute '\w+'"
        ),
        "AttributeError",
    ),
    (regex.compile(r"^No module named '?[\w.]+'?$"), "ModuleNotFoundError"),
    (regex.compile(r"^cannot import name '?\w+'?"), "ImportError"),
    (regex.compile(r"^(?:list|tuple) index out of range$"), "IndexError"),
    (regex.compile(r"^maximum recursion depth exceeded"), "RecursionError"),
    (
        regex.compile(r"^local variable '\w+' referenced before assignment|^cannot access local"),
        "UnboundLocalError",
    ),
    (regex.compile(r"^name '\w+' is not defined$"), "NameError"),
)
# The clients' own words when a name or an ID matched nothing, or more than one thing;
# and ironicclient's wait that saw the node fail.
_ERRORS = regex.compile(
    r"^No \w+(?: \w+)? (?:found for|with a name or ID of) |"
    r"^More than one \w[\w ]* exists with the name |"
    r"^Unable to find \w+ with (?:name|id|name or id) |^Multiple \w+ matches found for |"
    r"^\w+ \S+ failed to reach (?:state|target provision state) |^Stack \S+ [A-Z]+_FAILED$|"
    r"^(?:Failed to validate|Error parsing template|Could not fetch contents for) |"
    r"^Endpoint for \S+ not found|^\w+: '[^']+' is not an? \w+ command|"
    # openstacksdk's NotSupported when no version document answered
    r"^The [\w-]+ service for \S+ exists but does not have any supported versions"
)
#: Python's built-in exceptions a client raises by mistake, named as a class.
_PYTHON_TYPE = regex.compile(
    r"^(?:Type|Attribute|Import|ModuleNotFound|Index|Key|Name|UnboundLocal|Recursion|"
    r"Assertion|Runtime|UnicodeDecode|UnicodeEncode)Error$"
)
_TYPED_EXCEPTION = regex.compile(
    r"^(?:[a-z_][\w]*\.)*(?P<type>(?:Type|Attribute|Import|ModuleNotFound|Index|Key|Value|Name|"
    r"UnboundLocal|Recursion|Assertion|Runtime|UnicodeDecode|UnicodeEncode)Error): (?P<msg>.+)$"
)
#: Cheap words one of which a client's error line holds (a plain loop before the
#: patterns: most printed lines are output).
_HINTS = (
    "HTTP",
    "rror",
    "ERROR",
    "ailed",
    "Exception",
    "Unable",
    "Missing",
    "must provide",
    "Expecting",
    "Invalid OpenStack",
    "dial tcp",
    "x509: ",
    "Invalid client",
    "version",
    "()",
    "object",
    "module",
    "index out of range",
    "not defined",
    "recursion",
    "Could not find",
    "Cloud ",
    "Set a cloud",
    "Auth plugin",
    "request_ids",
    "Transaction ID",
    "xx ",
    "local variable",
    "No ",
    "More than one",
    "Multiple",
    "_FAILED",
    "template",
    "Endpoint for",
    "command",
    "OpenStack API ",
    "status-code=",
    "supported versions",
)


def _hinted(text: str) -> bool:
    for hint in _HINTS:
        if hint in text:
            return True
    return False


def _refusal(
    line: int,
    text: str,
    words: str,
    status: int | None = None,
    url: str = "",
    error_class: str = "",
    target: str = "",
) -> Printed:
    """A refusal, its words cleaned of the status and request id the client adds."""
    rid = ""
    m = _HTTP.match(words)
    if m is not None:
        tail = m.group("tail").strip(" .")
        words = m.group("words").strip().rstrip(".").strip() or tail
        status, rid = int(m.group("status")), m.group("rid") or ""
    return Printed(
        line,
        text,
        words.strip() or text,
        "refusal",
        status=status,
        request_id=rid,
        url=url,
        error_class=error_class,
        target=target,
    )


def without_status(words: str) -> str:
    """A refusal's words without the ``(HTTP nnn) (Request-ID: ...)`` a client adds."""
    m = _HTTP.match(words)
    return (m.group("words").strip().rstrip(".").strip() or words) if m is not None else words


def read_line(line: int, text: str) -> Printed | None:
    """The client's error a printed line states, or None for any other line."""
    text = text.strip()
    if text[:2] in ("b'", 'b"'):
        # a Python 3 client's bytes repr the paste cut or folded: its words inside
        text = text[2:].removesuffix(text[1]).strip()
    if len(text) < 4 or text[0] in "|+" or not _hinted(text):
        return None
    return _read(line, text, text, 0)


def _read(line: int, text: str, rest: str, depth: int) -> Printed | None:
    if "OpenStack API " in rest:
        bosh = _BOSH_CPI.search(rest)
        if bosh is not None:
            reason = bosh.group("reason")
            return _refusal(
                line,
                text,
                bosh.group("words") or f"OpenStack API {reason}",
                status=_BOSH_STATUS[reason],
                error_class="Bosh::Clouds::CloudError",
            )
    m = _ERROR.match(rest)
    if m is not None and depth < 3:
        inner = _LOGGER.sub("", m.group("rest").strip())
        found = _read(line, text, inner, depth + 1) if inner else None
        cls = m.group("cls") or ""
        if found is None and _PYTHON_TYPE.match(cls):
            # novaclient's "ERROR (AttributeError): ...": an exception it did not expect
            return Printed(line, text, inner, "exception", error_class=cls, exc_type=cls)
        if found is not None:
            found.error_class = found.error_class or cls
            if found.role == "exception" and _PYTHON_TYPE.match(cls):
                found.exc_type = cls
            return found
        return Printed(line, text, inner.rstrip(".") or text, "error", error_class=cls)
    if rest.startswith("Exception raised: ") and depth < 3:
        return _read(line, text, rest[18:], depth + 1)
    m = _SDK.match(rest)
    if m is not None:
        return _refusal(
            line,
            text,
            m.group("words") or m.group("cls"),
            status=int(m.group("status")),
            url=m.group("url"),
            error_class=m.group("cls"),
        )
    m = _SDK_BARE.match(rest) if "Error for url: " in rest else None
    if m is not None:
        return _refusal(
            line,
            text,
            m.group("words"),
            status=500 if m.group("source") == "Server" and "(HTTP 5" not in rest else None,
            url=m.group("url"),
        )
    for rx in _TARGETED:
        m = rx.match(rest)
        if m is not None and depth < 3:
            inner_found = _read(line, text, m.group("rest"), depth + 1)
            target = f"{m.group('what').strip().lower()} '{m.group('id')}'"
            if inner_found is not None:
                inner_found.target = inner_found.target or target
                return inner_found
            return _refusal(line, text, m.group("rest"), target=target)
    m = _CONTACTING.match(rest)
    if m is not None:
        found = _read(line, text, m.group("rest"), depth + 1) if depth < 3 else None
        if found is None:
            found = _refusal(line, text, m.group("rest"))
        found.service = found.service or m.group("svc")
        return found
    m = _EXECUTING.match(rest)
    if m is not None:
        words, _sep, details = m.group("rest").partition(", {")
        quoted = faults.in_text("{" + details) if details else None
        if quoted is not None and quoted.message:
            found = _refusal(line, text, quoted.message, error_class=words.partition(":")[0])
            found.fault_type = quoted.type
            return found
        found = _read(line, text, words, depth + 1) if depth < 3 else None
        return found or _refusal(line, text, words)
    m = _SWIFT.match(rest)
    if m is not None:
        said = f": {m.group('said').strip()}" if m.group("said") else ""
        return _refusal(
            line,
            text,
            f"{m.group('what')} {m.group('method')} failed: {m.group('status')} "
            f"{m.group('reason')}{said}".strip(),
            status=int(m.group("status")),
            url=m.group("url"),
        )
    if _SERVICE_401.match(rest):
        return _refusal(line, text, rest.rstrip("."), status=401)
    m = _KEYSTONE_AUTH.match(rest)
    if m is not None and depth < 3:
        inner_auth = _read(line, text, m.group("rest"), depth + 1)
        if inner_auth is not None and inner_auth.role in ("refusal", "transport"):
            inner_auth.service = inner_auth.service or "keystone"
            return inner_auth
    m = _KEYSTONE_401.match(rest)
    if m is not None:
        found = _refusal(line, text, m.group("said") or rest.rstrip("."), status=401)
        found.service = "keystone"
        return found
    m = _CEILOMETER.match(rest)
    if m is not None:
        words = (m.group("words") or "").removeprefix("ERROR ").strip() or m.group("cls")
        return _refusal(
            line, text, words, status=int(m.group("status")), error_class=m.group("cls")
        )
    m = _COMMUNICATING.match(rest) or _NO_ANSWER.match(rest)
    if m is not None:
        return Printed(line, text, rest, "transport", url=m.group("url").rstrip(":"))
    m = _GO_NET.search(rest) if "tcp" in rest or "http" in rest else None
    if m is not None:
        return Printed(line, text, rest[m.start() :], "transport", url=m.group("url"))
    m = _CONNECTION_TO.match(rest)
    if m is not None:
        return Printed(line, text, rest, "transport", service=m.group("svc"))
    if _SUMMARY.match(rest):
        return Printed(line, text, rest.rstrip("."), "summary")
    m = _BARBICAN.match(rest)
    if m is not None:
        return _refusal(line, text, m.group("words").strip(" b'\""))
    if _CONFIG.match(rest):
        return Printed(line, text, rest, "config")
    m = _USAGE.match(rest)
    if m is not None:
        return Printed(line, text, m.group("why"), "usage", target=m.group("prog"))
    m = _VERSION.search(rest)
    if m is not None:
        return Printed(line, text, rest[m.start() :], "version")
    if _ERRORS.match(rest):
        return Printed(line, text, rest.rstrip("."), "error")
    if ", status-code=" in rest:
        m = _OPENSTACK4J.match(rest)
        if m is not None:
            return _refusal(
                line,
                text,
                m.group("words"),
                status=int(m.group("status")),
                error_class="ClientResponseException",
            )
    m = _LIBCLOUD.match(rest)
    if m is not None:
        return _refusal(
            line, text, m.group("words"), status=int(m.group("status")), error_class="BaseHTTPError"
        )
    m = _TYPED_EXCEPTION.match(rest)
    if m is not None:
        return Printed(line, text, m.group("msg"), "exception", exc_type=m.group("type"))
    for rx, exc_type in _PYTHON:
        if rx.match(rest):
            return Printed(line, text, rest, "exception", exc_type=exc_type)
    m = _STATUS_LINE.match(rest)
    if m is not None and m.group("words"):
        return _refusal(line, text, m.group("words"), status=int(m.group("status")))
    m = _GLANCE.match(rest)
    if m is not None:
        return _refusal(line, text, m.group("words"), status=int(m.group("status")))
    m = _SDK_OLD.match(rest)
    if m is not None and m.group("cls") != "Exception":
        return _refusal(line, text, m.group("words"), error_class=m.group("cls"))
    if "(HTTP " in rest:
        m = _HTTP.match(rest)
        if m is not None:
            return _refusal(line, text, rest)
    return None


def read_lines(items: list[tuple[int, str]]) -> list[Printed]:
    """Every client error of a run's printed lines, in order. What a client prints
    on the lines after one (neutron's request ids, swift's transaction id, the
    options ``Missing parameter(s):`` lists) joins it, and so do the pieces of a
    line a terminal folded. Each line is read once (twice where a fold is likely)."""
    out: list[Printed] = []
    last: Printed | None = None
    lines = unfold(items)
    read = [read_line(line, text) for line, text in lines]
    joined: set[int] = set()
    for at, (line, text) in enumerate(lines):
        if at in joined:
            continue  # the end of the line before, read with it
        stripped = text.strip()
        if last is not None and line - last.line <= 3:
            m = _REQUEST_IDS.match(stripped)
            if m is not None:
                ids = [i.strip(" '\"u") for i in m.group("ids").split(",")]
                last.request_id = last.request_id or next((i for i in ids if i), "")
                continue
            m = _TRANSACTION.match(stripped)
            if m is not None:
                last.request_id = last.request_id or m.group("tx")
                continue
            if last.role == "config" and stripped and last.words.endswith((":", " via", ",")):
                # the options it lists, or the rest of keystoneclient's sentence
                last.words = f"{last.words} {stripped}"
                continue
        found = read[at]
        following = lines[at + 1] if at + 1 < len(lines) else None
        if following is not None and following[0] == line + 1:
            if found is not None and read[at + 1] is None and _folded(text, following[1]):
                found = read_line(line, text + following[1])
                joined.add(at + 1)
            elif found is None and read[at + 1] is None and _folded(text, following[1]):
                # an error that reads only whole: swift's "Object PUT failed: <url>"
                # folded inside its URL, before the status
                found = read_line(line, text + following[1])
                if found is not None:
                    joined.add(at + 1)
            elif len(text) < 40 and _STATUS_LINE.match(f"{stripped}: {following[1].strip()}"):
                found = read_line(line, f"{stripped}: {following[1].strip()}")  # webob's
                joined.add(at + 1)  # status line, then why
        back, start, joined_text = at, line, text
        while found is not None and back and found.role == "refusal" and found.words[:1].islower():
            # A refusal the terminal folded before its status: "...image is greater" /
            # "than volume size 1 (HTTP 400)": its start is the line before (or, folded
            # more than once, the lines before it).
            before_line, before = lines[back - 1]
            if at - back >= _FOLDS or before_line != start - 1 or read[back - 1] is not None:
                break
            if starts_line(before):
                break
            joined_text = before.rstrip() + " " + joined_text.lstrip()
            whole = read_line(before_line, joined_text)
            if whole is None:
                break
            found, back, start = whole, back - 1, before_line
        if found is not None:
            out.append(found)
            last = found
    return out


_FOLDS = 4
"""How many lines before its status a folded refusal is looked for."""


def _folded(text: str, following: str) -> bool:
    """Whether ``following`` may be the end of ``text`` (an error already), which a
    terminal folded in two: ``text`` is long and stops mid-sentence; the next
    line starts no line of its own (and is no error by itself: the caller knows)."""
    if len(text) < FOLD_MIN or len(following) > len(text) or text.rstrip()[-1:] in ".!?)]'\"":
        return False
    return not (
        starts_line(following) or following[:1] in ("|", "+", "$", "#") or following[:2] == "  "
    )


def decisive(errors: list[Printed]) -> Printed | None:
    """The error that explains the run: the last one, unless it is the client's
    summary of refusals it printed above: the service's own words then lead."""
    if not errors:
        return None
    last = errors[-1]
    if last.role != "summary":
        return last
    for earlier in reversed(errors[:-1]):
        if earlier.role == "summary":
            break
        if earlier.role in ("refusal", "transport"):
            if not earlier.error_class:
                earlier.error_class = last.error_class
            return earlier
    return last


def service_named(printed: Printed) -> str:
    """The catalog type of the service the line names, or ""."""
    return PROJECT_TYPES.get(printed.service.lower(), "")


def _without_error_prefix(text: str) -> str:
    m = _ERROR.match(text)
    return _LOGGER.sub("", m.group("rest").strip()) if m is not None else text


@dataclass(slots=True)
class Stated:
    """What a run's printed lines say of its error (see :func:`client_error`)."""

    error: ClientError | None
    printed: Printed | None = None
    """The printed error the client error stands for, in its shape."""
    summaries: list[Printed] = field(default_factory=list)
    """The client's summaries after it, which it explains."""


def client_error(items: list[tuple[int, str]], found: ClientError | None) -> Stated:
    """The client's error of a run, read from its printed lines: the service's
    words when the line ``found`` (the last error-looking line) is only the
    client's summary of them, or the line these shapes recognise when no other
    was found."""
    errors = read_lines(items)
    best = decisive(errors)
    if best is None:
        return Stated(found)
    summaries = [e for e in errors if e.role == "summary" and e.line > best.line]
    folded = found is not None and len(found.text) > 8 and found.text.strip() in best.text
    if found is not None and best.line < found.line and not folded:
        summary = read_line(found.line, found.text)
        if summary is None or summary.role != "summary" or best.role == "summary":
            return Stated(found)
    if found is not None and best.line == found.line:
        whole = _without_error_prefix(best.text)
        # The pieces of a fold, joined (``found`` may be without its "ERROR: ").
        if len(best.text) > len(found.text) and (
            best.text.startswith(found.text[:40]) or whole.startswith(found.text[:40])
        ):
            found.text = whole
        elif best.role == "config" and len(best.words) > len(found.text):
            found.text = best.words  # with the lines it goes on on
        return Stated(found, best, summaries)
    text = _without_error_prefix(best.text)
    if best.role == "config" and len(best.words) > len(text):
        text = best.words  # with the lines it goes on on
    return Stated(ClientError(text, best.line, best.error_class), best, summaries)


def refine(failure: Failure, stated: Stated) -> None:
    """A failure read from printed text, completed by what the client's error line
    says in its own shape: status, request id, URL, the service it names, and the
    service's words as the fault; the client's summaries it stands for become
    evidence too."""
    printed = stated.printed
    if printed is None:
        return
    if printed.role == "refusal":
        if failure.status is None and printed.status is not None:
            failure.status = printed.status
            failure.kind = "http" if failure.kind == "client" else failure.kind
        if failure.fault is None and printed.words:
            failure.fault = Fault(printed.words, "printed", printed.fault_type)
    if printed.role == "transport" and failure.kind == "client":
        failure.kind = "transport"
        if failure.transport is None and _GO_NET.search(printed.words):
            # Go's words name the cause in its own way: classified as the others are
            failure.transport = classify_transport(printed.words, printed.url)
        failure.transport = failure.transport or Transport(
            "connection", "", "", printed.url, printed.words.partition(": ")[2] or printed.words
        )
    failure.request_id = failure.request_id or printed.request_id
    if printed.url and not failure.url:
        failure.url = printed.url
    named = service_named(printed)
    if named and (not failure.service or named == "identity"):
        # words that name Keystone as the one that answered (the token request a
        # client's shell wraps) outrank the command's own service
        failure.service, failure.service_name = named, service_name(named)
    for summary in stated.summaries:
        failure.evidence.append((summary.line, summary.text[:200]))


def bare_exception(printed: Printed | None) -> ExceptionFact | None:
    """An exception the client printed without its traceback (no ``--debug``)."""
    if printed is None or printed.role != "exception":
        return None
    return ExceptionFact(printed.exc_type, printed.words, printed.line)
