"""What the tools around a client put around its lines, taken off.

Not the hard wraps of a terminal (``parse.wraps``) nor the damage a web page
does (``parse.paste``): these are the programs that ran the client and
printed its words inside their own.

- Python 3 clients that print ``encodeutils.safe_encode(str(e))`` show a bytes
  repr: heatclient's shell (``b'ERROR: ...'``), novaclient's
  ``do_action_on_many`` (``b'Instance ... is locked (HTTP 409) ...'``);
  tempest and Zuul print a command's whole output as one repr, its line
  breaks escaped (``stderr: b'...\\n...'``).
- devstack's xtrace, behind its console timestamp: ``2015-05-21
  04:29:24.147 | ::./stack.sh:740+openstack ...`` (2014-2016, ``PS4`` of
  ``::${BASH_SOURCE}:${LINENO}+``) and ``+lib/keystone:create_keystone_accounts:314
  openstack ...`` (2016 on: ``+${BASH_SOURCE}:${FUNCNAME}:${LINENO} ``).
- A client started through a launcher: ``nix run nixpkgs#openstackclient --
  ...``, ``kubectl exec POD -- openstack ...``, ``docker exec -it CONTAINER
  openstack ...``.
- A ``-vvv`` run whose line breaks a pasting site collapsed into spaces: one
  line holding every record, split again where each record begins.

Each unwrapping is linear in the line and keeps the line's number: the
client's words are found where the log has them.
"""

from __future__ import annotations

import ast

from osdoctor import regex

# A bytes literal that is the whole line, or the rest of it after a label
# ("stderr: b'...'"): the label is a word or two and a colon.
_BYTES = regex.compile(
    r"""(?P<head>(?:[A-Za-z][\w .\-]{0,40}:\s*)?)b(?P<q>['"])(?P<body>.*)(?P=q)\s*$"""
)
_ESCAPE = regex.compile(r"\\(x[0-9a-fA-F]{2}|.)")
_SIMPLE = {"n": "\n", "t": "\t", "r": "", "'": "'", '"': '"', "\\": "\\", "0": "\0"}

#: Lines a repr is split into at most.
MAX_LINES = 2000


def _unescape(body: str) -> str:
    """A bytes repr's escapes undone, its ``\\xNN`` runs decoded as UTF-8."""
    try:
        value = ast.literal_eval(f"b'''{body}'''") if "'''" not in body else None
    except (ValueError, SyntaxError):
        value = None
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    raw = bytearray()
    pos = 0
    for m in _ESCAPE.finditer(body):
        raw += body[pos : m.start()].encode("utf-8", "replace")
        code = m.group(1)
        if code[0] == "x" and len(code) == 3:
            raw.append(int(code[1:], 16))
        else:
            raw += _SIMPLE.get(code, "\\" + code).encode()
        pos = m.end()
    raw += body[pos:].encode("utf-8", "replace")
    return raw.decode("utf-8", "replace")


def bytes_repr(text: str) -> tuple[str, list[str]] | None:
    """(the words before it, the lines inside it) of a line that prints a bytes
    repr; None for any other line, and for an HTML page a client quotes after its
    own words (barbicanclient's ``4xx Client error: b'<html>...'``), which is read
    as one message."""
    if "b'" not in text and 'b"' not in text:
        return None
    m = _BYTES.match(text)
    if m is None:
        return None
    head, body = m.group("head").strip(), m.group("body")
    if head and "\\n" not in body:
        return None  # a label and one quoted value: the value is the line's own word
    if body.lstrip()[:1] == "<" or head[:3] in ("4xx", "5xx"):
        return None
    inner = _unescape(body)
    lines = inner.split("\n")[:MAX_LINES]
    return head.rstrip(":").strip(), [line.rstrip("\r") for line in lines]


# devstack's PS4 forms and bash's own "+ ": the command follows.
_XTRACE = regex.compile(
    r"(?:\++(?:[\w./\-]+:(?:[\w.\-]+:)?\d+)?[ \t]+|::[\w./\-]+:\d+\+|\+[\w./\-]+:\d+\+)(?=\S)"
)


