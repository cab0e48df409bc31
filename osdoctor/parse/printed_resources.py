"""Resources a ``show`` or a ``list`` printed, in every ``-f`` format.

What a resource's state says (a server's ``fault``, a node's ``last_error``, a
stack's ``stack_status_reason``, a cluster's ``status_reason``, a service
``down``) is often the only cause a ticket holds. cliff prints the same
columns in each of its formatters, and people paste them in all:

- ``table`` (the default): a ``Field | Value`` table for a ``show`` (legacy
  clients say ``Property | Value``), a cell that wraps going on in rows whose
  field is empty; a list's header row names its columns. Pastes keep only some
  rows, or lose the left border.
- ``-f yaml``: ``key: value`` lines, a long value folded onto indented lines,
  quoted values running over several; a list is a sequence of ``- key: value``.
- ``-f json``: an object (a list of them for a list), one key a line.
- ``-f shell``: ``key="value"``.
- ``-f value``: bare values, in the order of the resource's columns (osc sorts a
  ``show``'s fields by name), named by the command's ``-c`` options.
- Heat's event lines (``2026-11-01 12:00:03Z <id> [web.r1]: CREATE_FAILED
  reason``, printed by ``stack create --wait`` and ``stack event list -f log``;
  heatclient's ``event_log_formatter`` and tripleoclient's print no id),
  its ``Stack web CREATE_FAILED``, ironicclient's ``Node X failed to reach
  state manageable. It's in state inspect failed, and has error: ...``, and the
  words of tools that drive Ironic (terraform's provider, the OpenShift installer,
  metal3's events).

Each resource keeps every field with its line, the command that printed it (the
last command line before it), and its type from that command or its own fields.
Reading is one pass over the printed lines.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from osdoctor import regex
from osdoctor.model import (
    Command,
    Message,
    Resource,
    ResourceField,
    ResourceForm,
    Trace,
    line_quote,
)
from osdoctor.parse.wraps import FOLD_MIN as _FOLD_MIN
from osdoctor.parse.wraps import unfold

#: Resources kept per trace at most (the first ones): a list of thousands of rows
#: says no more than its first.
MAX_RESOURCES = 400
#: Fields whose name says they hold a state or why it is so: a block of
#: ``key: value`` lines is a resource only when one of its keys is such a field.
STATE_KEYS = frozenset(
    {
        "status",
        "state",
        "fault",
        "last_error",
        "status_reason",
        "stack_status",
        "stack_status_reason",
        "resource_status",
        "resource_status_reason",
        "provision_state",
        "provisioning_state",
        "provisioning_status",
        "operating_status",
        "power_state",
        "task_state",
        "vm_state",
        "locked",
        "maintenance",
        "maintenance_reason",
        "health_status",
        "health_status_reason",
        "alive",
        "migration_status",
        "replication_status",
    }
)
_BORDER = regex.compile(r"^\+[-=+]+\+?\s*$")
_YAML_KEY = regex.compile(r"^(?P<dash>- )?(?P<key>[a-z_][\w:.\-]*): ?(?P<value>.*)$")
_SHELL = regex.compile(r'^(?P<key>[a-z_][\w]*)="(?P<value>.*)"\s*$')
_SHELL_OPEN = regex.compile(r'^[a-z_][\w]*="')
# A row of a table whose left border the paste lost: "fault     | {...".
_BORDERLESS_FIELD = regex.compile(
    r"^(?P<field>[A-Za-z][\w:. \-]{0,40}?) {2,}\| (?P<value>.*?)\s*\|?$"
)
_EVENT = regex.compile(
    r"^(?P<time>\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d\S*) (?:(?P<id>[0-9a-f-]{8,}) )?"
    r"\[(?P<res>[^\]]+)\]: (?P<status>[A-Z]+_[A-Z_]+)\s*(?P<reason>.*)$"
)
_STACK_STATUS = regex.compile(r"^\s*Stack (?P<name>\S+) (?P<status>[A-Z]+_(?:FAILED|COMPLETE))\s*$")
_NODE_FAILED = regex.compile(
    r"^Node (?P<node>\S+) failed to reach (?:state|target provision state) (?P<target>[\w ]+?)\. "
    r"It's in state (?P<state>[\w ]+?)(?:, and has error: (?P<error>.*))?\.?$"
)
# Tools that drive Ironic say a node's state in their own words: terraform's
# ironic provider ("could not inspect node, node is currently 'inspect failed', last
# error was '...'", its provisioning workflow), and the OpenShift installer's
# progress for a metal3 host ("baremetalhost: master-0: inspection error: ...").
_NODE_CURRENTLY = regex.compile(
    r"^.*?\bcould not \w+ node, node is currently '(?P<state>[^']+)', "
    r"last error was '(?P<error>.*?)'?\"?\s*$"
)
_HOST_ERROR = regex.compile(
    r"^(?:[A-Z]+\s+)?baremetalhost: (?P<node>[\w.\-]+): (?P<what>\w+) error: (?P<error>.+)$"
)
# metal3's baremetal-operator records each host's Ironic error as a Kubernetes event
# (kubectl describe bmh): "Normal  InspectionError  7m12s  metal3-baremetal-controller
# timeout reached while inspecting the node"; a paste may wrap its message.
_BMH_EVENT = regex.compile(
    r"^\s*(?:Normal|Warning)\s+(?P<reason>[A-Z][A-Za-z]*Error)\s+.*?"
    r"\bmetal3-baremetal-controller\s+(?P<error>\S.*?)\s*$"
)
#: The client's words that state a resource's state, and the fields each group gives.
_SAID = (
    (_STACK_STATUS, (("stack_name", "name"), ("stack_status", "status"))),
    (
        _NODE_FAILED,
        (
            ("uuid", "node"),
            ("provision_state", "state"),
            ("target_provision_state", "target"),
            ("last_error", "error"),
        ),
    ),
    (_NODE_CURRENTLY, (("provision_state", "state"), ("last_error", "error"))),
    (_HOST_ERROR, (("name", "node"), ("last_error", "error"))),
    (_BMH_EVENT, (("last_error", "error"),)),
)
_NODE_WORDS = (_NODE_CURRENTLY, _HOST_ERROR, _BMH_EVENT)
_COLUMN = regex.compile(r"(?:^|\s)(?:-c|--column)[ =](?P<c>\S+)")
_FORMAT = regex.compile(r"(?:^|\s)(?:-f|--format)[ =](?P<f>\w+)")
# What the command's words say the resource is: "openstack baremetal node show" is a
# node, "openstack coe cluster show" a cluster, "nova show" a server.
_TYPE_WORDS = regex.compile(
    r"^(?:openstack|baremetal|ironic|heat|nova|cinder|neutron|glance|magnum|manila|"
    r"designate|octavia|swift)\b(?:\s+--?\S+(?:[ =](?!-)\S+)?)*\s+(?P<words>[a-z][a-z -]*)"
)
_VERBS = frozenset(
    {
        "show",
        "list",
        "create",
        "delete",
        "set",
        "unset",
        "update",
        "add",
        "remove",
        "start",
        "stop",
        "reboot",
        "rebuild",
        "resize",
        "lock",
        "unlock",
        "manage",
        "provide",
        "inspect",
        "deploy",
        "undeploy",
        "clean",
        "adopt",
        "abandon",
        "check",
        "resume",
        "suspend",
        "cancel",
        "power",
        "stat",
        "upload",
        "download",
        "migrate",
        "evacuate",
        "shelve",
        "unshelve",
        "rescue",
        "unrescue",
        "backup",
        "restore",
        "extend",
        "retype",
    }
)
_LEGACY_TYPES = {
    "nova": "server",
    "cinder": "volume",
    "glance": "image",
    "heat": "stack",
    "ironic": "node",
    "magnum": "cluster",
    "neutron": "network",
    "manila": "share",
}
_ALIASES = {
    "baremetal node": "node",
    "baremetal port": "port",
    "coe cluster": "cluster",
    "coe cluster template": "cluster template",
    "compute service": "service",
    "volume service": "service",
    "network agent": "agent",
    "loadbalancer": "load balancer",
    "net": "network",
    "stack resource": "stack resource",
    "resource": "stack resource",
    "stack failures": "stack resource",  # each failed resource of the stack
    "event": "stack event",
}
_FIELD_TYPES = (
    ("provision_state", "node"),
    ("stack_status", "stack"),
    # a paste that kept only the reason's rows of a stack show
    ("stack_status_reason", "stack"),
    ("resource_status", "stack resource"),
    ("resource_type", "stack resource"),
    ("provisioning_status", "load balancer"),
    ("binary", "service"),
    ("agent_type", "agent"),
    ("coe_version", "cluster"),
    ("task_state", "server"),
    ("vm_state", "server"),
)
#: The columns of well-known lists, for rows pasted without their header.
_LAYOUTS = {
    "service": ["ID", "Binary", "Host", "Zone", "Status", "State", "Updated At"],
    "agent": ["ID", "Agent Type", "Host", "Availability Zone", "Alive", "State", "Binary"],
    "server": ["ID", "Name", "Status", "Networks", "Image", "Flavor"],
    "node": ["UUID", "Name", "Instance UUID", "Power State", "Provisioning State", "Maintenance"],
}
_NO_VALUE = frozenset({"", "none", "null", "-", "[]", "{}", "''"})


def type_of_command(command: str) -> str:
    """The resource type a command line acts on, or ""."""
    words = command.split()
    if not words:
        return ""
    program = words[0].rsplit("/", 1)[-1]
    if program in _LEGACY_TYPES:
        verb = next((w for w in words[1:] if not w.startswith("-")), "")
        noun = verb.partition("-")[0] if "-" in verb else ""
        if program == "heat" and noun in ("resource", "event"):
            return f"stack {noun}"
        if noun in ("backup", "snapshot", "service", "port", "node", "cluster", "agent"):
            return noun
        return _LEGACY_TYPES[program]
    m = _TYPE_WORDS.match(command)
    if m is None:
        return ""
    nouns: list[str] = []
    for word in m.group("words").split():
        if word in _VERBS:
            break
        nouns.append(word)
    noun = " ".join(nouns)
    return (
        _ALIASES.get(noun, nouns[-1] if nouns else "") if noun not in _ALIASES else _ALIASES[noun]
    )


def _type_of(resource: Resource) -> str:
    for key, kind in _FIELD_TYPES:
        if resource.get(key) is not None:
            return kind
    return ""


def _is_resource(resource: Resource) -> bool:
    return any(f.key in STATE_KEYS for f in resource.fields)


#: Fields no other program's output names: a resource that has one is OpenStack's.
_OWN_KEYS = frozenset(
    {
        "fault",
        "last_error",
        "provision_state",
        "stack_status",
        "stack_status_reason",
        "resource_status",
        "resource_status_reason",
        "task_state",
        "vm_state",
        "provisioning_status",
        "operating_status",
        "status_reason",
    }
)
_STATE_WORD = regex.compile(r"^[A-Z]+(?:_[A-Z]+)*$")


def is_openstack(resource: Resource) -> bool:
    """Whether a resource is plainly an OpenStack client's output, not any ``key:
    value`` text: its command or fields say its type, it has a field only
    OpenStack resources have, or it states its status in OpenStack's words beside
    other fields."""
    if resource.type or any(f.key in _OWN_KEYS for f in resource.fields):
        return True
    status = resource.get("status")
    return status is not None and len(resource.fields) > 1 and bool(_STATE_WORD.match(status.value))


def _cells(text: str) -> list[str]:
    body = text.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|"):
        body = body[:-1]
    return [c.strip() for c in body.split("|")]


class _Reader:
    """One pass over a trace's printed lines."""

    def __init__(self, trace: Trace) -> None:
        self.trace = trace
        self.out: list[Resource] = []
        self._commands: list[Command] = sorted(trace.commands, key=lambda c: c.line)
        self._at = 0
        self.command = trace.command or ""

    def command_at(self, line: int) -> str:
        """The last command line before ``line``."""
        commands = self._commands
        while self._at < len(commands) and commands[self._at].line <= line:
            self.command = commands[self._at].text
            self._at += 1
        return self.command

    def keep(self, resource: Resource, command: str) -> None:
        if not resource.fields or len(self.out) >= MAX_RESOURCES:
            return
        resource.command = command
        resource.type = type_of_command(command) or _type_of(resource)
        if (
            command
            and type_of_command(command) in ("server", "stack")
            and _type_of(resource)
            in (
                "service",
                "stack resource",
            )
        ):
            resource.type = _type_of(resource)
        self.out.append(resource)

    # -- tables -------------------------------------------------------------
    def table(self, rows: list[Message], command: str) -> None:
        """A table's lines (borders, header, rows), or rows a paste kept."""
        header: list[str] | None = None
        body = [m for m in rows if not _BORDER.match(m.text.strip())]
        if len(rows) >= 3 and _BORDER.match(rows[0].text.strip()) and body:
            after = rows.index(body[0]) + 1
            if after < len(rows) and _BORDER.match(rows[after].text.strip()):
                header = _cells(body[0].text)
                body = body[1:]
        if header is not None and [h.lower() for h in header[:2]] in (
            ["field", "value"],
            ["property", "value"],
            ["attribute", "value"],  # the Rust osc's show (structable)
        ):
            header = None
        if header is None and body and all(len(_cells(m.text)) <= 2 for m in body):
            self._show(body, command, "table")
            return
        if header is None:
            header = _LAYOUTS.get(type_of_command(command))
        if header is None:
            return
        for m in body:
            cells = _cells(m.text)
            if len(cells) != len(header):
                continue
            fields = [
                ResourceField(h, c, m.line, line_quote(m.text))
                for h, c in zip(header, cells, strict=True)
            ]
            self.keep(Resource(m.line, "row", fields), command)

    def _show(self, rows: list[Message], command: str, form: ResourceForm) -> None:
        resource = Resource(rows[0].line, form)
        last: ResourceField | None = None
        for m in rows:
            cells = _cells(m.text)
            name, value = (cells[0], cells[1]) if len(cells) == 2 else ("", cells[0])
            if not name and last is not None:
                last.value = f"{last.value} {value}".strip()  # a wrapped cell goes on
                continue
            if name:
                last = ResourceField(name, value, m.line, line_quote(m.text))
                resource.fields.append(last)
        self.keep(resource, command)

    # -- key: value forms ---------------------------------------------------
    def yaml(self, lines: list[Message], command: str) -> None:
        resource = Resource(lines[0].line, "yaml")
        last: ResourceField | None = None
        quote = ""
        nested = 0  # the indent of a mapping's fields under its name's line
        for m in lines:
            text = m.text
            if quote and last is not None:
                piece = text.strip()
                last.value = f"{last.value} {piece}".strip()
                if piece.endswith(quote) and not piece.endswith(quote * 2):
                    last.value = last.value[:-1]
                    quote = ""
                continue
            km = _YAML_KEY.match(text)
            inner = text.lstrip(" \t")
            indent = len(text) - len(inner)
            if km is None and indent and (nested == indent or (not nested and _heads(resource))):
                # heat's "stack failures list": each failed resource is named on a line
                # of its own ("<stack>.<resource>:"), its fields indented under it
                km = _YAML_KEY.match(inner)
                if km is not None and not km.group("dash"):
                    if not nested and last is not None:
                        last.name, last.value = "resource_name", last.name
                    nested = indent
            elif km is not None and nested:
                nested = 0
                self.keep(resource, command)
                resource = Resource(m.line, "yaml")
            if km is None:
                if last is not None and text[:1] in (" ", "\t"):
                    last.value = f"{last.value} {text.strip()}".strip()
                continue
            if km.group("dash") and last is not None and not last.value:
                # "security_groups:" then "- name: default": a list inside the field
                last.value = text.strip()
                continue
            if km.group("dash") and resource.fields:
                self.keep(resource, command)
                resource = Resource(m.line, "yaml")
            value = km.group("value").strip()
            quote = ""
            if value in ("|", ">", "|-", ">-"):
                value = ""  # a block scalar: its lines follow, indented
            if value[:1] in ("'", '"'):
                if len(value) > 1 and value.endswith(value[0]):
                    value = value[1:-1]
                else:
                    quote, value = value[0], value[1:]
            last = ResourceField(km.group("key"), value, m.line, line_quote(m.text))
            resource.fields.append(last)
        self.keep(resource, command)

    def shell(self, lines: list[Message], command: str) -> None:
        resource = Resource(lines[0].line, "shell")
        open_at: Message | None = None
        text = ""
        for m in lines:
            if open_at is not None:
                text += m.text  # a value a terminal folded: its quote closes later
            else:
                open_at, text = m, m.text.strip()
            sm = _SHELL.match(text)
            if sm is not None:
                resource.fields.append(
                    ResourceField(
                        sm.group("key"), sm.group("value"), open_at.line, line_quote(open_at.text)
                    )
                )
                open_at = None
            elif not _SHELL_OPEN.match(text):
                open_at = None
        self.keep(resource, command)

    def json(self, lines: list[Message], command: str) -> None:
        try:
            data = json.loads("\n".join(m.text for m in lines))
        except ValueError:
            return
        items = data if isinstance(data, list) else [data]
        for item in items:
            if not isinstance(item, dict):
                continue
            resource = Resource(lines[0].line, "json")
            for key, value in item.items():
                text = value if isinstance(value, str) else json.dumps(value)
                at = next((m for m in lines if f'"{key}"' in m.text), lines[0])
                resource.fields.append(ResourceField(str(key), text, at.line, line_quote(at.text)))
            self.keep(resource, command)

    def values(self, lines: list[Message], command: str) -> None:
        """``-f value -c a -c b``: one value a line, the columns in the resource's order."""
        columns = sorted(cm.group("c") for cm in _COLUMN.finditer(command))
        if columns and len(lines) > len(columns):
            lines = _refolded(lines, len(columns))
        if not columns or len(lines) != len(columns) or " list" in command:
            return
        resource = Resource(lines[0].line, "value")
        for column, m in zip(columns, lines, strict=True):
            resource.fields.append(
                ResourceField(column, m.text.strip(), m.line, line_quote(m.text))
            )
        self.keep(resource, command)

    # -- words ----------------------------------------------------------------
    def words(self, m: Message, command: str) -> bool:
        """A line that states a resource's state in words; True when it was one."""
        text = m.text.strip()
        em = _EVENT.match(text)
        if em is not None:
            stack, _dot, name = em.group("res").partition(".")
            fields = [
                ResourceField("stack_name", stack, m.line, line_quote(m.text)),
                ResourceField("resource_name", name or stack, m.line, line_quote(m.text)),
                ResourceField("resource_status", em.group("status"), m.line, line_quote(m.text)),
                ResourceField(
                    "resource_status_reason", em.group("reason").strip(), m.line, line_quote(m.text)
                ),
            ]
            resource = Resource(m.line, "event", fields)
            self.keep(resource, "")
            resource.type = "stack resource" if name else "stack"
            resource.command = command
            return True
        for rx, names in _SAID:
            sm = rx.match(text)
            if sm is not None:
                fields = [
                    ResourceField(name, sm.group(group).strip(), m.line, line_quote(m.text))
                    for name, group in names
                    if sm.group(group)
                ]
                resource = Resource(m.line, "words", fields)
                self.keep(resource, command)
                if rx in _NODE_WORDS and not resource.type:
                    resource.type = "node"  # the tools' words are about an Ironic node
                return True
        return False


