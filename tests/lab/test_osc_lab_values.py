"""The stub's own port is a placeholder: an https:// URL on it gives a real TLS failure."""

from __future__ import annotations

from osdoctor.lab import Stub


def test_port_placeholder_is_the_listening_port() -> None:
    with Stub({"stub": {}, "routes": []}) as stub:
        assert stub.values["port"] == str(stub.port)
        assert stub.base_url.endswith(":" + stub.values["port"])
