"""What the redaction of a whole stream of lines knows that one line does not.

A line alone does not always say that it holds a secret:

- a list table's cell (``| AKIA... | S3cr3t... | ...``) is secret because of
  its column's header (Secret, Data, Blob...), printed lines above;
- a value printed bare (``-f value -c secret``), or an access key in a URL
  path, is secret because the same value was masked earlier, where a key
  named it (``"secret": "..."`` in the response body, the positional argument
  of ``ec2 credentials show``);
- a Heat parameter with a harmless name is secret because the template
  declares it ``hidden: true``;
- a list table's Value cell is secret because its row's Name cell names a
  secret (the other stream states: sibling fields across lines, a console's
  list of passwords, a wrapped token, are ``osdoctor.secrets.secretsiblings``',
  ``osdoctor.secrets.passwordlists``' and ``osdoctor.secrets.keymaterial``'s).

``Literals`` remembers the values masked so far (and those known from the
command a live run started) and masks them wherever they show again;
``TableColumns`` follows a table's borders and header; ``hidden_parameters``
reads the hidden parameters a template in a request body declares. All work
in time linear in the line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from osdoctor import regex
from osdoctor.secrets.secretnames import MASK, is_secret_name
from osdoctor.secrets.secretsiblings import field_role, names_a_secret

__all__ = ["Literals", "SecretMemory", "TableColumns", "Taught", "hidden_parameters"]

#: Shortest value remembered: shorter ones would mask ordinary words.
_MIN_LITERAL = 6
#: Values remembered at most; the oldest are forgotten first.
_MAX_LITERALS = 256
#: At most this many forms learnt since a result was remembered are looked for in
#: its line before it is used again (see ``StreamRedactor``).
_MAX_SINCE = 16
#: How much of each value the one-search test of ``Literals.mask`` looks for.
_PREFIX = 16
_HARMLESS = frozenset({"none", "null", "true", "false", "unset", "******", "<redacted>"})


def _worth_remembering(value: str) -> bool:
    """Long enough, and not a plain word that would mask the log's own words."""
    if len(value) < _MIN_LITERAL or MASK in value or value.lower() in _HARMLESS:
        return False
    return len(value) >= 10 or not value.isalpha()


#: URL-encoded forms already computed: a log of many runs hands its values on from
#: run to run, and ``quote`` cost more than all the rest of ``Literals.add``.
_QUOTED: dict[str, str] = {}
_QUOTED_MAX = 4096


def _quoted(value: str) -> str:
    form = _QUOTED.get(value)
    if form is None:
        if len(_QUOTED) >= _QUOTED_MAX:
            _QUOTED.clear()
        form = _QUOTED[value] = quote(value, safe="")
    return form


def _prefix_pattern(values: Iterable[str]) -> re.Pattern[str]:
    """One pattern that finds the head (``_PREFIX`` characters) of any of ``values``,
    written as a trie, so that a search costs about one step per character of the
    text however many values there are."""
    trie: dict[str, dict[str, Any]] = {}
    for value in values:
        node = trie
        for char in value[:_PREFIX]:
            node = node.setdefault(char, {})
        node[""] = {}

    def pattern(node: dict[str, Any]) -> str:
        if "" in node:
            return ""  # a head ends here: longer ones need not be looked for
        branches = [re.escape(char) + pattern(node[char]) for char in sorted(node)]
        return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"

    # ``re`` itself, not ``osdoctor.regex``: this pattern is made of a log's
    # secrets, which must never reach a cache file.
    return re.compile(pattern(trie))


#: The patterns made for the values of recent ``Literals`` (a new parser per run
#: takes the values of the one before).
_PATTERNS: dict[tuple[str, ...], re.Pattern[str]] = {}
_PATTERNS_MAX = 64


