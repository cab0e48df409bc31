"""The help screen (``?``, F1): the keys of the screen in view, as they apply now.

Read from Textual's own account of the active bindings (what the footer shows,
and the keys it leaves out for want of room), so it never disagrees with what
the keys do: a key that would do nothing now (``x`` with no command running)
is not listed, as it is not in the footer.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.dom import DOMNode
from textual.screen import ModalScreen, Screen
from textual.widgets import Label, Static

#: ``?`` and F1, as in most terminal programs; first in each screen's footer.
HELP_KEY = Binding("question_mark,f1", "app.toggle_help", "Help")


@dataclass(frozen=True, slots=True)
class KeyRow:
    keys: str
    """The keys of one action, as the footer writes them (``↑ k``)."""
    what: str
    more: str = ""


@dataclass(frozen=True, slots=True)
class KeyGroup:
    title: str
    rows: tuple[KeyRow, ...]


def _title(node: DOMNode, screen: Screen[object]) -> str:
    if node is screen:
        return "On this screen"
    if node is screen.app:
        return "Anywhere"
    return node.BINDING_GROUP_TITLE or "In the part that has the focus"


def key_groups(screen: Screen[object]) -> list[KeyGroup]:
    """The keys that apply on ``screen`` now, by where they come from: the screen
    first, then the part with the focus, then the whole app."""
    by_node: dict[int, tuple[DOMNode, dict[str, list[Binding]]]] = {}
    for node, binding, _enabled, _tooltip in screen.active_bindings.values():
        if not binding.system:
            actions = by_node.setdefault(id(node), (node, {}))[1]
            actions.setdefault(binding.action, []).append(binding)
    places = sorted(by_node.values(), key=lambda p: (p[0] is not screen, p[0] is screen.app))
    groups: list[KeyGroup] = []
    for node, actions in places:
        own = _own_actions(node)
        rows = []
        for action in sorted(actions, key=lambda a: a not in own):
            bindings = actions[action]
            keys = " ".join(dict.fromkeys(screen.app.get_key_display(b) for b in bindings))
            rows.append(KeyRow(keys, bindings[0].description, bindings[0].tooltip))
        groups.append(KeyGroup(_title(node, screen), tuple(rows)))
    return groups


def _own_actions(node: DOMNode) -> set[str]:
    """The actions bound by the node's own class, which lead its group in their
    order; those it inherits (Textual's tab, the copy) follow."""
    return {b.action for b in type(node).__dict__.get("BINDINGS", ()) if isinstance(b, Binding)}


def _table(groups: list[KeyGroup]) -> Table:
    table = Table.grid(padding=(0, 1))
    table.add_column(justify="right", no_wrap=True)
    table.add_column(ratio=1)
    for number, group in enumerate(groups):
        if number:
            table.add_row("", "")
        table.add_row("", Text(group.title, "bold underline"))
        for row in group.rows:
            what = Text(row.what)
            if row.more:
                what.append(f"  {row.more}", "dim")
            table.add_row(Text(row.keys, "bold"), what)
    return table


class KeysScreen(ModalScreen[None]):
    """The keys of the screen beneath; escape, ``?`` or F1 closes it."""

    BINDINGS = [Binding("escape,question_mark,f1,q", "dismiss", "Close")]

    def __init__(self, under: Screen[object]) -> None:
        super().__init__()
        self.groups = key_groups(under)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="keys", classes="dialog"):
            yield Label("Keys", classes="title")
            yield Static(_table(self.groups), id="keys-table")
            yield Label(
                "A key is listed, and in the footer, only while it does something. escape closes.",
                classes="hint",
            )

    def on_mount(self) -> None:
        self.query_one("#keys").focus()
