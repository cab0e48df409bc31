"""Next steps as commands to copy (see ``osdoctor.render.next_steps``)."""

from __future__ import annotations

from osdoctor.render.next_steps import step_command

__all__ = ["step_command"]
