"""Random secrets in every shape and position a log holds them, for property tests.

A ``ShapedLog`` is a real client log's head and tail (a captured fixture) with,
between them, one line or a few for each position: a request body, a header, a
query parameter, a table cell, a terminal-wrapped token, a dotted key, a
sibling field (in one line, in indented JSON either way round, in Field/Value
rows), an env dump, a URL's userinfos, curl's ``-u``, a console's list of
passwords, and the safety net's own cases: a generated password or key under a
name no rule knows, in a body, a table and a pasted config. Each position has
its own secret; ``leaks`` says which of them (or which long piece of one) a
text shows.

Secrets are drawn from a seed with ``random`` (a password generator's draw, not
Hypothesis's own text, which favours repeated characters no generator makes)
and each holds a random part, so that none can occur in the log by chance.
"""

from __future__ import annotations

import base64
import random
import string
from dataclasses import dataclass
from pathlib import Path

from hypothesis import strategies as st

from tests.secret_corpus import LOGS

__all__ = ["ShapedLog", "pane_lines", "shaped_logs"]

_ALNUM = string.ascii_letters + string.digits
_WORDS = "correct horse battery staple purple monkey dishwasher orange kite".split()
#: A piece of a secret this long must not show either (a secret masked in part).
PIECE = 12
#: The real capture whose head and tail hold the generated lines.
FRAME = LOGS / "generic.secret-os-password.log"

#: Names no rule knows (the safety net's cases).
_UNKNOWN_NAMES = ("cluster_seed", "rotation_material", "bootstrap_blob", "init_vector_x")
#: Query parameters secret by family.
_QUERY_NAMES = (
    "X-Goog-Signature",
    "X-Goog-Credential",
    "X-Amz-Signature",
    "X-Amz-Security-Token",
    "temp_url_sig",
    "sig",
    "signature",
    "token",
)
_NAMED_KEYS = (
    "password",
    "HeatAuthEncryptionKey",
    "RabbitCookie",
    "KeystoneFernetKey0",
    "PacemakerRemoteAuthkey",
    "SwiftHashSuffix",
    "application_credential_secret",
    "db_password",
)
_SIBLING_NAMES = ("admin_password", "db_password", "rabbit_cookie", "SetupPassword")
_WIDTHS = (80, 100, 120)


def _word_secret(draw: random.Random) -> str:
    """A passphrase: words, and a random number no log holds."""
    words = draw.sample(_WORDS, 3)
    words.insert(draw.randrange(4), str(draw.randrange(10**6, 10**7)))
    return " ".join(words)


def _plain_secret(draw: random.Random) -> str:
    """A password as people choose them: not random enough for the safety net."""
    return (
        draw.choice(("Fake", "Lab", "Pw"))
        + "-"
        + "-".join(str(draw.randrange(10**5, 10**6)) for _ in range(2))
    )


def _random_secret(draw: random.Random) -> str:
    """A generator's password: 32 letters and digits."""
    return "".join(draw.choices(_ALNUM, k=32))


def _random_key(draw: random.Random) -> str:
    """Key material: 32 random bytes in base64 or base64url."""
    raw = draw.randbytes(32)
    return (base64.urlsafe_b64encode if draw.random() < 0.5 else base64.b64encode)(raw).decode()


@dataclass(frozen=True)
class ShapedLog:
    """A log with a secret in each position, and what each secret is."""

    text: str
    secrets: dict[str, str]
    """Position -> the secret placed there."""

    def leaks(self, shown: str) -> list[str]:
        """The positions whose secret, or a piece of it, ``shown`` holds."""
        found = []
        for position, secret in self.secrets.items():
            pieces = {secret} | {
                secret[at : at + PIECE] for at in range(0, max(1, len(secret) - PIECE + 1))
            }
            if any(piece in shown for piece in pieces if len(piece) >= 8):
                found.append(position)
        return found


def _frame() -> tuple[list[str], list[str]]:
    lines = FRAME.read_text(encoding="utf-8").splitlines()
    end = next(i for i, line in enumerate(lines) if line.startswith("END return value"))
    return lines[:end], lines[end:]


