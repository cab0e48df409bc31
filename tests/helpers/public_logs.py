"""Where the real logs people posted publicly are: the project's own copies under
``tests/fixtures/public`` (the first set) and ``tests/fixtures/public-2`` (the
second), each with an INDEX.md that gives every log's source and established
cause. They are used as they were posted."""

from __future__ import annotations

from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
PUBLIC_LOGS = FIXTURES / "public"
PUBLIC_LOGS_2 = FIXTURES / "public-2"


def public_logs(second: bool = False) -> Path:
    """The folder of one set, or a failure that says it is missing (never a silent skip)."""
    folder = PUBLIC_LOGS_2 if second else PUBLIC_LOGS
    if folder.is_dir():
        return folder
    raise AssertionError(f"the public logs ({folder.name}) are missing from tests/fixtures")


def public_log(name: str) -> Path:
    """One public log of either set, by its name without ``.log``."""
    for folder in (PUBLIC_LOGS, PUBLIC_LOGS_2):
        path = folder / f"{name}.log"
        if path.is_file():
            return path
    raise AssertionError(f"no public log named {name}")


def all_public_logs() -> list[Path]:
    """Every public log of both sets, sorted by name."""
    return sorted([*public_logs().glob("*.log"), *public_logs(second=True).glob("*.log")])
