"""The shapes of issue 28, each as a class: names judged by their words, sibling
fields, lists of passwords, URLs and queries by family, wrapped tokens, and the
safety net that needs no name, which keeps OpenStack's own identifiers."""

from __future__ import annotations

import random
import re
import string
from pathlib import Path

import pytest

from osdoctor.run.session import SessionWriter
from osdoctor.secrets.keymaterial import key_material_spans, looks_random, shannon_entropy
from osdoctor.secrets.redact import StreamRedactor, redact_line, redact_lines, redact_text
from osdoctor.secrets.secretnames import is_secret_name, normal_name
from tests.helpers.public_logs import all_public_logs
from tests.secret_corpus import LOGS, PASTES, SecretPaste
from tests.secret_shapes import pane_lines

#: TripleO's generated secrets (tripleo-common's PASSWORD_PARAMETER_NAMES), less
#: CephClusterFSID, a UUID that stays readable.
TRIPLEO_SECRETS = """
AdminPassword AdminToken AodhPassword BarbicanPassword BarbicanSimpleCryptoKek
CeilometerMeteringSecret CeilometerPassword CephAdminKey CephClientKey CephMdsKey
CephManilaClientKey CephMonKey CephRgwKey CinderPassword DesignatePassword DesignateRndcKey
Ec2ApiPassword EtcdInitialClusterToken GlancePassword GnocchiPassword HAProxyStatsPassword
HeatAuthEncryptionKey HeatPassword HeatStackDomainAdminPassword HorizonSecret IronicPassword
LibvirtTLSPassword KeystoneCredential0 KeystoneCredential1 KeystoneFernetKey0
KeystoneFernetKey1 KeystoneFernetKeys ManilaPassword MistralPassword
MysqlClustercheckPassword MysqlRootPassword NeutronMetadataProxySharedSecret NeutronPassword
NovaPassword NovajoinPassword MigrationSshKey OctaviaHeartbeatKey OctaviaPassword
PacemakerRemoteAuthkey PcsdPassword RabbitCookie RabbitPassword RedisPassword SaharaPassword
SnmpdReadonlyUserPassword SwiftHashSuffix SwiftPassword ZaqarPassword
""".split()
OTHER_SECRET_NAMES = [
    "auth.password",
    "auth.application_credential_secret",
    "db.password.value",
    "X-Goog-Signature",
    "X-Goog-Credential",
    "X-Amz-Security-Token",
    "swift_hash_path_suffix",
    "erlang_cookie",
    "psk",
    "oauth2-bearer",
]
NOT_SECRET_NAMES = [
    "KeyName",
    "PasswordExpiresAt",
    "publicKey",
    "CephClusterFSID",
    "output_key",
    "parameter_key",
    "ParameterKey",
    "auth.auth_url",
    "KeystoneRegion",
    "tokenType",
    "AWSAccessKeyId",
    "config_drive",
    "os_hash_value",
    "hash_algo",
    "X-Goog-Algorithm",
    "X-Goog-SignedHeaders",
]


@pytest.mark.parametrize("name", TRIPLEO_SECRETS + OTHER_SECRET_NAMES)
def test_a_name_is_secret_by_its_words(name: str) -> None:
    assert is_secret_name(name)
    assert redact_line(f'"{name}": "Fake0Value99"') == f'"{name}": "***"'


@pytest.mark.parametrize("name", NOT_SECRET_NAMES)
def test_a_name_that_describes_or_names_another_is_not_secret(name: str) -> None:
    assert not is_secret_name(name)


def test_camel_case_and_dots_split_into_words() -> None:
    assert normal_name("HeatAuthEncryptionKey") == "heat_auth_encryption_key"
    assert normal_name("HAProxyStatsPassword") == "ha_proxy_stats_password"
    assert normal_name("auth.application_credential_secret") == "application_credential_secret"


# --- lines that only together say where the secret is ------------------------------


def _as_stream(paste: SecretPaste) -> str:
    stream = StreamRedactor()
    shown = "".join(stream.feed(line + "\n") for line in paste.lines)
    return stream.memory.literals.mask(shown)


@pytest.mark.parametrize("paste", PASTES, ids=lambda paste: paste.name)
def test_a_paste_is_masked_as_a_stream_and_as_a_text(paste: SecretPaste) -> None:
    text = "".join(line + "\n" for line in paste.lines)
    for shown in (_as_stream(paste), redact_text(text)):
        assert [secret for secret in paste.secrets if secret in shown] == [], shown
        assert [kept for kept in paste.keep if kept not in shown] == [], shown
        assert shown.count("\n") == len(paste.lines)


