"""Where the real logs people posted publicly are: ``shared/public-logs`` beside
the repository (CI lays them out there too), used as they were posted."""

from __future__ import annotations

from pathlib import Path

PUBLIC_LOGS = Path(__file__).resolve().parents[3] / "shared" / "public-logs"


def public_logs() -> Path:
    """The folder, or a failure that says it is missing (never a silent skip)."""
    if PUBLIC_LOGS.is_dir():
        return PUBLIC_LOGS
    raise AssertionError("the public logs (shared/public-logs) are not beside the repository")


def public_log(name: str) -> Path:
    """One public log, by its name without ``.log``."""
    return public_logs() / f"{name}.log"
