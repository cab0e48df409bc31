"""Next steps as commands to copy (see ``osdoctor.steps``)."""

from __future__ import annotations

from osdoctor.steps import step_command

__all__ = ["step_command"]
