"""The user's cloud credentials, found where the clients find them.

``clouds.yaml`` (and ``secure.yaml`` beside it) in ``./``,
``~/.config/openstack/`` and ``/etc/openstack/``, or the files named by
``OS_CLIENT_CONFIG_FILE`` / ``OS_CLIENT_SECURE_FILE``; the cloud named by
``--os-cloud`` or ``OS_CLOUD``; else the ``OS_*`` variables of an openrc file.
Read with ``yaml.safe_load`` so that openstacksdk is not needed at run time.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

_TRUE = ("1", "true", "yes", "on")

#: ``OS_*`` variable -> auth key, as openrc files set them.
_ENV_AUTH = {
    "OS_AUTH_URL": "auth_url",
    "OS_USERNAME": "username",
    "OS_USER_ID": "user_id",
    "OS_PASSWORD": "password",
    "OS_PROJECT_NAME": "project_name",
    "OS_TENANT_NAME": "project_name",
    "OS_PROJECT_ID": "project_id",
    "OS_TENANT_ID": "project_id",
    "OS_USER_DOMAIN_NAME": "user_domain_name",
    "OS_USER_DOMAIN_ID": "user_domain_id",
    "OS_PROJECT_DOMAIN_NAME": "project_domain_name",
    "OS_PROJECT_DOMAIN_ID": "project_domain_id",
    "OS_DOMAIN_NAME": "domain_name",
    "OS_DOMAIN_ID": "domain_id",
    "OS_APPLICATION_CREDENTIAL_ID": "application_credential_id",
    "OS_APPLICATION_CREDENTIAL_NAME": "application_credential_name",
    "OS_APPLICATION_CREDENTIAL_SECRET": "application_credential_secret",
    "OS_TOKEN": "token",
}
#: Auth keys whose values are secrets: they go to Keystone's token URL and nowhere else.
SECRET_KEYS = ("password", "application_credential_secret", "token")


class CloudConfigError(ValueError):
    """The configuration cannot be used; the message says what to fix."""


@dataclass(slots=True)
class CloudAuth:
    """What a client would authenticate with, and where it came from."""

    auth_type: str
    auth: dict[str, str]
    source: str
    """In words, for the consent prompt: ``cloud 'prod' of ~/.config/openstack/clouds.yaml``."""
    verify: bool = True
    cacert: str | None = None
    region: str | None = None
    interface: str = "public"
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def auth_url(self) -> str | None:
        return self.auth.get("auth_url")

    def secrets(self) -> list[str]:
        """The secret values: the transport guard checks where each one is sent."""
        return [self.auth[k] for k in SECRET_KEYS if self.auth.get(k)]


def config_dirs(cwd: Path, home: Path) -> list[Path]:
    return [cwd, home / ".config" / "openstack", Path("/etc/openstack")]


def _find(name: str, override: str | None, dirs: list[Path]) -> Path | None:
    if override:
        return Path(override) if Path(override).is_file() else None
    for folder in dirs:
        for candidate in (folder / f"{name}.yaml", folder / f"{name}.yml"):
            if candidate.is_file():
                return candidate
    return None


def _load(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise CloudConfigError(f"{path}: cannot be read ({exc})") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise CloudConfigError(f"{path}: expected a mapping with 'clouds:'")
    return data


def _merge(base: dict[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def _truthy(value: Any) -> bool:
    return value is True or (isinstance(value, str) and value.strip().lower() in _TRUE)


def _from_cloud(name: str, env: Mapping[str, str], dirs: list[Path]) -> CloudAuth:
    clouds_path = _find("clouds", env.get("OS_CLIENT_CONFIG_FILE"), dirs)
    if clouds_path is None:
        raise CloudConfigError(
            f"cloud '{name}' is asked for but no clouds.yaml was found in "
            f"{', '.join(str(d) for d in dirs)}"
        )
    clouds = _load(clouds_path).get("clouds") or {}
    secure_path = _find("secure", env.get("OS_CLIENT_SECURE_FILE"), dirs)
    if secure_path is not None:
        clouds = _merge(clouds, _load(secure_path).get("clouds") or {})
    entry = clouds.get(name)
    if not isinstance(entry, dict):
        known = ", ".join(sorted(str(k) for k in clouds)) or "none"
        raise CloudConfigError(f"no cloud '{name}' in {clouds_path} (clouds there: {known})")
    auth = {str(k): str(v) for k, v in (entry.get("auth") or {}).items() if v is not None}
    verify: bool = not _truthy(entry.get("insecure"))
    if "verify" in entry:
        verify = verify and (
            entry["verify"] is not False
            and not (
                isinstance(entry["verify"], str) and entry["verify"].lower() in ("false", "0", "no")
            )
        )
    return CloudAuth(
        auth_type=str(entry.get("auth_type") or "password"),
        auth=auth,
        source=f"cloud '{name}' of {clouds_path}",
        verify=verify,
        cacert=str(entry["cacert"]) if entry.get("cacert") else None,
        region=str(entry["region_name"]) if entry.get("region_name") else None,
        interface=str(entry.get("interface") or "public"),
    )


def _from_env(env: Mapping[str, str]) -> CloudAuth:
    auth: dict[str, str] = {}
    for var, key in _ENV_AUTH.items():
        if env.get(var) and key not in auth:
            auth[key] = env[var]
    if not auth.get("auth_url"):
        raise CloudConfigError(
            "no cloud is configured: set OS_CLOUD to a clouds.yaml entry, "
            "give --os-cloud, or source the project's openrc (OS_AUTH_URL...)"
        )
    default_type = (
        "v3applicationcredential"
        if "application_credential_secret" in auth
        else "token"
        if "token" in auth and "password" not in auth
        else "password"
    )
    return CloudAuth(
        auth_type=env.get("OS_AUTH_TYPE") or default_type,
        auth=auth,
        source="the OS_* environment variables",
        verify=not _truthy(env.get("OS_INSECURE", "")),
        cacert=env.get("OS_CACERT") or None,
        region=env.get("OS_REGION_NAME") or None,
        interface=env.get("OS_INTERFACE") or "public",
    )


def load_cloud_auth(
    cloud: str | None = None,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    home: Path | None = None,
    insecure: bool = False,
) -> CloudAuth:
    """The credentials the clients would use here; ``insecure`` is the user's --insecure."""
    env = os.environ if env is None else env
    dirs = config_dirs(cwd or Path.cwd(), home or Path(env.get("HOME") or Path.home()))
    name = cloud or env.get("OS_CLOUD")
    result = _from_cloud(name, env, dirs) if name else _from_env(env)
    if insecure:
        result.verify = False
    return result
