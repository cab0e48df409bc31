"""osdoctor: explains failing OpenStack client commands from their --debug output."""

__version__ = "0.1.0"