@pytest.mark.parametrize("paste", PASTES, ids=lambda paste: paste.name)
def test_a_paste_is_masked_in_a_saved_session(paste: SecretPaste, tmp_path: Path) -> None:
    from osdoctor.run.runner import OutputLine

    writer = SessionWriter(tmp_path / "s.session.log")
    writer.write_lines(OutputLine(0.0, 1, line) for line in paste.lines)
    writer.close(None)
    saved = (tmp_path / "s.session.log").read_text()
    assert [secret for secret in paste.secrets if secret in saved] == []


@pytest.mark.parametrize("paste", PASTES, ids=lambda paste: paste.name)
def test_a_paste_opened_in_the_log_pane_shows_no_secret(paste: SecretPaste, tmp_path: Path) -> None:
    """The log pane reads lines back one by one: what a line alone cannot tell
    comes from the parser's memory (values learnt) or from the lines before."""
    log = tmp_path / "paste.log"
    log.write_text("".join(line + "\n" for line in paste.lines))
    shown = "\n".join(pane_lines(log))
    assert [secret for secret in paste.secrets if secret in shown] == [], shown


def test_a_wrapped_token_is_masked_in_every_piece_but_a_short_line_is_no_wrap() -> None:
    token = "gAAAAABp" + "x9Lm2QrT" * 24
    pieces = [token[i : i + 80] for i in range(0, len(token), 80)]
    shown = list(redact_lines([piece + "\n" for piece in pieces] + ["DEBUG next record\n"]))
    assert shown == ["***\n"] * len(pieces) + ["DEBUG next record\n"]
    # A token that ends a line of no terminal's width is not continued.
    line = f"START with options: --debug token revoke {token}\n"
    assert list(redact_lines([line, "Using parameters {}\n"]))[1] == "Using parameters {}\n"


def test_a_value_before_its_name_is_masked_once_the_name_comes() -> None:
    lines = ['  "output_value": "LaterNamed0Fake",\n', '  "output_key": "db_password",\n']
    stream = StreamRedactor()
    first = stream.feed(lines[0])
    stream.feed(lines[1])
    assert "LaterNamed0Fake" in first  # a stream cannot go back...
    assert "LaterNamed0Fake" not in stream.memory.literals.mask(first)  # ...its memory can
    assert "LaterNamed0Fake" not in redact_text("".join(lines))


def test_a_harmless_pair_is_left_and_the_exit_code_stays() -> None:
    lines = [
        '{"name": "db_host", "value": "10.0.0.5"}\n',
        'RESP BODY: {"outputs": [{"output_key": "admin_password", "description": "x"}]}\n',
        "END return value: 0\n",
    ]
    assert list(redact_lines(lines)) == lines


# --- the safety net -----------------------------------------------------------------

_ALNUM = string.ascii_letters + string.digits


def _random_passwords(count: int, length: int, seed: int) -> list[str]:
    draw = random.Random(seed)
    return ["".join(draw.choices(_ALNUM, k=length)) for _ in range(count)]


@pytest.mark.parametrize(
    "template",
    [
        'RESP BODY: {{"metadata": {{"cluster_seed": "{value}", "role": "web"}}}}',
        "| properties | cluster_seed='{value}', role='web' |",
        "| cluster_seed | {value} |",
        "cluster_seed = {value}",
        "cluster_seed: {value}",
        "--cluster-seed {value}",
    ],
    ids=["body", "property cell", "table row", "ini", "yaml", "option"],
)
def test_a_random_password_under_a_name_no_rule_knows_is_masked(template: str) -> None:
    for value in _random_passwords(200, 32, seed=28):
        assert value not in redact_line(template.format(value=value)), value


def test_the_entropy_limit_is_detect_secrets_share_of_what_the_length_carries() -> None:
    # 32 characters carry at most 5 bits each: three quarters of that, not 4.5.
    value = "Q3hEt3txO68AgZFRty6KMnMqg0dtbfSy"
    assert 3.75 < shannon_entropy(value) < 4.5
    assert looks_random(value)
    assert not looks_random("HeatAuthEncryptionKeyAndMore")
    assert not looks_random("ServiceDisabledException")
    assert not looks_random("v3applicationcredential")