def _heads(resource: Resource) -> bool:
    """Whether a YAML block so far is only the line naming a mapping (``key:``)."""
    return len(resource.fields) == 1 and not resource.fields[0].value


def _blocks(messages: list[Message], commands: set[int]) -> Iterator[tuple[str, list[Message]]]:
    """Runs of adjacent printed lines of one form: (form, lines). A command line
    (``commands``: the lines that name one) ends a run; a poster's elision ends any
    but a table's (the rows a paste kept apart)."""
    form = ""
    block: list[Message] = []
    depth = 0
    for m in messages:
        if m.kind == "elision" and form == "table" and m.line not in commands:
            continue
        text = m.text
        kind = _form_of(m, form, depth)
        if form == "yaml" and kind != "yaml" and block and _folded_on(block[-1].text, text):
            kind = "yaml"  # an indented value a terminal folded back to column 0
        if kind == "json":
            depth += text.count("{") + text.count("[") - text.count("}") - text.count("]")
        gap = bool(block) and m.line > block[-1].last_line + 1 and kind != "table"
        if block and (kind != form or gap):
            yield form, block
            block = []
        form = kind
        if kind:
            block.append(m)
        if kind == "json" and depth <= 0:
            yield form, block
            block, form, depth = [], "", 0
    if block:
        yield form, block


