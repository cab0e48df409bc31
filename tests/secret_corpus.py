"""Secrets where the real clients print them in ``--debug`` output.

Each case is one line shaped as keystoneauth, osc-lib, cliff, openstackclient,
heatclient, swiftclient or ironicclient print it (captured from the real
clients against a local stub, secrets replaced by fakes). ``secrets`` must be
gone after redaction; ``keep`` must still be there. Reused by every output
format's tests: a report, a saved session or a screen must never show any of
``ALL_SECRETS``.

The second half lists the real-client fixtures of the lab's secret cases
(``generic.secret-*``), each carrying the lab's fake secrets in one shape, and
what of a secret must never show: the value, its URL-encoded and base64
forms, and any piece of ten characters.
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, quote_plus

from osdoctor.lab import fakes
from osdoctor.lab.case import CASES_DIR, Case, load_case

SHA = "{SHA256}da0248ded026b8b0709554ec1f7a4347338e4e119eab1095638636b547001d66"
UA = "openstacksdk/4.22.0 keystoneauth1/5.18.1 python-requests/2.34.2 CPython/3.11.7"
FERNET = "gAAAAABnFakeFernetTokenCorpusS3cret0123456789abcdefABCDEF_-xyz"
#: Generated secrets (random, as generators make them) that only their shape gives away.
RANDOM_PASSWORD = "RCWPEIarqY49XBAtA0seZ4MxTLbZ3fVb"
RANDOM_PASSWORD_2 = "k1CZQ00hl15nwtlmXe1T4D9e7Mn67NIy"
RANDOM_PASSWORD_3 = "LFbq1iIDIJ2pVtJbnD1900yAJu0pLnp5"
RANDOM_KEY = "BzTM-83xNITokGrZd4HnkfNgNzTF9WZWyYjNKakTxws="
RANDOM_BLOB = "d4PqNuRJcgZXKfMJVMf4214ZVUR1jDcRpc+nJLmkFUYlZ1yuXAEllw=="
#: A Fernet token as keystone issues them (long), for a terminal to wrap.
LONG_FERNET = (
    "gAAAAABpWrapped0FakeTokenCorpus4xQ9mLr2ZtK8vN1bYc7HdJ3sWfP6gTeA5uXiO0qRkMnBvCzDyEhGjF"
    "aSbUcVdWeXfYgZh1i2j3k4l5m6n7o8p9qArBsCtDuEvFwGxHyIzJ0K1L2M3N4O5P6Q7R8S9T0U1V2W3X4Y5Z6"
)


@dataclass(frozen=True)
class SecretCase:
    name: str
    """Where the secret sits (client, line kind, field)."""
    line: str
    secrets: tuple[str, ...]
    """Values that must not survive redaction."""
    keep: tuple[str, ...]
    """Parts that must survive: keys, URLs, ids, statuses, client hashes."""
    by_shape: bool = False
    """True when the secret is recognised by its own shape (a Fernet token), not by
    where it sits: another value in the same place would stay."""


CASES: list[SecretCase] = [
    # --- keystoneauth request bodies (-d '...') and RESP BODY -------------------
    SecretCase(
        "ksa curl body: user create password",
        'REQ: curl -g -i -X POST http://127.0.0.1:18765/v3/users -H "Content-Type: '
        f'application/json" -H "User-Agent: {UA}" -H "X-Auth-Token: {SHA}" -d '
        '\'{"user": {"enabled": true, "name": "bob", "password": "UserPassFake1"}}\'',
        ("UserPassFake1",),
        ("/v3/users", SHA, '"password": "***"', '"name": "bob"'),
    ),
    SecretCase(
        "ksa curl body: application credential secret",
        "REQ: curl -g -i -X POST http://127.0.0.1:18765/v3/users/8a3f8a3f8a3f8a3f8a3f8a3f8a3f"
        '8a3f/application_credentials -H "Content-Type: application/json" -H '
        f'"X-Auth-Token: {SHA}" -d \'{{"application_credential": {{"secret": '
        '"AppCredFake2", "name": "myac", "roles": []}}\'',
        ("AppCredFake2",),
        ("application_credentials", SHA, '"name": "myac"'),
    ),
    SecretCase(
        "ksa RESP BODY: application credential secret",
        'RESP BODY: {"application_credential": {"secret": "AppCredFake3", "unrestricted": '
        'false, "expires_at": null, "name": "myac", "id": "acacacacacacacacacacacacacacacac"}}',
        ("AppCredFake3",),
        ('"expires_at": null', "acacacacacacacacacacacacacacacac"),
    ),
    SecretCase(
        "ksa RESP BODY: EC2 credential access and secret",
        'RESP BODY: {"credential": {"access": "0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e", "secret": '
        '"Ec2SecretFake4", "user_id": "8a3f8a3f8a3f8a3f8a3f8a3f8a3f8a3f", "tenant_id": '
        '"e1b2e1b2e1b2e1b2e1b2e1b2e1b2e1b2"}}',
        ("Ec2SecretFake4", "0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e"),
        ("8a3f8a3f8a3f8a3f8a3f8a3f8a3f8a3f", '"tenant_id"'),
    ),
    SecretCase(
        "ksa curl body: credential blob",
        'REQ: curl -g -i -X POST http://127.0.0.1:18765/v3/credentials -H "Content-Type: '
        f'application/json" -H "X-Auth-Token: {SHA}" -d \'{{"credential": {{"blob": '
        '"BlobFake5", "type": "cert", "project_id": null, "user_id": "u1"}}\'',
        ("BlobFake5",),
        ('"type": "cert"', "/v3/credentials"),
    ),
    SecretCase(
        "heat curl body: stack create hidden parameter",
        'REQ: curl -g -i -X POST http://127.0.0.1:18765/heat/v1/proj1/stacks -H "Accept: '
        f'application/json" -H "User-Agent: python-heatclient" -H "X-Auth-Token: {SHA}" -d '
        '\'{"stack_name": "mystack", "disable_rollback": true, "parameters": {"db_password": '
        '"HeatParamFake6"}, "template": {"heat_template_version": "2018-08-31"}}\'',
        ("HeatParamFake6",),
        ('"stack_name": "mystack"', "/stacks", '"db_password": "***"'),
    ),
    SecretCase(
        "heat curl body: environment file carried as escaped JSON",
        'REQ: curl -g -i -X POST http://127.0.0.1:18765/heat/v1/proj1/stacks -d \'{"files": '
        '{"env.json": "{\\"parameter_defaults\\": {\\"db_password\\": \\"EnvFileFake7\\"}}"}, '
        '"stack_name": "s1"}\'',
        ("EnvFileFake7",),
        ('"stack_name": "s1"', "parameter_defaults"),
    ),
    SecretCase(
        "nova curl body: server create adminPass",
        'REQ: curl -g -i -X POST http://127.0.0.1:18765/compute/v2.1/servers -H "Content-Type: '
        f'application/json" -H "X-Auth-Token: {SHA}" -d \'{{"server": {{"name": "srv1", '
        '"imageRef": "5e5e5e5e-0000-4000-8000-000000000001", "flavorRef": "1", "adminPass": '
        '"AdminPassFake8", "min_count": 1, "max_count": 1}}\'',
        ("AdminPassFake8",),
        ('"name": "srv1"', "5e5e5e5e-0000-4000-8000-000000000001"),
    ),
    SecretCase(
        "nova RESP BODY: generated adminPass",
        'RESP BODY: {"server": {"id": "5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e", "links": [], '
        '"OS-DCF:diskConfig": "MANUAL", "adminPass": "GenAdminFake9"}}',
        ("GenAdminFake9",),
        ("5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e", '"adminPass": "***"'),
    ),
    SecretCase(
        "ironic curl body: driver_info ipmi_password",
        'REQ: curl -g -i -X POST http://127.0.0.1:18765/baremetal/v1/nodes -H "User-Agent: '
        f'python-ironicclient" -H "X-Auth-Token: {SHA}" -H "X-OpenStack-Ironic-API-Version: '
        '1.115" -d \'{"driver": "ipmi", "driver_info": {"ipmi_password": "IpmiFake10", '
        '"ipmi_address": "10.1.2.3"}, "name": "n1"}\'',
        ("IpmiFake10",),
        ('"ipmi_address": "10.1.2.3"', "X-OpenStack-Ironic-API-Version: 1.115"),
    ),
    SecretCase(
        "nova RESP BODY: keypair private key",
        'RESP BODY: {"keypair": {"name": "k1", "private_key": "-----BEGIN OPENSSH PRIVATE '
        'KEY-----\\nb3BlbnNzaC1rZXktdjEAAAAFakeKey11\\n-----END OPENSSH PRIVATE KEY-----\\n", '
        '"fingerprint": "aa:bb"}}',
        ("b3BlbnNzaC1rZXktdjEAAAAFakeKey11",),
        ('"name": "k1"', '"fingerprint": "aa:bb"'),
    ),
    # --- printed tables ---------------------------------------------------------
    SecretCase(
        "osc table: application credential Secret",
        "| Secret       | AppCredFake12                    |",
        ("AppCredFake12",),
        ("| Secret", "|"),
    ),
    SecretCase(
        "osc table: EC2 secret",
        "| secret     | Ec2SecretFake13                  |",
        ("Ec2SecretFake13",),
        ("| secret",),
    ),
    SecretCase(
        "osc table: credential blob",
        "| blob       | BlobFake14                       |",
        ("BlobFake14",),
        ("| blob",),
    ),
    SecretCase(
        "osc table: server adminPass",
        "| adminPass                   | AdminPassFake15                        |",
        ("AdminPassFake15",),
        ("| adminPass",),
    ),
    SecretCase(
        "osc table: baremetal driver_info dict",
        "| driver_info     | {'ipmi_password': 'IpmiFake16', 'ipmi_address': '10.1.2.3'} |",
        ("IpmiFake16",),
        ("'ipmi_address': '10.1.2.3'", "| driver_info"),
    ),
    SecretCase(
        "osc table: token issue id (Fernet)",
        f"| id         | {FERNET} |",
        (FERNET, "FernetTokenCorpusS3cret"),
        ("| id",),
        by_shape=True,
    ),
    # --- a token object's own id: the token, under a key that names no secret ------
    # Keystone v2's token response as the 2013-2016 clients print it (novaclient,
    # keystoneclient: public logs show this shape), and the token method of an auth
    # request; the ids of the objects inside stay.
    SecretCase(
        "v2 RESP BODY: access.token.id",
        'RESP BODY: {"access": {"token": {"issued_at": "2013-06-06T09:50:21.950681", '
        '"expires": "2013-06-07T09:50:21Z", "id": "d9ab5cFakeV2Token0a1b2c3d", "tenant": '
        '{"description": "admin tenant", "enabled": true, "id": "1a491e1416d041da93daae1d", '
        '"name": "admin"}}, "serviceCatalog": []}}',
        ("d9ab5cFakeV2Token0a1b2c3d",),
        ('"tenant": {"description": "admin tenant"', '"id": "1a491e1416d041da93daae1d"'),
    ),
    SecretCase(
        "v2 body as a Python repr: access.token.id after a nested object",
        "{u'access': {u'token': {u'tenant': {u'id': u'tenantFake1'}, u'id': u'FakeReprTok77'}}}",
        ("FakeReprTok77",),
        ("u'id': u'tenantFake1'",),
    ),
    SecretCase(
        "auth request body: token method",
        'REQ: curl -i http://192.168.0.5:5000/v2.0/tokens -X POST -d \'{"auth": {"tenantName": '
        '"admin", "token": {"id": "FakeScopingTok0123"}}}\'',
        ("FakeScopingTok0123",),
        ('"tenantName": "admin"', "/v2.0/tokens"),
    ),
    SecretCase(
        "osc -f yaml output: secret",
        "secret: Ec2SecretFake17 with spaces",
        ("Ec2SecretFake17", "with spaces"),
        ("secret: ",),
    ),
    SecretCase(
        "osc -f shell output: secret",
        'secret="AppCredFake18"',
        ("AppCredFake18",),
        ("secret=",),
    ),
    # --- cliff Namespace lines and OSC boot_kwargs -----------------------------
    SecretCase(
        "cliff run(Namespace): user create password",
        "run(Namespace(formatter='table', columns=[], name='bob', domain=None, project=None, "
        "password='UserPassFake19', password_prompt=False, email=None, "
        "ignore_password_expiry=False))",
        ("UserPassFake19",),
        ("password_prompt=False", "name='bob'", "ignore_password_expiry=False"),
    ),
    SecretCase(
        "cliff take_action(Namespace): stack create --parameter",
        "take_action(Namespace(formatter='table', environment=None, enable_rollback=False, "
        "parameter=['db_password=HeatParamFake20', 'flavor=m1.small'], wait=False, poll=5, "
        "name='mystack', template='t.yaml'))",
        ("HeatParamFake20",),
        ("'flavor=m1.small'", "name='mystack'"),
    ),
    SecretCase(
        "cliff run(Namespace): baremetal --driver-info",
        "run(Namespace(formatter='table', chassis_uuid=None, driver='ipmi', driver_info="
        "['ipmi_password=IpmiFake21', 'ipmi_address=10.1.2.3'], name='n1'))",
        ("IpmiFake21",),
        ("'ipmi_address=10.1.2.3'", "driver='ipmi'"),
    ),
    SecretCase(
        "cliff run(Namespace): credential create data",
        "run(Namespace(formatter='table', columns=[], user='admin', type='cert', "
        "data='BlobFake22', project=None))",
        ("BlobFake22",),
        ("user='admin'", "type='cert'"),
    ),
    SecretCase(
        "cliff run(Namespace): object store account set --property",
        "run(Namespace(property={'Temp-URL-Key': 'TempKeyFake23'}))",
        ("TempKeyFake23",),
        ("'Temp-URL-Key': '***'",),
    ),
    SecretCase(
        "osc boot_kwargs: admin_password",
        "boot_kwargs: {'name': 'srv1', 'image_id': '5e5e5e5e-0000-4000-8000-000000000001', "
        "'flavor_id': '1', 'min_count': 1, 'max_count': 1, 'admin_password': 'AdminPassFake24', "
        "'networks': 'auto'}",
        ("AdminPassFake24",),
        ("'networks': 'auto'", "'name': 'srv1'"),
    ),
    SecretCase(
        "osc-lib options Namespace: auth_url with credentials",
        "options: Namespace(verbose_level=3, debug=True, auth_url='http://admin:UrlPassFake25@"
        "127.0.0.1:18765/v3', project_name='demo', username='admin', password='***', "
        "client_secret=*** openid_scope=None, token=*** oauth2_endpoint=None)",
        ("UrlPassFake25",),
        ("http://admin:***@127.0.0.1:18765/v3", "openid_scope=None", "username='admin'"),
    ),
    # --- osc-lib START with options / cloud cfg / Using parameters --------------
    SecretCase(
        "START with options: --os-password (not masked by osc-lib)",
        "START with options: --debug --os-password OsPassFake26 user create --password *** bob",
        ("OsPassFake26",),
        # osc-lib masked the first word after --password; what follows may be the
        # rest of a passphrase, so it goes too.
        ("user create", "--password ***"),
    ),
    SecretCase(
        "START with options: --os-password=",
        "START with options: --debug --os-password=OsPassFake27 server list",
        ("OsPassFake27",),
        ("server list",),
    ),
    SecretCase(
        "START with options: --os-token mangled by osc-lib's mask",
        "START with options: --debug --os-auth-type token --os*** GivenTokFake28 project list",
        ("GivenTokFake28",),
        ("--os-auth-type token", "project list"),
    ),
    SecretCase(
        "START with options: --os-application-credential-secret",
        "START with options: --debug --os-auth-type v3applicationcredential "
        "--os-application-credential-id abc --os-application-credential-secret AcAuthFake29 "
        "project list",
        ("AcAuthFake29",),
        ("--os-application-credential-id abc", "project list"),
    ),
    SecretCase(
        "START with options: --parameter db_password=",
        "START with options: --debug stack create -t t.yaml --parameter "
        "db_password=HeatParamFake30 mystack",
        ("HeatParamFake30",),
        ("mystack", "-t t.yaml"),
    ),
    SecretCase(
        "START with options: --driver-info ipmi_password=",
        "START with options: --debug baremetal node create --driver ipmi --driver-info "
        "ipmi_password=IpmiFake31 --driver-info ipmi_address=10.1.2.3 --name n1",
        ("IpmiFake31",),
        ("ipmi_address=10.1.2.3", "--name n1"),
    ),
    SecretCase(
        "START with options: --property Temp-URL-Key=",
        "START with options: --debug object store account set --property "
        "Temp-URL-Key=TempKeyFake32",
        ("TempKeyFake32",),
        ("object store account set",),
    ),
    SecretCase(
        "START with options: credential create positional data",
        "START with options: --debug credential create --type cert admin BlobFake33",
        ("BlobFake33",),
        ("--type cert admin",),
    ),
    SecretCase(
        "START with options: token revoke positional Fernet token",
        f"START with options: --debug token revoke {FERNET}",
        (FERNET,),
        ("token revoke",),
        by_shape=True,
    ),
    SecretCase(
        "osc-lib Using parameters: auth_url with credentials",
        "Using parameters {'auth_url': 'http://admin:UrlPassFake35@127.0.0.1:18765/v3', "
        "'project_name': 'demo', 'username': 'admin', 'password': '***'}",
        ("UrlPassFake35",),
        ("'project_name': 'demo'", "127.0.0.1:18765/v3"),
    ),
    SecretCase(
        "ksa curl line: URL with credentials",
        'REQ: curl -g -i -X GET http://admin:UrlPassFake36@127.0.0.1:18765/v3 -H "Accept: '
        f'application/json" -H "User-Agent: {UA}"',
        ("UrlPassFake36",),
        ("http://admin:***@127.0.0.1:18765/v3", "-X GET"),
    ),
    SecretCase(
        "ksa: Making authentication request to URL with credentials",
        "Making authentication request to https://admin:UrlPassFake37@keystone.example.com:5000"
        "/v3/auth/tokens",
        ("UrlPassFake37",),
        ("keystone.example.com:5000/v3/auth/tokens",),
    ),
    # --- headers ------------------------------------------------------------------
    SecretCase(
        "ksa curl header: X-Account-Meta-Temp-URL-Key",
        'REQ: curl -g -i -X POST http://127.0.0.1:18765/swift/v1/AUTH_proj1 -H "User-Agent: '
        f'{UA}" -H "X-Account-Meta-Temp-URL-Key: TempKeyFake38" -H "X-Auth-Token: {SHA}"',
        ("TempKeyFake38",),
        (SHA, "X-Account-Meta-Temp-URL-Key: ***", "/swift/v1/AUTH_proj1"),
    ),
    SecretCase(
        "ksa RESP line: Set-Cookie between other headers",
        "RESP: [200] Content-Length: 133 Content-Type: application/json Set-Cookie: "
        "sessionid=CookieFake39; Path=/; HttpOnly Vary: X-Auth-Token x-openstack-request-id: "
        "req-0a1b2c3d",
        ("CookieFake39",),
        ("Content-Type: application/json", "Vary: X-Auth-Token", "req-0a1b2c3d", "[200]"),
    ),
    SecretCase(
        "ksa RESP line: unhashed X-Subject-Token from a proxy log",
        f"RESP: [201] Content-Type: application/json X-Subject-Token: {FERNET} "
        "x-openstack-request-id: req-1",
        (FERNET,),
        ("[201]", "x-openstack-request-id: req-1"),
    ),
    SecretCase(
        "heatclient curl header: X-Auth-Key (--os-no-client-auth)",
        "DEBUG (http) curl -g -i -X GET -H 'Content-Type: application/json' -H 'X-Auth-User: "
        "admin' -H 'X-Auth-Key: HeatKeyFake41' -H 'X-Auth-Url: http://127.0.0.1:18765/v3' "
        "http://127.0.0.1:18765/heat/v1/proj1/stacks?",
        ("HeatKeyFake41",),
        ("X-Auth-User: admin", "/heat/v1/proj1/stacks"),
    ),
    SecretCase(
        "heatclient response dump: header line",
        "X-Auth-Token: HeatDumpTokenFake42",
        ("HeatDumpTokenFake42",),
        ("X-Auth-Token: ***",),
    ),
    SecretCase(
        "swiftclient curl: 16-character token prefix and Temp-Url-Key prefix",
        "DEBUG:swiftclient:REQ: curl -i http://127.0.0.1:18765/swift/v1/AUTH_proj1 -X POST -H "
        '"X-Auth-Token: gAAAAABnFakeFe43..." -H "X-Account-Meta-Temp-Url-Key: SwiftTemp43..."',
        ("gAAAAABnFakeFe43", "SwiftTemp43"),
        ("-X POST", "/swift/v1/AUTH_proj1"),
    ),
    SecretCase(
        "swiftclient RESP HEADERS dict",
        "DEBUG:swiftclient:RESP HEADERS: {'Content-Type': 'application/json', "
        "'X-Account-Meta-Temp-URL-Key': 'TempKeyAc44...', 'X-Trans-Id': 'tx123'}",
        ("TempKeyAc44",),
        ("'X-Trans-Id': 'tx123'",),
    ),
    SecretCase(
        "swift stat output: Meta Temp-Url-Key",
        "Meta Temp-Url-Key: TempKeyStatFake45",
        ("TempKeyStatFake45",),
        ("Meta Temp-Url-Key",),
    ),
    SecretCase(
        "ironic standalone: noauth dummy token as a curl header",
        'REQ: curl -g -i -X GET http://127.0.0.1:6385/v1/nodes -H "X-Auth-Token: '
        'NoauthDummyFake46" -H "X-OpenStack-Ironic-API-Version: 1.80"',
        ("NoauthDummyFake46",),
        ("/v1/nodes", "X-OpenStack-Ironic-API-Version: 1.80"),
    ),
    SecretCase(
        "Authorization header in a Python dict repr",
        "Request headers: {'Authorization': 'Bearer BearerFake47', 'Accept': 'application/json'}",
        ("BearerFake47",),
        ("'Accept': 'application/json'",),
    ),
    # --- Swift TempURLs ---------------------------------------------------------
    SecretCase(
        "heat signal TempURL: temp_url_sig",
        'RESP BODY: {"signal_url": "http://127.0.0.1:18765/v1/AUTH_proj1/c/o?temp_url_sig='
        '53df9450b9a40acb264e0d96c906782445850048&temp_url_expires=1796007903"}',
        ("53df9450b9a40acb264e0d96c906782445850048",),
        ("temp_url_expires=1796007903", "/v1/AUTH_proj1/c/o"),
    ),
    # --- shapes no client prints, pasted beside a run (issue 28) ------------------------
    SecretCase(
        "env dump: an unquoted value with spaces runs to the end of the line",
        "OS_PASSWORD=purple monkey dishwasher 351",
        ("purple monkey dishwasher 351", "monkey dishwasher 351"),
        ("OS_PASSWORD=",),
    ),
    SecretCase(
        "env dump: export of an unquoted value with spaces",
        "export OS_APPLICATION_CREDENTIAL_SECRET=correct horse CurlFake51 staple",
        ("correct horse CurlFake51 staple", "CurlFake51"),
        ("export OS_APPLICATION_CREDENTIAL_SECRET=",),
    ),
    SecretCase(
        "curl -u pasted beside a client run",
        "$ curl -s -u client:CurlPassFake52 https://keystone.example.com:5000/v3/auth/tokens",
        ("CurlPassFake52",),
        ("curl -s -u client:", "keystone.example.com:5000/v3/auth/tokens"),
    ),
    SecretCase(
        "curl --user= pasted beside a client run",
        "curl -X POST --user=admin:CurlUserFake53 http://127.0.0.1:5000/v3/auth/tokens",
        ("CurlUserFake53",),
        ("--user=admin:", "-X POST"),
    ),
    SecretCase(
        "a transport_url of several userinfos in a pasted config",
        "transport_url = rabbit://openstack:RabbitFake54a@ctl1:5672,openstack:RabbitFake54b@"
        "ctl2:5672,openstack:RabbitFake54c@ctl3:5672/",
        ("RabbitFake54a", "RabbitFake54b", "RabbitFake54c"),
        ("rabbit://openstack:***@ctl1:5672,openstack:***@ctl2:5672", "transport_url = "),
    ),
    SecretCase(
        "a redis URL with an empty user",
        "backend_url = redis://:RedisFake55@ctl-vip:6379?db=0",
        ("RedisFake55",),
        ("redis://:***@ctl-vip:6379?db=0",),
    ),
    SecretCase(
        "a GCS signed URL: X-Goog-Signature and X-Goog-Credential",
        "--uri https://storage.googleapis.com/b/cirros.qcow2?X-Goog-Algorithm=GOOG4-RSA-SHA256&"
        "X-Goog-Credential=GoogCredFake56%2F20261101%2Fauto%2Fstorage%2Fgoog4_request&"
        "X-Goog-Date=20261101T120000Z&X-Goog-Expires=900&X-Goog-SignedHeaders=host&"
        "X-Goog-Signature=GoogSigFake57",
        ("GoogSigFake57", "GoogCredFake56"),
        ("X-Goog-Algorithm=GOOG4-RSA-SHA256", "X-Goog-Expires=900", "X-Goog-SignedHeaders=host"),
    ),
    SecretCase(
        "a dotted key in configuration show -f json",
        '  "auth.password": "DottedFake58",',
        ("DottedFake58",),
        ('"auth.password": "***"',),
    ),
    SecretCase(
        "a dotted key in configuration show -f yaml",
        "auth.application_credential_secret: DottedFake59 with words",
        ("DottedFake59", "with words"),
        ("auth.application_credential_secret: ",),
    ),
    SecretCase(
        "a TripleO CamelCase name as YAML in a table cell, value with spaces",
        "|                     | RabbitCookie: CookieFake60 and more words          |",
        ("CookieFake60", "and more words"),
        ("RabbitCookie: ***",),
    ),
    SecretCase(
        "TripleO CamelCase names in a stack's parameters",
        '"parameters": {"HeatAuthEncryptionKey": "CamelFake61a", "KeystoneFernetKey0": '
        '"CamelFake61b", "PacemakerRemoteAuthkey": "CamelFake61c", "SwiftHashSuffix": '
        '"CamelFake61d", "BarbicanSimpleCryptoKek": "CamelFake61e", "KeyName": "default"}',
        ("CamelFake61a", "CamelFake61b", "CamelFake61c", "CamelFake61d", "CamelFake61e"),
        ('"KeyName": "default"', '"HeatAuthEncryptionKey": "***"'),
    ),
    SecretCase(
        "a stack output: the name in output_key, the secret in output_value",
        'RESP BODY: {"output": {"output_key": "admin_password", "description": "Generated '
        'administrator password", "output_value": "SiblingFake62"}}',
        ("SiblingFake62",),
        ('"output_key": "admin_password"', '"output_value": "***"'),
    ),
    SecretCase(
        "name/value pairs: the value of the one whose name is secret",
        'RESP BODY: {"bios": [{"name": "BootMode", "value": "Uefi"}, {"name": "SetupPassword", '
        '"value": "SiblingFake63"}]}',
        ("SiblingFake63",),
        ('"value": "Uefi"', '"name": "SetupPassword"'),
    ),
    SecretCase(
        "key/value list: the value of a secret key",
        "[{'key': 'rabbit_cookie', 'value': 'SiblingFake64'}, {'key': 'db_host', 'value': "
        "'10.0.0.5'}]",
        ("SiblingFake64",),
        ("'value': '10.0.0.5'",),
    ),
    SecretCase(
        "cloud-init's random passwords in a console's JSON string",
        'RESP BODY: {"output": "cloud-init[812]: Cloud-init v. 23.4 running\\nSet the following '
        "'random' passwords\\n\\nroot:ConsoleFake65\\nubuntu:ConsoleFake66\\n"
        'ci-info: no keys\\n"}',
        ("ConsoleFake65", "ConsoleFake66"),
        ("Set the following 'random' passwords", "ci-info: no keys", "root:***"),
    ),
    SecretCase(
        "user data feeding chpasswd, echoed on the console",
        "[   12.498005] cloud-init[812]: + echo 'deploy:ConsoleFake67' | chpasswd",
        ("ConsoleFake67",),
        ("cloud-init[812]: + echo 'deploy:***' | chpasswd",),
    ),
    SecretCase(
        "safety net: a generated password under a name no rule knows, in a body",
        'RESP BODY: {"server": {"id": "3f6c2a1e-8b4d-4e7f-9a2c-1d5e6f7a8b9c", "metadata": '
        f'{{"cluster_seed": "{RANDOM_PASSWORD}", "role": "web"}}}}}}',
        (RANDOM_PASSWORD,),
        ('"role": "web"', "3f6c2a1e-8b4d-4e7f-9a2c-1d5e6f7a8b9c", '"cluster_seed": "***"'),
        by_shape=True,
    ),
    SecretCase(
        "safety net: a generated password under a name no rule knows, in a table",
        f"| properties | cluster_seed='{RANDOM_PASSWORD_2}', role='web' |",
        (RANDOM_PASSWORD_2,),
        ("role='web'", "| properties |"),
        by_shape=True,
    ),
    SecretCase(
        "safety net: a generated password under a name no rule knows, in a pasted config",
        f"scheduler_seed = {RANDOM_PASSWORD_3}",
        (RANDOM_PASSWORD_3,),
        ("scheduler_seed = ***",),
        by_shape=True,
    ),
    SecretCase(
        "safety net: generated key material (base64url, base64)",
        f"rotation_material: {RANDOM_KEY} sealed={RANDOM_BLOB}",
        (RANDOM_KEY, RANDOM_BLOB, RANDOM_KEY[:20], RANDOM_BLOB[:20]),
        ("rotation_material: ***", "sealed=***"),
        by_shape=True,
    ),
    SecretCase(
        "safety net: a PEM block other than a private key",
        "-----BEGIN ENCRYPTED DATA-----MIIBPemBodyFake68xQ9mLr2ZtK8vN1bYc7HdJ3sWfP6g-----END "
        "ENCRYPTED DATA-----",
        ("MIIBPemBodyFake68xQ9mLr2ZtK8vN1bYc7HdJ3sWfP6g",),
        ("-----BEGIN ENCRYPTED DATA-----",),
        by_shape=True,
    ),
    SecretCase(
        "Fernet token inside an error message",
        f"Unauthorized: The request you have made requires authentication for token {FERNET}.",
        (FERNET,),
        ("Unauthorized:",),
        by_shape=True,
    ),
]

ALL_SECRETS: frozenset[str] = frozenset(secret for case in CASES for secret in case.secrets)

#: Lines that mention secrets by name only: redaction must leave them unchanged.
CLEAN_LINES: list[str] = [
    'RESP BODY: {"user": {"enabled": true, "name": "bob", "password_expires_at": null}}',
    '{"token": {"methods": ["password"], "user": {"id": "8a3f", "password_expires_at": null}}}',
    f"RESP: [201] Content-Type: application/json X-Subject-Token: {SHA} Vary: X-Auth-Token",
    "DEBUG (http) curl -g -i -X GET -H 'X-Auth-Token: {SHA1}0b9c2625dc21ef05f6ad4ddf47c5f203"
    "837aa32c' http://127.0.0.1:18765/heat/v1/proj1/stacks",
    "Using parameters {'auth_url': 'http://127.0.0.1:18765/v3', 'username': 'admin', "
    "'password': '***'}",
    "Missing value password required for auth plugin password",
    "Auth plugin password selected",
    "START with options: --debug user create --password-prompt bob",
    "START with options: --debug user set --ignore-change-password-upon-first-use bob",
    "| password_expires_at | None                             |",
    "| Secret       |                                  |",
    "Making authentication request to http://127.0.0.1:18765/v3/auth/tokens",
    "Starting new HTTP connection (1): 127.0.0.1:18765",
    "options: Namespace(key=None, cert=None, auth_type=None, token=*** access_token_type=None)",
    'http://127.0.0.1:18765 "POST /v3/auth/tokens HTTP/1.1" 201 4507',
    "/v1/AUTH_proj1/c/o?temp_url_expires=1796007903",
    # OpenStack's own identifiers and digests, which the safety net keeps:
    'RESP BODY: {"image": {"checksum": "443b7623e27ecf03dc9e01ee93f67afe", "os_hash_algo": '
    '"sha512", "os_hash_value": "6b813aa46bb90b4da216a4d19376593fa3f4fc7e617f03a92b7fe11e9a3'
    '981cbe8f095d8ca4b9a2e8a1d4d2e0f1c3b5a7e9d1f3b5c7e9a1b3d5f7a9c1e3b5d7f9a"}}',
    '{"hostId": "9b1e0c5d7f3a2e4b6c8d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d", "id": '
    '"3f6c2a1e-8b4d-4e7f-9a2c-1d5e6f7a8b9c", "tenant_id": "8c1e5f0a2b7d4e39a6f4c2d1b0e9a8f7"}',
    "RESP: [200] Etag: d41d8cd98f00b204e9800998ecf8427e X-Trans-Id: tx2c4f6e8a0b1d3f5a7c9e1b3"
    "-0065a1b2c3 x-openstack-request-id: req-5c1e2b70-8c8a-4d4f-9a55-3d0e8a6f2b11",
    "GET http://127.0.0.1:8080/v1/AUTH_8c1e5f0a2b7d4e39a6f4c2d1b0e9a8f7/backups/notes.txt",
    '{"audit_ids": ["VcxU2JYqT8OzfO5Gv__Gag"], "expires_at": "2036-11-01T12:00:00.000000Z"}',
    "| public_key | ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7vbqajDhA3x4mTq2Rr9Ks0d demo@web |",
    "keystoneauth1.exceptions.connection.ConnectFailure: HTTPSConnectionPool(host='k', port=1)",
    "| KeyName: default | SnmpdReadonlyUserPassword: *** | v3applicationcredential |",
]


@dataclass(frozen=True)
class SecretPaste:
    """Lines that only together say where a secret is (a paste beside a run, a
    stream's indented JSON or table): ``secrets`` must be gone from the lines
    redacted as one stream, ``keep`` must stay."""

    name: str
    lines: tuple[str, ...]
    secrets: tuple[str, ...]
    keep: tuple[str, ...]


PASTES: list[SecretPaste] = [
    SecretPaste(
        "a Fernet token wrapped by an 80-column terminal",
        (
            "$ openstack token issue -f value -c id",
            *(LONG_FERNET[i : i + 80] for i in range(0, len(LONG_FERNET), 80)),
            "$ openstack server list",
        ),
        tuple(LONG_FERNET[i : i + 80] for i in range(0, len(LONG_FERNET), 80)),
        ("$ openstack token issue -f value -c id", "$ openstack server list"),
    ),
    SecretPaste(
        "an env dump pasted into a ticket",
        (
            "OS_AUTH_URL=https://keystone.example.com:5000/v3",
            "OS_USERNAME=admin",
            "OS_PASSWORD=purple monkey PasteFake70 351",
            "OS_PROJECT_NAME=admin",
        ),
        ("purple monkey PasteFake70 351", "PasteFake70 351"),
        ("OS_AUTH_URL=https://keystone.example.com:5000/v3", "OS_PROJECT_NAME=admin"),
    ),
    SecretPaste(
        "stack output show --all -f json: output_value before output_key",
        (
            "{",
            '  "admin_password": {',
            '    "output_value": "PasteFake71",',
            '    "output_key": "admin_password",',
            '    "description": "Generated administrator password"',
            "  },",
            '  "web_address": {',
            '    "output_value": "10.0.0.7",',
            '    "output_key": "web_address"',
            "  }",
            "}",
        ),
        ("PasteFake71",),
        ('"output_value": "10.0.0.7"', '"output_key": "admin_password"'),
    ),
    SecretPaste(
        "stack output show: a Field/Value table",
        (
            "+--------------+----------------------------------+",
            "| Field        | Value                            |",
            "+--------------+----------------------------------+",
            "| output_key   | admin_password                   |",
            "| description  | Generated administrator password |",
            "| output_value | PasteFake72 with words           |",
            "+--------------+----------------------------------+",
        ),
        ("PasteFake72", "with words"),
        ("| output_key   | admin_password                   |",),
    ),
    SecretPaste(
        "name/value pairs as YAML",
        ("- name: db_host", "  value: 10.0.0.5", "- name: db_password", "  value: PasteFake73"),
        ("PasteFake73",),
        ("  value: 10.0.0.5", "- name: db_password"),
    ),
    SecretPaste(
        "cloud-init's random passwords on a console",
        (
            "[   11.98] cloud-init[812]: Cloud-init v. 23.4.4 running 'modules:config'",
            "Set the following 'random' passwords",
            "",
            "root:PasteFake74",
            "ubuntu:PasteFake75",
            "ci-info: no authorized SSH keys fingerprints found for user ubuntu.",
        ),
        ("PasteFake74", "PasteFake75"),
        ("ci-info: no authorized SSH keys fingerprints found for user ubuntu.",),
    ),
    SecretPaste(
        "a chpasswd list that user data echoes",
        (
            "[   12.41] cloud-init[812]: chpasswd:",
            "[   12.41] cloud-init[812]:   expire: false",
            "[   12.41] cloud-init[812]:   list: |",
            "[   12.41] cloud-init[812]:     admin:PasteFake76",
            "[   12.41] cloud-init[812]:     backup:PasteFake77",
            "[   12.50] cloud-init[812]: Cloud-init v. 23.4.4 finished",
        ),
        ("PasteFake76", "PasteFake77"),
        ("cloud-init[812]:   expire: false", "Cloud-init v. 23.4.4 finished"),
    ),
]

PASTE_SECRETS: frozenset[str] = frozenset(s for paste in PASTES for s in paste.secrets)


# --- real-client fixtures ------------------------------------------------------------
#
# Each lab case ``generic.secret-<shape>`` (and any other case listed in
# SECRET_CASE_IDS) runs a real client with the lab's fake secrets in one shape
# the clients print them in; its fixture log is checked in every output. Adding
# a case adds it to every check.

ROOT = Path(__file__).resolve().parent.parent
LOGS = ROOT / "tests" / "fixtures" / "logs"
#: Cases outside the ``generic.secret-*`` family that carry a secret in a shape
#: of their own (the family is where the command belongs).
SECRET_CASE_IDS: tuple[str, ...] = (
    "heat.stack-create.secret-parameter-names",
    "heat.stack-create.secret-hidden-parameter",
    "osc.server-create.secret-user-data",
    "ironic.conflict-retry.secret-driver-info-patch",
    "ironic.conflict-retry.secret-bios-setting-list",
    "osc.auth.secret-configuration-json",
    "osc.auth.secret-configuration-yaml",
    "osc.find-by-name.secret-unnamed-server-metadata",
)
#: Shortest piece of a secret that must not show.
FRAGMENT = 10


def secret_cases() -> list[Case]:
    """Every lab case of the secret corpus, by id."""
    paths = sorted((CASES_DIR / "generic").glob("secret-*.yaml"))
    paths += [
        CASES_DIR / case_id.rpartition(".")[0] / f"{case_id.rpartition('.')[2]}.yaml"
        for case_id in SECRET_CASE_IDS
    ]
    return [load_case(path) for path in paths]


def secret_fixtures() -> list[Path]:
    return [LOGS / f"{case.id}.log" for case in secret_cases()]


def _base64_forms(value: bytes) -> set[str]:
    """The parts of ``value``'s base64 that do not depend on what surrounds it."""
    forms: set[str] = set()
    for shift, skip in ((0, 0), (1, 2), (2, 3)):
        encoded = base64.b64encode(b"\0" * shift + value).decode()
        middle = encoded[skip:-4]
        if len(middle) >= 8:
            forms.add(middle)
    return forms


def secret_forms(secret: str) -> set[str]:
    """What must never show of ``secret``: itself, its URL-encoded and base64
    forms, and every piece of it FRAGMENT characters long."""
    forms = {secret, quote(secret, safe=""), quote_plus(secret)}
    forms |= _base64_forms(secret.encode())
    forms |= {secret[i : i + FRAGMENT] for i in range(len(secret) - FRAGMENT + 1)}
    return forms


FAKE_FORMS: dict[str, str] = {
    form: secret for secret in fakes.FAKE_SECRETS for form in secret_forms(secret)
}


#: Secrets derived from the fake ones, which show under their own shape: a
#: TempURL's signature (made with a fake key).
DERIVED = re.compile(r"temp_url_sig=[0-9a-f]{16,}")


def fixture_leaks(text: str, allowed: str = "") -> list[str]:
    """Forms of the lab's fake secrets in ``text``; ``allowed`` (a file name, a
    case id) may hold some pieces by chance, which are then not counted."""
    found = [form for form in FAKE_FORMS if form in text and form not in allowed]
    return sorted(found + DERIVED.findall(text))