class Literals:
    """Secret values, each masked wherever it appears again (and its URL-encoded
    form). ``generation`` grows whenever a value is added, so that remembered
    results of redaction can be dropped."""

    __slots__ = ("_values", "_ordered", "_search", "_since", "generation", "learnt")

    def __init__(self, values: Iterable[str] = ()) -> None:
        self._values: dict[str, None] = {}
        self._ordered: tuple[str, ...] = ()
        self._search: Callable[[str], object] | None = None
        self._since: tuple[int, int, tuple[str, ...]] | None = None
        self.generation = 0
        self.learnt = 0
        """Forms ever added, the forgotten included: the forms held are always
        the last ``_MAX_LITERALS`` of them, so two counts say which are new."""
        self.add(values)

    def __bool__(self) -> bool:
        return bool(self._values)

    def __iter__(self) -> Iterator[str]:
        return iter(self._ordered)

    def add(self, values: Iterable[str]) -> None:
        added = False
        for raw in values:
            value = raw.strip().strip("'\"")
            if not _worth_remembering(value):
                continue
            for form in (value, _quoted(value)):
                if form not in self._values:
                    self._values[form] = None
                    self.learnt += 1
                    added = True
        if added:
            self._learnt()

    def _learnt(self) -> None:
        """Forget the oldest forms beyond the limit; the new set's order and search."""
        while len(self._values) > _MAX_LITERALS:
            del self._values[next(iter(self._values))]
        self._ordered = tuple(sorted(self._values, key=len, reverse=True))
        self._search = None
        self.generation += 1

    def mask(self, line: str) -> str:
        """``line`` with every value replaced, longest first. A line that holds the
        head of none of them (nearly every line) costs one search."""
        search = self._search
        if search is None:
            if not self._ordered:
                return line
            search = self._search = self._pattern().search
        if search(line) is None:
            return line
        for value in self._ordered:
            if value in line:
                line = line.replace(value, MASK)
        return line

    @classmethod
    def of_forms(cls, forms: Iterable[str]) -> Literals:
        """The set that holds exactly ``forms`` (from :meth:`forms`), none encoded
        again."""
        made = cls()
        made._values = dict.fromkeys(forms)
        made.learnt = len(made._values)
        if made._values:
            made._learnt()
        return made

    def since(self, learnt: int) -> tuple[str, ...] | None:
        """The forms added after the ``learnt``-th (see ``learnt``), or None when
        too many came since to tell (some may be forgotten already)."""
        fresh = self.learnt - learnt
        if fresh == 0:
            return ()
        if fresh < 0 or fresh > _MAX_SINCE or fresh > len(self._values):
            return None
        since = self._since
        if since is None or since[0] != self.learnt or since[1] != learnt:
            forms = tuple(self._values)[-fresh:]
            since = self._since = (self.learnt, learnt, forms)
        return since[2]

    def forms(self) -> tuple[str, ...]:
        """Every form held, in the order learnt: what :meth:`of_forms` takes back."""
        return tuple(self._values)

    def merge(self, other: Literals) -> None:
        """Hold also every form ``other`` holds, as it holds it. A form is copied,
        never encoded again: the URL-encoded form of an encoded form is no
        secret's form, and a log of many runs, each run learning what the one
        before knew, would otherwise fill the memory with ever deeper encodings
        and forget the real values. The forms keep the order ``other`` learnt
        them in, so that the first forgotten are the oldest learnt."""
        values = self._values
        if not values:
            if other._values:
                self._values = other._values.copy()
                self._ordered = other._ordered
                self._search = other._search
                self.generation += 1
                self.learnt = other.learnt
            return
        added = False
        for form in other._values:
            if form not in values:
                values[form] = None
                self.learnt += 1
                added = True
        if added:
            self._learnt()

    def _pattern(self) -> re.Pattern[str]:
        pattern = _PATTERNS.get(self._ordered)
        if pattern is None:
            if len(_PATTERNS) >= _PATTERNS_MAX:
                _PATTERNS.clear()
            pattern = _PATTERNS[self._ordered] = _prefix_pattern(self._ordered)
        return pattern


@dataclass(frozen=True, slots=True)
class Taught:
    """What the runs of a log before one taught of secrets (:meth:`SecretMemory.taught`),
    kept as what was learnt since the ``Taught`` before: a log of a hundred
    thousand runs, each learning a new token, would otherwise keep for every
    run a copy of up to ``_MAX_LITERALS`` forms."""

    before: Taught | None
    added: tuple[str, ...]
    """The forms learnt since ``before``, in the order learnt."""
    names: frozenset[str]
    learnt: int
    """``Literals.learnt`` when this was taken."""

    def forms(self) -> tuple[str, ...]:
        """The forms known then, in the order learnt: the last ``_MAX_LITERALS``."""
        parts: list[tuple[str, ...]] = []
        count = 0
        link: Taught | None = self
        while link is not None and count < _MAX_LITERALS:
            parts.append(link.added)
            count += len(link.added)
            link = link.before
        flat = tuple(form for part in reversed(parts) for form in part)
        return flat[-_MAX_LITERALS:]

    def __repr__(self) -> str:
        return f"Taught({self.learnt} forms learnt, {len(self.names)} names)"


_BORDER = regex.compile(r"[ \t]*\+(?:[-=]+\+)+[ \t]*")