@pytest.mark.parametrize(
    "line",
    [
        "req-5c1e2b70-8c8a-4d4f-9a55-3d0e8a6f2b11 tx2c4f6e8a0b1d3f5a7c9e1b3-0065a1b2c3",
        '"checksum": "443b7623e27ecf03dc9e01ee93f67afe"',
        '"os_hash_value": "' + "6b813aa46bb90b4da216a4d19376593fa3f4fc7e" * 3 + '"',
        "X-Auth-Token: {SHA256}da0248ded026b8b0709554ec1f7a4347338e4e119eab1095638636b547001d66",
        '"audit_ids": ["VcxU2JYqT8OzfO5Gv__Gag"]',
        "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7vbqajDhA3x4mTq2Rr9Ks0d demo@web",
        "/v1/AUTH_8c1e5f0a2b7d4e39a6f4c2d1b0e9a8f7/c/o",
        "/v2/images/6a1e2b3c-4d5e-4f60-8a7b-9c0d1e2f3a4b/file",
        "X-OpenStack-Ironic-API-Maximum-Version: 1.115 ListBIOSSettingBaremetalNode",
    ],
)
def test_the_safety_net_keeps_identifiers_digests_and_names(line: str) -> None:
    assert key_material_spans(line) == []
    assert redact_line(line) == line


_IDENTIFIER = re.compile(
    r"(?<![0-9A-Za-z])(?:req-[0-9a-f-]{36}|tx[0-9a-f]{21}-[0-9a-f]{10}"
    r"|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
    r"|[0-9a-f]{32})(?![0-9A-Za-z])"
)


def test_every_identifier_of_every_fixture_stays() -> None:
    """UUIDs, request ids, Swift's transaction ids and 32-hex ids of every real
    client log and public paste survive redaction, but for those the logs use
    as a token (an old Keystone's hex token ids)."""
    logs = sorted(LOGS.glob("*.log")) + all_public_logs()
    assert len(logs) > 250
    lost: dict[str, set[str]] = {}
    for log in logs:
        raw = log.read_text(encoding="utf-8", errors="replace")
        gone = set(_IDENTIFIER.findall(raw)) - set(_IDENTIFIER.findall(redact_text(raw)))
        if gone:
            lost[log.name] = gone
    assert lost == {
        "nova-2014-boot-debug-400-swap-larger-than-flavor.log": {
            "1c8848a651a24e35ad74cea8eeba1cd3",
            "7e1e6458f641473cb048c685e6795411",
        },
        "nova-2013-list-hang-unreachable-publicurl.log": {"d9ab5c927bcb410d9e9ee5bdea3ea020"},
    }


def test_a_value_the_safety_net_masked_is_masked_where_it_would_not_judge_it(
    tmp_path: Path,
) -> None:
    """Once masked by its shape, a value is learnt: masked under a key that says id
    too, where the net alone keeps values, in the stream and in a saved session."""
    from osdoctor.run.runner import OutputLine

    value = _random_passwords(1, 32, seed=7)[0]
    lines = [
        f'RESP BODY: {{"metadata": {{"cluster_seed": "{value}"}}}}',
        f'RESP BODY: {{"request_id": "{value}"}}',
        f"| id | {value} |",
    ]
    assert redact_line(lines[1]) == lines[1]  # alone, a value under an id stays
    stream = StreamRedactor()
    assert [value in stream.feed(line) for line in lines] == [False, False, False]
    writer = SessionWriter(tmp_path / "s.session.log")
    writer.write_lines(OutputLine(0.0, 1, line) for line in lines)
    writer.close(None)
    assert value not in (tmp_path / "s.session.log").read_text()


def test_a_list_table_masks_the_value_cell_of_a_row_whose_name_cell_names_a_secret() -> None:
    table = [
        "+----+---------------+-----------------+-----------+\n",
        "| id | name          | value           | read_only |\n",
        "+----+---------------+-----------------+-----------+\n",
        "| 1  | BootMode      | Uefi            | False     |\n",
        "| 2  | SetupPassword | TableFake0Value | False     |\n",
        "+----+---------------+-----------------+-----------+\n",
    ]
    shown = list(redact_lines(table))
    assert shown[3] == table[3]
    assert shown[4] == "| 2  | SetupPassword | ***             | False     |\n"
