"""Real older releases of a client library, shadowing the installed ones.

A library mismatch (osc-lib from one release, python-openstackclient from
another) is a failure people meet when a ``pip install --user`` or a
``PYTHONPATH`` puts an old copy of a library before the one the client was
installed with. A case reproduces it with the real old release: its wheel, as
``pip download --no-deps NAME==VERSION`` gives it, is unpacked into the
client's user site-packages, which a ``PYTHONPATH`` puts first.

A capture never downloads anything: the wheels are looked for in the lab's
wheel folder (``OSDOCTOR_LAB_WHEELS``, else ``~/.cache/osdoctor-lab/wheels``),
outside the repository and the tests' inputs, and a missing one is an error
that says the command to fetch it.
"""

from __future__ import annotations

import os
import re
import zipfile
from pathlib import Path

from osdoctor.lab.config import ConfigError

_REQUIREMENT = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>[0-9][\w.]*)$")


class WheelMissing(Exception):
    """A case's wheel is not in the wheel folder."""


def wheel_dir() -> Path:
    """The folder a case's wheels are looked for in."""
    given = os.environ.get("OSDOCTOR_LAB_WHEELS")
    return Path(given) if given else Path.home() / ".cache" / "osdoctor-lab" / "wheels"


def parse_requirement(text: str) -> tuple[str, str]:
    """(name, version) of ``name==version``; the only form a case may pin."""
    m = _REQUIREMENT.match(text)
    if m is None:
        raise ConfigError(f"wheels: expected NAME==VERSION, not {text!r}")
    return m.group("name"), m.group("version")


def find_wheel(requirement: str, folder: Path | None = None) -> Path:
    """The wheel of ``requirement`` in the wheel folder, or WheelMissing saying how to
    fetch it."""
    name, version = parse_requirement(requirement)
    folder = folder or wheel_dir()
    stem = re.sub(r"[-_.]+", "_", name).lower()
    for path in sorted(folder.glob("*.whl")) if folder.is_dir() else []:
        dist, _, rest = path.name.partition("-")
        if dist.lower() == stem and rest.startswith(f"{version}-"):
            return path
    raise WheelMissing(
        f"the wheel of {requirement} is not in {folder}: "
        f"pip download --no-deps {requirement} -d {folder}"
    )


def user_site(home: Path) -> Path:
    """Where ``pip install --user`` puts packages for this interpreter's version."""
    from sys import version_info as v

    return home / ".local" / "lib" / f"python{v.major}.{v.minor}" / "site-packages"


def unpack(wheels: list[Path], target: Path) -> None:
    """Unpack wheels into ``target`` as pip would lay out a pure-Python wheel."""
    target.mkdir(parents=True, exist_ok=True)
    for wheel in wheels:
        with zipfile.ZipFile(wheel) as archive:
            for member in archive.namelist():
                if member.startswith("/") or ".." in Path(member).parts:
                    raise ConfigError(f"{wheel.name}: unsafe path {member!r}")
            archive.extractall(target)
