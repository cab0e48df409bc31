"""The values of secret options in configuration dumps and files, masked whole.

oslo.config's ``log_opt_values`` writes every option of a service at start-up
as ``group.name   = value`` (padded, a debug suffix after it), and a
configuration file pasted into a ticket has ``name = value`` lines; a value
may hold spaces (a passphrase), which the key-value rules of
``osdoctor.secrets.redact`` end at. When the option's name says it is a secret
(``osdoctor.secrets.secretnames``), everything after the ``=`` is masked, up to
oslo.log's ``log_opt_values <file>:<line>`` suffix when the line has one.
Linear in the line: the first ``=`` is looked at, and the name before it;
a command line's ``name=value`` among other words is left to ``osdoctor.secrets.redact``.
"""

from __future__ import annotations

from osdoctor.secrets.secretnames import MASK, is_secret_name

_NAME = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.")
_SUFFIX = " log_opt_values "


def mask_options(line: str, found: list[str] | None = None) -> str:
    """``line`` with the value of a secret option masked whole; else unchanged.
    ``found`` receives the value masked (so that it is masked wherever it shows)."""
    eq = line.find("=")
    if eq <= 0:
        return line
    end = eq
    while end > 0 and line[end - 1] == " ":
        end -= 1
    start = end
    while start > 0 and line[start - 1] in _NAME:
        start -= 1
    if start == end or (start > 0 and line[start - 1] not in " \t]"):
        return line
    # A dump's "name   = value", or a file's line (its start, or after a log
    # prefix's "] "); not a command line's name=value among other words.
    spaced = end < eq and line[eq + 1 : eq + 2] == " "
    if not spaced and start > 0 and line[max(start - 2, 0) : start] != "] ":
        return line
    name = line[start:end].rpartition(".")[2]
    if not name[:1].isalpha() and name[:1] != "_":
        return line
    if not is_secret_name(name):
        return line
    value_start = eq + 1
    while value_start < len(line) and line[value_start] == " ":
        value_start += 1
    tail = line.find(_SUFFIX, value_start)
    value_end = tail if tail >= 0 else len(line.rstrip("\r\n"))
    value = line[value_start:value_end]
    if not value.strip() or value == MASK:
        return line
    if value.startswith(MASK) and value[len(MASK) : len(MASK) + 1] in (";", ",", "&"):
        # Masked already, and a list goes on after it (heat's ``-P a=S;b=c``): the
        # earlier rule found where the value ends.
        return line
    if found is not None and MASK not in value:
        found.append(value.strip())
    return line[:value_start] + MASK + line[value_end:]
