"""The facts of a run: what failed, who said so and in which words.

Rules, conditions and renderers read these instead of each re-deriving them
from exchanges and printed lines, so every front end names the same failure.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, get_args

from osdoctor.servicelog.join import Joined

TransportClass = Literal[
    "refused",
    "timeout",
    "dns",
    "tls-verify",
    "tls-version",
    "tls",
    "proxy",
    "reset",
    "unreachable",
    "hung",
    "connection",
]
"""Why a request got no answer, as rules name it (``failure: {transport: ...}``);
finer than the parser's ``model.TransportKind`` (a TLS failure says which)."""
TRANSPORT_CLASSES: tuple[TransportClass, ...] = get_args(TransportClass)

FailureKind = Literal["http", "transport", "client", "async"]
"""What the decisive failure is: an HTTP answer, no answer, only the client's
words, or a resource in ERROR after the command returned."""
FAILURE_KINDS: tuple[FailureKind, ...] = get_args(FailureKind)


@dataclass(slots=True)
class Fault:
    """A service's own account of an error, from whatever body shape it used."""

    message: str
    shape: str
    """"nova", "neutron", "keystone", "heat", "ironic", "placement", "designate",
    "barbican", "wsme", "plain", "html", "omitted" (the body was not logged)."""
    type: str = ""
    """The service's error class when it gives one (``NetworkNotFound``, ``itemNotFound``)."""
    code: str = ""
    detail: str = ""


@dataclass(slots=True)
class Transport:
    """A request that got no HTTP answer, classified."""

    kind: TransportClass
    """"refused", "timeout", "dns", "tls-verify", "tls-version", "tls", "proxy",
    "reset", "unreachable" (no route), "hung" (the log ends inside the request),
    "connection" (other)."""
    host: str
    port: str
    url: str
    detail: str
    """The library's own words for the cause (``[Errno 111] Connection refused``)."""


@dataclass(slots=True)
class ClientError:
    """The error the client printed for the user (the stderr line, ``clean_up``)."""

    text: str
    line: int
    error_class: str = ""
    """``ConnectFailure`` of ``ERROR (ConnectFailure): ...``, when printed."""


@dataclass(slots=True)
class ExceptionFact:
    """A Python exception the client raised (a traceback or a printed exception line)."""

    type: str
    message: str
    line: int
    frame: str = ""
    """The innermost frame as ``path/to/module.py:LINE in function``, when known."""
    package: str = ""
    """The top-level package of that frame (``osc_lib``, ``openstackclient``)."""
    installs: list[tuple[str, list[str]]] = field(default_factory=list)
    """Each package folder the traceback runs through (``.../site-packages``) with
    the packages it gave, when there are several: an old library shadowing the
    installed one (a ``pip install --user``, a ``PYTHONPATH``)."""


@dataclass(slots=True)
class AsyncFailure:
    """The command succeeded but the resource it made or showed went to ERROR."""

    resource: str
    status: str
    fault: str
    line: int
    type: str = ""
    """What the resource is (``server``, ``node``, ``stack resource``), when known."""


@dataclass(slots=True)
class Failure:
    """The decisive failure of a run: the last answer it did not recover from."""

    kind: FailureKind
    """"http", "transport", "client" (only the client's words), "async"."""
    line: int
    status: int | None = None
    method: str = ""
    url: str = ""
    path: str = ""
    endpoint: str = ""
    """``scheme://host:port`` of the URL."""
    service: str = ""
    """Catalog type (``compute``) when known."""
    service_name: str = ""
    """The name an operator uses (``Nova``, ``Neutron``)."""
    resource: str = ""
    """What the request was about, singular (``port``, ``server``)."""
    request_id: str = ""
    inner: str = ""
    """The exception class a service reports from its own inner call (Nova's
    ``Unexpected API Error`` naming ``neutronclient...Unauthorized``)."""
    fault: Fault | None = None
    transport: Transport | None = None
    evidence: list[tuple[int, str]] = field(default_factory=list)


@dataclass(slots=True)
class Facts:
    """Everything the rules need to know about how the run ended."""

    failure: Failure | None = None
    client_error: ClientError | None = None
    exception: ExceptionFact | None = None
    async_failure: AsyncFailure | None = None
    recovered: list[int] = field(default_factory=list)
    """Indexes of failed exchanges the run recovered from (lookups, discovery, retries)."""
    versions: dict[str, str] = field(default_factory=dict)
    """Package -> version read from the log (User-Agent, package paths)."""
    auth_sent: str = ""
    """What credentials the failing request carried: "a Keystone token", "basic auth
    (an Authorization header, no Keystone token)", "no credentials"."""
    attempts: str = ""
    """``6 of 6`` when the client printed its retries (ironicclient's "Attempt N of M")."""
    auth: dict[str, str] = field(default_factory=dict)
    """Who the client authenticated as: ``user``, ``project``, ``user_domain``,
    ``project_domain``, ``auth_type``, from the token request or "Using parameters"."""
    server: list[Joined] = field(default_factory=list)
    """The services' own log records tied to the run's exchanges (pasted in the
    log, or read from ``--service-log`` files), strongest tie first."""