class TableColumns:
    """Follows the tables a client prints (cliff's borders, header row, body rows)
    and masks the body cells of columns whose header names a secret, and the
    Value cell of a row whose Name cell names one (a list of name/value pairs,
    as ``baremetal node bios setting list`` prints it)."""

    __slots__ = ("_state", "_secret", "_bars", "_pair")

    _NONE, _TOP, _HEAD, _BODY = range(4)

    def __init__(self) -> None:
        self._state = self._NONE
        self._secret: tuple[int, ...] = ()
        self._bars = 0
        # The columns of names and of their values, when the header has both.
        self._pair: tuple[int, int] | None = None

    @property
    def active(self) -> bool:
        """True inside a table: its rows must be read in order, not remembered."""
        return self._state != self._NONE

    def feed(self, line: str, body: str) -> str:
        """``line`` (whose text without its line break is ``body``), its secret
        cells masked when it is a body row of a table with secret columns."""
        stripped = body.strip(" \t")
        if stripped.startswith("+") and _BORDER.fullmatch(body):
            if self._state == self._NONE:
                self._state = self._TOP
            elif self._state == self._HEAD:
                self._state = self._BODY
            else:
                self._state = self._NONE
            return line
        is_row = len(stripped) > 1 and stripped[0] == "|" and stripped[-1] == "|"
        if not is_row:
            if self._state in (self._TOP, self._HEAD):
                self._state = self._NONE
            return line
        if self._state == self._TOP:
            cells = body.split("|")[1:-1]
            self._bars = len(cells)
            self._secret = tuple(
                index for index, cell in enumerate(cells) if _secret_column(cell.strip())
            )
            roles = [field_role(cell.strip()) for cell in cells]
            self._pair = (
                (roles.index("name"), roles.index("value"))
                if "name" in roles and "value" in roles
                else None
            )
            self._state = self._HEAD
            return line
        if self._state == self._BODY and (self._secret or self._pair):
            return self._mask_row(line, body)
        return line

    def _mask_row(self, line: str, body: str) -> str:
        parts = body.split("|")
        cells = parts[1:-1]
        secret: Iterable[int] = self._secret
        if len(cells) != self._bars:
            # A cell holds a bar of its own: mask from the first secret column on.
            columns = [*self._secret, *(self._pair[1:] if self._pair else ())]
            first = min(columns)
            cells = cells[:first] + ["|".join(cells[first:])]
            secret = (first,)
        elif self._pair is not None and names_a_secret(cells[self._pair[0]]):
            secret = (*self._secret, self._pair[1])
        changed = False
        for index in secret:
            cell = cells[index]
            inner = cell.strip(" \t")
            if not inner or inner.lower() in _HARMLESS or inner == MASK:
                continue
            width = len(cell)
            masked = f" {MASK} "
            cells[index] = masked + " " * max(0, width - len(masked))
            changed = True
        if not changed:
            return line
        return "|".join([parts[0], *cells, parts[-1]]) + line[len(body) :]


def _secret_column(header: str) -> bool:
    return header.lower() not in ("key", "keys") and is_secret_name(header, allow_data=True)


#: A JSON object member whose value is a flat object (a parameter's declaration).
_MEMBER = regex.compile(r"\"(?P<name>[^\"\\]{1,128})\"[ \t]*:[ \t]*\{(?P<body>[^{}]*)\}")
_HIDDEN = regex.compile(r"\"hidden\"[ \t]*:[ \t]*true")
_DEFAULT = regex.compile(
    r"\"default\"[ \t]*:[ \t]*(?:\"(?P<text>(?:[^\"\\]|\\.)*)\"|(?P<bare>[^,}\s]+))"
)


def hidden_parameters(line: str) -> tuple[list[str], list[str]]:
    """The parameters a template in ``line`` (a request body: Heat's POST or PUT
    of a stack, its preview or validation) declares ``hidden: true``, and their
    defaults."""
    names: list[str] = []
    defaults: list[str] = []
    if "hidden" not in line:
        return names, defaults
    for member in _MEMBER.finditer(line):
        body = member["body"]
        if not _HIDDEN.search(body):
            continue
        names.append(member["name"])
        default = _DEFAULT.search(body)
        if default is not None:
            defaults.append(default["text"] if default["text"] is not None else default["bare"])
    return names, defaults


class SecretMemory:
    """What the redactors of one log's streams (stdout, stderr) learn together:
    values masked so far and secret names read from templates."""

    __slots__ = ("literals", "names")

    def __init__(self, values: Iterable[str] = ()) -> None:
        self.literals = Literals(values)
        self.names: frozenset[str] = frozenset()

    @property
    def generation(self) -> int:
        """Grows whenever something is learnt: results remembered before are stale."""
        return self.literals.generation

    def update(self, other: SecretMemory) -> None:
        """Learn all that ``other`` knows."""
        self.literals.merge(other.literals)
        self.learn_names(other.names)

    def taught(self, before: Taught | None) -> Taught | None:
        """What was learnt (the forms in the order learnt, and the names), linked
        to ``before`` (what this memory knew when ``before`` was taken) and
        holding only what was learnt since; ``before`` itself when nothing was."""
        literals = self.literals
        if before is None:
            if not literals and not self.names:
                return None
            return Taught(None, literals.forms(), self.names, literals.learnt)
        if literals.learnt == before.learnt and self.names == before.names:
            return before
        forms = literals.forms()
        fresh = literals.learnt - before.learnt
        names = before.names if self.names == before.names else self.names
        if fresh > len(forms):  # all that was known before is forgotten
            return Taught(None, forms, names, literals.learnt)
        return Taught(before, forms[len(forms) - fresh :], names, literals.learnt)

    def recall(self, taught: Taught | None) -> None:
        """Learn what :meth:`taught` gave: a run read again alone still masks what
        the runs before it taught."""
        if taught is not None:
            self.literals.merge(Literals.of_forms(taught.forms()))
            self.learn_names(taught.names)

    def learn_names(self, names: Iterable[str]) -> None:
        merged = self.names.union(names)
        if merged != self.names:
            self.names = frozenset(merged)
            self.literals.generation += 1
