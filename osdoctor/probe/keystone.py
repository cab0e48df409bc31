"""Authenticate as the clients would (keystoneauth1), through the guard.

The Session never follows a redirect and never retries; its requests go
through :class:`~osdoctor.probe.guard.GuardedAdapter`, so the credentials
can only reach the configured auth URL's host, on a path ending in
``/auth/tokens``, and only if the log names that host.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import session as ks_session
from keystoneauth1.identity import base, generic, v3

from osdoctor.probe.cloudconfig import CloudAuth
from osdoctor.probe.guard import Blocked, Guard, requests_session
from osdoctor.probe.scope import host_key

#: Auth keys each plugin accepts (others in clouds.yaml are ignored, as unknown to us).
_PASSWORD_KEYS = (
    "auth_url",
    "username",
    "user_id",
    "password",
    "project_name",
    "project_id",
    "user_domain_name",
    "user_domain_id",
    "project_domain_name",
    "project_domain_id",
    "domain_name",
    "domain_id",
)
_APPCRED_KEYS = (
    "auth_url",
    "application_credential_id",
    "application_credential_name",
    "application_credential_secret",
    "username",
    "user_id",
    "user_domain_name",
    "user_domain_id",
)
_TOKEN_KEYS = (
    "auth_url",
    "token",
    "project_name",
    "project_id",
    "project_domain_name",
    "project_domain_id",
    "domain_name",
    "domain_id",
)


@dataclass(frozen=True, slots=True)
class Endpoint:
    service_type: str
    interface: str
    region: str | None
    url: str


@dataclass(slots=True)
class KeystoneResult:
    state: str
    """``ok``, ``refused`` (401), ``unreachable``, ``blocked``, ``unconfigured`` or ``error``."""
    detail: str
    token: str | None = None
    catalog: list[Endpoint] = field(default_factory=list)


def _plugin(cloud: CloudAuth) -> base.BaseIdentityPlugin:
    auth = cloud.auth
    kind = cloud.auth_type.replace("_", "").lower()

    def pick(keys: tuple[str, ...]) -> dict[str, Any]:
        return {k: auth[k] for k in keys if auth.get(k)}

    if kind in ("password", "v3password"):
        return generic.Password(**pick(_PASSWORD_KEYS))
    if kind in ("v3applicationcredential", "applicationcredential"):
        return v3.ApplicationCredential(**pick(_APPCRED_KEYS))
    if kind in ("token", "v3token"):
        return generic.Token(**pick(_TOKEN_KEYS))
    raise ValueError(
        f"auth type '{cloud.auth_type}' is not one osdoctor can probe with "
        "(password, v3applicationcredential, token)"
    )


def _catalog(raw: list[dict[str, Any]]) -> list[Endpoint]:
    out = []
    for service in raw:
        for ep in service.get("endpoints", []) or []:
            if isinstance(ep, dict) and ep.get("url"):
                out.append(
                    Endpoint(
                        str(service.get("type", "")),
                        str(ep.get("interface", "")),
                        ep.get("region_id") or ep.get("region"),
                        str(ep["url"]),
                    )
                )
    return out


def authenticate(cloud: CloudAuth, guard: Guard, verify: Any, timeout: float) -> KeystoneResult:
    """Ask Keystone for a token; on success the guard learns the token and its hosts."""
    auth_url = cloud.auth_url or ""
    if not guard.scope.allows(auth_url):
        return KeystoneResult(
            "blocked",
            f"the configured auth URL's host ({host_key(auth_url)}) "
            "is not one the log names: the configuration may be "
            "for another cloud (--map LOGHOST:PORT=HOST:PORT)",
        )
    try:
        plugin = _plugin(cloud)
    except (ValueError, TypeError) as exc:
        return KeystoneResult("unconfigured", str(exc))
    guard.token_url_host = host_key(auth_url)
    guard.secrets = cloud.secrets()
    session = ks_session.Session(
        auth=plugin,
        session=requests_session(guard),
        verify=verify,
        timeout=timeout,
        redirect=False,
        connect_retries=0,
    )
    try:
        access = plugin.get_access(session)
    except Blocked as exc:
        return KeystoneResult("blocked", str(exc))
    except ks_exc.Unauthorized as exc:
        return KeystoneResult("refused", f"Keystone refused the credentials: {exc}")
    except (ks_exc.ConnectionError, ks_exc.SSLError) as exc:
        return KeystoneResult("unreachable", str(exc))
    except ks_exc.DiscoveryFailure as exc:
        cause = exc.__context__
        if isinstance(cause, Blocked):
            return KeystoneResult("blocked", str(cause))
        return KeystoneResult("unreachable", str(exc))
    except ks_exc.ClientException as exc:
        return KeystoneResult("error", f"{type(exc).__name__}: {exc}")
    token = access.auth_token
    raw = access.service_catalog.catalog if access.has_service_catalog() else []
    catalog = _catalog(list(raw or []))
    guard.token = token
    guard.token_hosts = {
        k for k in (host_key(e.url) for e in catalog) if k is not None and k in guard.scope.allowed
    }
    return KeystoneResult(
        "ok", f"Keystone issued a token ({len(catalog)} catalog endpoints)", token, catalog
    )