def _form_of(m: Message, current: str, depth: int) -> str:
    """The form a printed line belongs to, given the block under way."""
    text = m.text
    if m.kind == "output":
        return "table"
    if m.kind not in ("text", "warning"):
        return ""
    if current == "json" and depth > 0:
        return "json"
    if current == "table" and text.startswith("        ") and "|" not in text:
        return "table"  # a cell a paste re-wrapped onto indented lines of its own
    first = text[:1]
    if first in ("{", "[") and text.rstrip()[-1:] in ("{", "[", "}", "]"):
        return "json" if first == "{" or text.strip() == "[" else ""
    if current == "yaml" and (first in (" ", "\t") or _YAML_KEY.match(text)):
        return "yaml"
    if _YAML_KEY.match(text) and not text.startswith(("http:", "https:")):
        return "yaml"
    if _SHELL.match(text.strip()) or (current == "shell" and not _YAML_KEY.match(text)):
        return "shell"
    if _SHELL_OPEN.match(text):
        return "shell"
    if _BORDERLESS_FIELD.match(text) or (text.count(" | ") >= 2 and "|" not in text[:1]):
        return "table"
    return "value"


def read_resources(trace: Trace) -> list[Resource]:
    """Every resource the trace's printed lines show, in order."""
    reader = _Reader(trace)
    # -f value prints a repr ({...}) as bare as any value: a command's lines are
    # its values, whatever they look like, read once its output ends.
    values: list[Message] = []
    values_of = ""
    for form, block in _blocks(trace.messages, {c.line for c in trace.commands}):
        command = reader.command_at(block[0].line)
        if values and command != values_of:
            reader.values(values, values_of)
            values = []
        fmt = _FORMAT.search(command)
        if form != "table" and fmt is not None and fmt.group("f") == "value":
            if form == "value":
                block = _unfolded_block(block)
            values.extend(m for m in block if not reader.words(m, command))
            values_of = command
        elif form == "value":
            for m in _unfolded_block(block):
                reader.words(m, command)
        elif form == "table":
            reader.table(block, command)
        elif form == "yaml":
            reader.yaml(_unfolded_yaml(block), command)
        elif form == "shell":
            reader.shell(block, command)
        elif form == "json":
            reader.json(block, command)
    if values:
        reader.values(values, values_of)
    return [r for r in reader.out if _is_resource(r) or r.form == "value"]


