"""The stub cloud's fixed identities and FAKE secrets.

Fixture logs must be reproducible and must never hold a real secret: every
credential the lab hands to a client, and every token it issues, comes from
here. Tests use :data:`FAKE_SECRETS` to check that osdoctor never prints any
of them.
"""

from __future__ import annotations

#: The password the stub accepts for :data:`USER_NAME` (fake).
PASSWORD = "FAKE-lab-password-9d2e7f"
#: The token the stub issues (fake, shaped like a Fernet token so that
#: redaction rules meet something realistic).
TOKEN = (
    "gAAAAABoFAKEosdoctorLabTokenFAKEosdoctorLabTokenFAKEosdoctorLab"
    "TokenFAKEosdoctorLabTokenFAKE0000"
)
#: Secrets a case may use for other purposes (application credentials, TempURL
#: keys, parameters such as db_password): all fake, all checked by tests.
EXTRA_SECRET = "FAKE-lab-secret-51c4a0"
#: A second one, for cases that carry two secrets of different kinds.
SECOND_SECRET = "FAKE-lab-other-8e27d3"
#: A passphrase with spaces (osc-lib echoes it as several words).
PASSPHRASE = "FAKE lab horse 6b1f battery staple"
#: A password as a generator makes one (32 random letters and digits, as Heat's
#: OS::Heat::RandomString does), with no FAKE in it: for cases where only its
#: shape can tell it is a secret, under a name no rule knows.
RANDOM_PASSWORD = "Q3hEt3txO68AgZFRty6KMnMqg0dtbfSy"
#: Key material as services generate it (32 random bytes in base64url, as a
#: Fernet key or a Ceph key is), for the same kind of case.
RANDOM_KEY = "N3FbT4XH2XbbDuI4RyYouKyDhr9Zf0WQMn2E2cKsSPs="

#: Every secret the lab knows; no osdoctor output may contain one of them.
FAKE_SECRETS: tuple[str, ...] = (
    PASSWORD,
    TOKEN,
    EXTRA_SECRET,
    SECOND_SECRET,
    PASSPHRASE,
    RANDOM_PASSWORD,
    RANDOM_KEY,
)

USER_NAME = "demo"
USER_ID = "4b2a0f3c8e6d4b1fa0c9d7e5b3a1f2e4"
PROJECT_NAME = "demo"
PROJECT_ID = "8c1e5f0a2b7d4e39a6f4c2d1b0e9a8f7"
DOMAIN_ID = "default"
DOMAIN_NAME = "Default"
REGION = "RegionOne"

#: Every answer carries this Date so that regenerated fixtures diff minimally.
FIXED_DATE = "Sun, 01 Nov 2026 12:00:00 GMT"
TOKEN_ISSUED_AT = "2026-11-01T12:00:00.000000Z"
TOKEN_EXPIRES_AT = "2036-11-01T12:00:00.000000Z"
#: The Server header of every answer (instead of Python's version string).
SERVER_NAME = "osdoctor-lab-stub"
