"""``{name}`` placeholders in case data (paths, bodies, argv, files).

Only known names are replaced; any other brace text (JSON, templates such as
``{get_param: x}``) is left as it is, so case authors need no escaping.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_.-]*)\}")


def expand_text(text: str, values: Mapping[str, str]) -> str:
    """``text`` with each ``{name}`` whose name is in ``values`` replaced."""

    def replace(match: re.Match[str]) -> str:
        return values.get(match.group(1), match.group(0))

    return _PLACEHOLDER.sub(replace, text)


def expand(data: Any, values: Mapping[str, str]) -> Any:
    """``data`` (YAML-shaped: dicts, lists, scalars) with placeholders expanded in strings."""
    if isinstance(data, str):
        return expand_text(data, values)
    if isinstance(data, Mapping):
        return {expand(key, values): expand(item, values) for key, item in data.items()}
    if isinstance(data, list | tuple):
        return [expand(item, values) for item in data]
    return data
