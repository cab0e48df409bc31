"""The lab: a scripted stub cloud on 127.0.0.1, and the capture of real clients' --debug logs.

Fixture logs are produced here and nowhere else: see ``README.md`` beside this file.
"""

from osdoctor.lab.fakes import FAKE_SECRETS
from osdoctor.lab.stub import RecordedRequest, Stub

__all__ = ["FAKE_SECRETS", "RecordedRequest", "Stub"]
