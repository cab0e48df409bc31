"""Safe YAML loading that remembers where each mapping started.

A support engineer who writes a rule needs errors that name the file and the
line. PyYAML's safe constructor forgets positions, so mappings are built as
:class:`Node` dicts that carry their line. Only the safe constructors are used.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


class Node(dict[str, Any]):
    """A mapping with the 1-based line it started on."""

    line: int = 0


class YamlError(Exception):
    def __init__(self, path: Path, line: int, message: str) -> None:
        super().__init__(f"{path}:{line}: {message}")
        self.path = path
        self.line = line
        self.message = message


_LOADER: Any = None


def _loader() -> Any:
    """The line-tracking safe loader, built on first use: with the knowledge cache
    warm, ``osdoctor explain`` never imports PyYAML at all."""
    global _LOADER
    if _LOADER is None:
        import yaml

        base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

        class _Loader(base):  # type: ignore[misc]
            pass

        def construct_mapping(loader: Any, node: Any) -> Node:
            loader.flatten_mapping(node)
            result = Node()
            result.line = node.start_mark.line + 1
            for key_node, value_node in node.value:
                key = loader.construct_object(key_node, deep=True)
                result[str(key)] = loader.construct_object(value_node, deep=True)
            return result

        _Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, construct_mapping)
        _LOADER = _Loader
    return _LOADER


def load_yaml(path: Path) -> Any:
    """Parse one YAML file safely; errors name the file and line."""
    import yaml

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise YamlError(path, 0, f"cannot read: {exc}") from None
    try:
        return yaml.load(text, Loader=_loader())  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 0
        problem = getattr(exc, "problem", None) or str(exc)
        raise YamlError(path, line, f"not valid YAML: {problem}") from None