def build(seed: int) -> ShapedLog:
    """The log for ``seed``: every position, each with a fresh secret."""
    draw = random.Random(seed)
    secrets: dict[str, str] = {}
    lines: list[str] = []

    def place(position: str, secret: str, *shaped: str) -> None:
        secrets[position] = secret
        lines.extend(shaped)

    named = draw.choice((_plain_secret, _word_secret))
    key = draw.choice(_NAMED_KEYS)
    secret = named(draw)
    place("body", secret, f'RESP BODY: {{"stack": {{"parameters": {{"{key}": "{secret}"}}}}}}')
    secret = _plain_secret(draw).replace("-", "")
    place(
        "header",
        secret,
        f'REQ: curl -g -i -X GET http://127.0.0.1:8004/v1/stacks -H "X-Auth-Token: {secret}" '
        '-H "Accept: application/json"',
    )
    secret = _random_secret(draw)
    name = draw.choice(_QUERY_NAMES)
    place(
        "query",
        secret,
        f"--uri https://storage.example.com/b/img.qcow2?X-Goog-Date=20261101T120000Z&{name}="
        f"{secret}&X-Goog-Expires=900",
    )
    secret = named(draw)
    place("table cell", secret, f"| {draw.choice(('secret', 'password', 'blob'))} | {secret} |")
    token = "gAAAAAB" + base64.urlsafe_b64encode(draw.randbytes(draw.randrange(120, 180))).decode()
    token = token.rstrip("=")
    width = draw.choice(_WIDTHS)
    place("wrapped token", token, *(token[at : at + width] for at in range(0, len(token), width)))
    secret = named(draw)
    place(
        "dotted key",
        secret,
        draw.choice(
            (f'  "auth.password": "{secret}",', f"auth.application_credential_secret: {secret}")
        ),
    )
    secret = named(draw)
    output = draw.choice(_SIBLING_NAMES)
    place(
        "sibling, one line",
        secret,
        f'RESP BODY: {{"output": {{"output_key": "{output}", "description": "Generated", '
        f'"output_value": "{secret}"}}}}',
    )
    secret = named(draw)
    pair = [f'    "output_key": "{output}",', f'    "output_value": "{secret}",']
    draw.shuffle(pair)
    place("sibling, indented JSON", secret, "{", f'  "{output}": {{', *pair, "  }", "}")
    secret = named(draw)
    place(
        "sibling, Field/Value rows",
        secret,
        "+--------------+----------------------------------+",
        "| Field        | Value                            |",
        "+--------------+----------------------------------+",
        f"| output_key   | {output:32} |",
        f"| output_value | {secret:32} |",
        "+--------------+----------------------------------+",
    )
    secret = _word_secret(draw)
    place("env dump", secret, f"OS_PASSWORD={secret}")
    first, second = _plain_secret(draw), _plain_secret(draw)
    secrets["URL userinfo, no user"] = second
    place(
        "URL userinfo",
        first,
        f"transport_url = rabbit://openstack:{first}@ctl1:5672,:{second}@ctl2:5672/",
    )
    secret = _plain_secret(draw)
    place(
        "curl -u", secret, f"$ curl -s {draw.choice(('-u', '--user'))} client:{secret} https://h/"
    )
    secret = _plain_secret(draw)
    place(
        "console passwords",
        secret,
        "Set the following 'random' passwords",
        "",
        f"root:{secret}",
    )
    secret = _random_secret(draw)
    unknown = draw.choice(_UNKNOWN_NAMES)
    place("unnamed, body", secret, f'RESP BODY: {{"metadata": {{"{unknown}": "{secret}"}}}}')
    secret = _random_secret(draw)
    place("unnamed, table", secret, f"| properties | {unknown}='{secret}', role='web' |")
    secret = _random_key(draw)
    place("unnamed, pasted config", secret, f"{unknown} = {secret}")
    head, tail = _frame()
    # One run: what the client printed (no second command line in it).
    return ShapedLog("\n".join([*head, *lines, *tail]) + "\n", secrets)


def shaped_logs() -> st.SearchStrategy[ShapedLog]:
    """Logs of random secrets (one seed each: shrinking keeps the shapes)."""
    return st.integers(min_value=0, max_value=2**32 - 1).map(build)


def pane_lines(path: Path) -> list[str]:
    """The log pane's lines of a file, as the TUI reads it: indexed and parsed by
    the reader, then each line read back and masked with what the parse learnt."""
    from osdoctor.intake import open_log
    from osdoctor.tui.linestore import FileLines

    store = FileLines(path)
    reader = open_log(path, store)
    try:
        reader.read_available(final=True)
        store.memory = reader.parser.secrets
        store.wrap_width = reader.lines.wrap_width
        reader.parser.finish()
    finally:
        reader.close()
    return [store.text(number) for number in range(1, len(store) + 1)]