def _refolded(lines: list[Message], count: int) -> list[Message]:
    """``-f value`` lines that a terminal folded, joined back to ``count`` values: a
    line as long as the block's longest goes on on the next."""
    width = max(len(m.text) for m in lines)
    out: list[Message] = []
    for at, m in enumerate(lines):
        prev = out[-1] if out else None
        if prev is not None and len(out) + (len(lines) - at) > count:
            if width >= _FOLD_MIN and len(prev.text) % width == 0:
                out[-1] = Message(prev.line, "text", prev.text + m.text, last_line=m.line)
                continue
        out.append(m)
    return out


#: The piece after a fold inside a sentence: a word, or the space the fold fell on.
_GOES_ON = regex.compile(r"^ ?[a-z(]")
_ENDS_SENTENCE = ".!?:;,\"')]}|"


def _folded_on(last: str, text: str) -> bool:
    """Whether ``text`` is the rest of ``last``, an indented YAML value a terminal
    folded: it stops inside a sentence and the next piece goes on in lower case at
    column 0, where YAML would have it end the block."""
    return (
        last[:1] in (" ", "\t")
        and len(last) >= _FOLD_MIN
        and last[-1:] not in _ENDS_SENTENCE
        and _GOES_ON.match(text) is not None
        and _YAML_KEY.match(text) is None
    )


