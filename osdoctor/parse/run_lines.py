"""The reader of the lines a client prints of its own run that are no HTTP record:
osc's ``START with options`` and ``END return value``, its ``command: ... ->``
and ``clean_up`` lines, the shells that log no command line but say who they
are (heat's deprecation warning, the baremetal shell's words, ``swift tempurl``'s
signed path), ironicclient's negotiated version, and the connection pool's noise.

What they say goes on the trace (its command, client, exit status, API versions)
or is kept as a message, through the assembler (``parse.assembler``). Each
method reads a line that opens with its words (``parse.openings``) and says
whether it took the line; the heat, baremetal, tempurl and version lines are
read on as printed lines too.
"""

from __future__ import annotations

from osdoctor import regex
from osdoctor.parse.assembler import Assembler
from osdoctor.parse.clients import start_command

_NEGOTIATED = regex.compile(r"Negotiated API version is (\S+)")


class RunLines:
    """Reads a run's own lines into ``assembler``'s trace."""

    def __init__(self, assembler: Assembler) -> None:
        self._asm = assembler
        self.trace = assembler.trace

    def start(self, number: int, text: str, time: float | None) -> bool:
        """osc's ``START with options: [...]``: the command it ran."""
        self._asm.message(number, "debug", start_command(self.trace, number, text[19:].strip()))
        return True

    def end(self, number: int, text: str, time: float | None) -> bool:
        """osc's ``END return value: N``: the exit status."""
        trace = self.trace
        try:
            trace.exit_code = int(text[18:].strip())
            trace.exit_line = number
        except ValueError:
            pass
        trace.openstack_lines += 1
        self._asm.message(number, "end", text)
        return True

    def command(self, number: int, text: str, time: float | None) -> bool:
        """osc's ``command: server show -> openstackclient...`` (False without the arrow)."""
        if " -> " not in text:
            return False
        trace = self.trace
        trace.openstack_lines += 1
        if trace.command is None:
            trace.command = "openstack " + text[9:].partition(" -> ")[0]
            trace.command_line = number
        self._asm.message(number, "debug", text)
        return True

    def clean_up(self, number: int, text: str, time: float | None) -> bool:
        """osc's ``clean_up ShowServer: ...``, which may name the exception."""
        self.trace.openstack_lines += 1
        self._asm.message(number, "clean_up", text)
        return True

    def noise(self, number: int, text: str, time: float | None) -> bool:
        """urllib3's connection noise ("Starting new HTTP connection"): nothing kept."""
        return True

    def failure_status(self, number: int, text: str, time: float | None) -> bool:
        """keystoneauth's "Request returned failure status": a client's line."""
        self.trace.openstack_lines += 1
        return False

    def heat_deprecation(self, number: int, text: str, time: float | None) -> bool:
        """The heat shell logs no command line: its deprecation warning names the
        subcommand (``"heat stack-create" is deprecated, please use ...``)."""
        if '" is deprecated, please use ' not in text:
            return False
        trace = self.trace
        trace.openstack_lines += 1
        if trace.command is None:
            trace.command = text[1 : text.index('"', 1)]
            trace.command_line = number
            trace.client = "heatclient"
        return False

    def baremetal_shell(self, number: int, text: str, time: float | None) -> bool:
        """The standalone baremetal shell logs no command line: these are its own words."""
        self.trace.openstack_lines += 1
        if self.trace.client == "unknown":
            self.trace.client = "ironicclient"
        return False

    def temp_url(self, number: int, text: str, time: float | None) -> bool:
        """What ``swift tempurl`` prints: a path it signed itself, with no request."""
        if "temp_url_sig=" in text:
            self.trace.openstack_lines += 1
            if self.trace.client == "unknown":
                self.trace.client = "swiftclient"
        return False

    def negotiated(self, number: int, text: str, time: float | None) -> bool:
        """ironicclient's "Negotiated API version is 1.78"."""
        m = _NEGOTIATED.match(text)
        if m:
            self.trace.api_versions["baremetal"] = m.group(1)
        return False