def xtrace_command(text: str) -> str | None:
    """The command of an xtrace line (``+ openstack ...``, devstack's
    ``+lib/keystone:fn:314  openstack ...``, ``::./stack.sh:740+openstack ...``),
    or None."""
    if text[:1] not in "+:":
        return None
    m = _XTRACE.match(text)
    return text[m.end() :] if m is not None else None


#: Programs that start a client: ``nix run nixpkgs#openstackclient -- ...``,
#: ``kubectl exec POD -- openstack ...``, ``docker exec CONTAINER openstack ...``.
LAUNCHERS = frozenset({"nix", "kubectl", "oc", "docker", "podman", "uv", "pipx", "nerdctl"})
_NIX_PROGRAMS = regex.compile(r"#(?:[\w.\-]*\.)?(?:python3\d*Packages\.)?(?P<attr>[\w\-]+)$")
#: Nix attribute names of the clients, and the program each provides.
_NIX_ATTRS = {
    "openstackclient": "openstack",
    "python-openstackclient": "openstack",
    "heatclient": "heat",
    "python-heatclient": "heat",
    "ironicclient": "baremetal",
    "python-ironicclient": "baremetal",
    "swiftclient": "swift",
    "python-swiftclient": "swift",
}


def launched(words: list[str]) -> list[str] | None:
    """The client's words of a command started through a launcher, or None:
    ``nix run nixpkgs#openstackclient -- server list`` is ``openstack server list``;
    ``kubectl exec -it pod -- openstack server list`` and ``docker exec -it box
    openstack server list`` are ``openstack server list``."""
    if not words or words[0].rsplit("/", 1)[-1] not in LAUNCHERS:
        return None
    if "--" in words:
        at = words.index("--")
        rest = words[at + 1 :]
        if words[0].endswith("nix"):
            attr = next((w for w in words[1:at] if "#" in w), "")
            m = _NIX_PROGRAMS.search(attr)
            program = _NIX_ATTRS.get(m.group("attr")) if m else None
            if program is not None:
                return [program, *rest]
        return rest or None
    if len(words) > 2 and words[1] in ("exec", "run"):
        rest = words[2:]
        while rest and rest[0].startswith("-"):
            rest = rest[1:]
        return rest[1:] or None  # past the container
    return None


#: Where a record begins inside a ``-vvv`` run whose line breaks became spaces.
_RECORD_IN_LINE = regex.compile(
    r" (?=REQ: curl |RESP: \[|RESP BODY: |[A-Z]+ call to \S+ for |"
    r"https?://[^\s\"]+ \"[A-Z]+ /|Starting new HTTPS? connection|"
    r"Making authentication request to |END return value: |clean_up \w+: |"
    r"Traceback \(most recent call last\)|Instantiating \w+ client|"
    r"Auth plugin \w+ selected|Using parameters |Get auth_ref|"
    r"run\(Namespace|command: [\w ]+ -> )"
)
#: keystoneauth's last words on an exchange; what follows on the line is the next record.
_USED_ID = regex.compile(r"^([A-Z]+ call to \S+ for \S+ used request id \S+) (.+)$")
#: A collapsed run is long and holds several of those records.
_COLLAPSED_MIN = 400
_COLLAPSED_RECORDS = 4


def collapsed(text: str) -> list[str] | None:
    """The records of a line that holds a whole debug run, its line breaks lost;
    None for a line that is one record (however long: a body, a token)."""
    if len(text) < _COLLAPSED_MIN or ("REQ: curl " not in text and "RESP: [" not in text):
        return None
    cuts = [m.start() for m in _RECORD_IN_LINE.finditer(text)]
    if len(cuts) < _COLLAPSED_RECORDS:
        return None
    pieces = []
    pos = 0
    for cut in cuts:
        pieces.append(text[pos:cut])
        pos = cut + 1
    pieces.append(text[pos:])
    out: list[str] = []
    for piece in pieces:
        piece = piece.strip()
        m = _USED_ID.match(piece)
        out.extend(m.groups() if m else [piece] if piece else [])
    return out