def _unfolded_yaml(block: list[Message]) -> list[Message]:
    """A YAML block with each folded value joined back (``_folded_on``)."""
    out: list[Message] = []
    for m in block:
        prev = out[-1] if out else None
        if prev is not None and _folded_on(prev.text, m.text):
            out[-1] = Message(prev.line, prev.kind, prev.text + m.text, last_line=m.line)
            continue
        out.append(m)
    return out if len(out) != len(block) else block


def _unfolded_block(block: list[Message]) -> list[Message]:
    """A block of words with the pieces of a line a terminal folded joined (see
    ``wraps.unfold``). A long line folded once shows no width; it still shows
    the fold when it stops inside a sentence and the next line goes on in
    lower case (``... and has error: Failed to`` then `` inspect hardware. ...``,
    ``... Reason: unabl`` then ``e to start ...``)."""
    joined = unfold([(m.line, m.text) for m in block])
    out: list[tuple[int, str]] = []
    for line, text in joined:
        if out:
            last_line, last = out[-1]
            if _BMH_EVENT.match(last) and not _BMH_EVENT.match(text) and text[:1] != " ":
                out[-1] = (last_line, f"{last.rstrip()} {text.strip()}")  # its message, wrapped
                continue
            if (
                len(last) >= _FOLD_MIN
                and last[-1:] not in _ENDS_SENTENCE
                and _GOES_ON.match(text)  # a block's lines are consecutive
            ):
                out[-1] = (last_line, last + text)
                continue
        out.append((line, text))
    if len(out) == len(block):
        return block
    return [Message(line, "text", text, last_line=line) for line, text in out]
