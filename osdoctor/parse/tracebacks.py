"""The reader of a Python traceback: its frames and the exception line that ends it,
however a paste damaged it, and whether its frames are all a service's.
"""

from __future__ import annotations

from osdoctor import regex
from osdoctor.model import Frame, Origin, Traceback

EXC_LINE = regex.compile(
    r"([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Failure|Failed|"
    r"Timeout|NotFound|Conflict|Forbidden|Unauthorized|Exception\w*|"
    r"[A-Z]\w*))(?:: ?(.*))?$"
)
#: A one-word exception name (``Unauthorized: msg``) that ``EXC_LINE`` misses.
EXC_NAME = regex.compile(r"([A-Z][a-z]+(?:[A-Z][a-z]*)*)(?:: (.*))?$")
#: Frames in a service's code, never a client's: a traceback of only such frames
#: was pasted from the service's log.
SERVER_FRAME = regex.compile(
    r"/(?:site|dist)-packages/(?:nova|neutron|cinder|keystone|glance|heat|ironic|placement|"
    r"barbican|octavia|designate|manila|swift|sysinv|webob|paste|routes|oslo_service|"
    r"oslo_messaging|oslo_db|keystonemiddleware|eventlet|uwsgidecorators|ironic_inspector|"
    # the services' out-of-tree drivers and plug-ins: nova-docker, nova-lxd,
    # networking-ovn and the like, os-vif
    r"novadocker|nova_[a-z]+|networking_[a-z_]+|neutron_[a-z_]+|os_vif)/"
)
FRAME_ANY = regex.compile(r'\s*File "([^"]*)", line (\d+), in (.*)')


class TracebackCollector:
    """A Python traceback, however it was pasted: frames indented or not (a blog
    that ate the indentation), the whole block indented (``indent``: the
    exception line then has the header's indentation), its header lost."""

    def __init__(self, number: int, indent: int = 0, origin: Origin = "client") -> None:
        self.tb = Traceback(
            first_line=number, last_line=number, exc_type="", message="", origin=origin
        )
        self.done = False
        self.indent = indent
        self._source_next = False

    def feed(self, number: int, text: str) -> bool:
        m = FRAME_ANY.match(text)
        if m:
            self.tb.frames.append(Frame(m.group(1), int(m.group(2)), m.group(3), number))
            self.tb.last_line = number
            self._source_next = True
            return True
        source_next, self._source_next = self._source_next, False
        if text.startswith((" ", "\t")) or not text.strip():
            body = text.lstrip()
            if not (self.indent and body and len(text) - len(body) <= self.indent):
                self.tb.last_line = number
                return True
            text = body
        elif source_next and not looks_like_exception(text):
            # The frame's source line, its indentation lost.
            self.tb.last_line = number
            return True
        m = EXC_LINE.match(text) or EXC_NAME.match(text)
        self.done = True
        if m and " " not in m.group(1):
            self.tb.exc_type = m.group(1)
            self.tb.message = (m.group(2) or "").strip()
            self.tb.last_line = number
            return True
        return False


def looks_like_exception(text: str) -> bool:
    m = EXC_LINE.match(text)
    if m is None or " " in m.group(1):
        return False
    name = m.group(1)
    return (m.group(2) is not None and (name[:1].isupper() or "." in name)) or name.endswith(
        ("Error", "Exception", "NotFound", "Failure", "Exit", "Interrupt")
    )


def from_service(tb: Traceback) -> bool:
    """True when every frame is in a service's code: a service's traceback pasted
    beside the client's."""
    return bool(tb.frames) and all(SERVER_FRAME.search(f.file) for f in tb.frames)
