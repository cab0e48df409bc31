"""The fault body shapes, status words and client words of ``knowledge/services.yaml``:
a broken entry is refused by the schema, by the check and by ``kb lint`` with its line;
a status word whose rule lost the words fails ``kb lint``; the shapes read each
service's body, and the client words say the service."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from osdoctor import faultwords, servicetable
from osdoctor.facts.fault_text import from_json
from osdoctor.kb.loader import KnowledgeBase, load_knowledge
from osdoctor.kb.yamlfile import load_yaml

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "knowledge" / "services.yaml"
SCHEMA = json.loads((ROOT / "osdoctor" / "schemas" / "services.schema.json").read_text())
DOC = yaml.safe_load(DATA.read_text(encoding="utf-8"))


def _shape(name: str, doc: Any) -> dict[str, Any]:
    shape: dict[str, Any] = next(s for s in doc["faults"]["shapes"] if s["shape"] == name)
    return shape


@pytest.mark.parametrize(
    ("edit", "says", "schema_sees"),
    [
        (lambda d: _shape("heat", d).update(mesage=["message"]), "unknown field 'mesage'", True),
        (lambda d: _shape("heat", d).pop("message"), "field 'message' is required", True),
        (lambda d: _shape("heat", d).update(value="dict"), "'value' is one of mapping", True),
        (lambda d: _shape("heat", d).update(key="an error"), "'key' is a key name or '*'", True),
        (lambda d: _shape("heat", d).update(code="code"), "'code' is a list of key names", True),
        (
            lambda d: _shape("neutron", d).update(service="networking"),
            "service 'networking' is not in the services table",
            False,
        ),
        (
            lambda d: _shape("heat", d).update(names=["error"]),
            "'names' and 'or_inside' are for key '*'",
            False,
        ),
        (
            lambda d: d["faults"]["openings"].append("NeutronErorr"),
            "opening 'NeutronErorr' is a key no shape reads",
            False,
        ),
        (
            lambda d: d["faults"]["openings"].append("two words"),
            "'openings' is a list of key names",
            True,
        ),
        (
            lambda d: d["faults"]["type_status"].append({"words": "Gone"}),
            "type_status 11: a mapping of 'words' and a 'status'",
            True,
        ),
        (
            lambda d: d["status_words"].append({"words": "(unclosed", "status": 400}),
            "'words' is not a regular expression",
            True,
        ),
        (
            lambda d: d["status_words"].append({"words": "x", "status": 200}),
            "status words 7: 'status' is an error status",
            True,
        ),
        (
            lambda d: d["status_words"].append({"words": "x", "status": 400, "rule": 3}),
            "'rule' is a rule id or a list of them",
            True,
        ),
    ],
)
def test_a_bad_entry_is_refused_by_the_schema_and_the_check(
    edit: Any, says: str, schema_sees: bool
) -> None:
    doc = copy.deepcopy(DOC)
    edit(doc)
    messages = [message for _line, message in faultwords.check(doc)]
    assert any(says in m for m in messages), messages
    if schema_sees:
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(doc, SCHEMA, format_checker=jsonschema.FormatChecker())
    else:  # beyond a JSON schema: it needs the services table
        jsonschema.validate(doc, SCHEMA, format_checker=jsonschema.FormatChecker())
    if "regular expression" in says:
        return  # start-up does not compile the words: their first use, and kb lint, do
    with pytest.raises(servicetable.ServiceTableError, match=says.replace("'", ".")):
        faultwords.build(doc)


def test_the_file_holds_valid_fault_words() -> None:
    assert faultwords.check(DOC) == []
    built = faultwords.build(DOC)
    assert [s.shape for s in built.shapes][:3] == ["neutron", "ironic", "heat"]
    assert built.service_of("neutron") == "network" and built.service_of("heat") == ""
    assert built.status_of_type("PortInUse") == 409
    assert built.status_of_type("Whatever") is None


def test_kb_lint_names_the_file_and_line_of_a_broken_shape(tmp_path: Path) -> None:
    text = DATA.read_text(encoding="utf-8").replace(
        "    - shape: keystone\n      key: error\n",
        "    - shape: keystone\n      key: error\n      mesage: [message]\n",
    )
    bad = tmp_path / "services.yaml"
    bad.write_text(text, encoding="utf-8")
    line = text.splitlines().index("    - shape: keystone") + 1
    kb = KnowledgeBase()
    kb.add_document(str(bad), load_yaml(bad), "built-in")
    assert [(i.path, i.line, i.message) for i in kb.issues] == [
        (str(bad), line, "fault shape 4 (keystone): unknown field 'mesage'")
    ]


def test_kb_lint_names_the_line_of_a_broken_status_word(tmp_path: Path) -> None:
    text = DATA.read_text(encoding="utf-8").replace(
        "  - words: is disallowed by policy\n    status: 403\n",
        "  - words: is disallowed by policy\n    status: 200\n",
    )
    bad = tmp_path / "services.yaml"
    bad.write_text(text, encoding="utf-8")
    line = text.splitlines().index("  - words: is disallowed by policy") + 1
    kb = KnowledgeBase()
    kb.add_document(str(bad), load_yaml(bad), "built-in")
    assert [(i.line, i.message) for i in kb.issues] == [
        (line, "status words 2: 'status' is an error status (4xx or 5xx)")
    ]


def test_kb_lint_fails_when_a_named_rule_lost_the_status_words() -> None:
    kb = load_knowledge(user=False)
    assert [i for i in kb.issues if "status words" in i.message] == []
    assert {rule for _p, _l, _w, rule in kb.status_words} == {"generic.forbidden"}
    kb.rules["generic.forbidden"].symptoms = ["(HTTP 403)", "is disallowed by policy"]
    kb.status_words.append((str(DATA), 7, "x", "known.no-such-rule"))
    kb.check_references()
    assert [i.message for i in kb.issues if "status words" in i.message] == [
        "status words 'Policy doesn't allow': no symptom of rule generic.forbidden has these "
        "words (the facts and the rule would read different words)",
        "status words 'x': no rule 'known.no-such-rule'",
    ]


def test_a_refusal_or_status_words_may_name_several_rules() -> None:
    doc = copy.deepcopy(DOC)
    doc["status_words"][0]["rule"] = ["generic.forbidden", "heat.delete-forbidden"]
    assert servicetable.check(doc) == [] and faultwords.check(doc) == []
    jsonschema.validate(doc, SCHEMA, format_checker=jsonschema.FormatChecker())
    assert faultwords.build(doc).status_words[0].rules == (
        "generic.forbidden",
        "heat.delete-forbidden",
    )


@pytest.mark.parametrize(
    ("body", "fault"),
    [
        (
            {"NeutronError": {"type": "PortInUse", "message": "in use", "detail": ""}},
            ("in use", "neutron", "PortInUse", "", ""),
        ),
        ({"NeutronError": "plain words"}, ("plain words", "neutron", "", "", "")),
        (
            {
                "error_message": '{"faultstring": "locked", "faultcode": "Client", '
                '"debuginfo": null}'
            },
            ("locked", "ironic", "", "Client", ""),
        ),
        ({"error_message": "not json"}, ("not json", "ironic", "", "", "")),
        (
            {"explanation": "The server could not comply", "code": 400, "error": {"type": "X"}},
            ("The server could not comply", "heat", "X", "400", "The server could not comply"),
        ),
        (
            {"error": {"code": 401, "title": "Unauthorized"}},
            ("Unauthorized", "keystone", "Unauthorized", "401", ""),
        ),
        (
            {"errors": [{"status": 409, "title": "Conflict", "detail": "busy", "code": None}]},
            ("busy", "placement", "Conflict", "409", ""),
        ),
        (
            {"faultstring": "no", "faultcode": "Client", "debuginfo": None, "description": "d"},
            ("no", "wsme", "", "Client", "d"),
        ),
        (
            {"itemNotFound": {"message": "gone", "code": 404}},
            ("gone", "nova", "itemNotFound", "404", ""),
        ),
        ({"someFault": {"message": "m", "code": 400}}, ("m", "nova", "someFault", "400", "")),
        ({"someFault": {"message": "m"}}, None),
        (
            {"message": "zone", "code": 404, "type": "zone_not_found"},
            ("zone", "designate", "zone_not_found", "404", ""),
        ),
        (
            {"code": 404, "title": "Not Found", "description": "secret"},
            ("secret", "barbican", "Not Found", "404", ""),
        ),
        ({"message": "m", "title": "t"}, ("m", "plain", "t", "", "")),
        ({"message": "m"}, None),
    ],
)
def test_the_shapes_read_each_services_body(body: Any, fault: Any) -> None:
    found = from_json(body)
    got = (
        None
        if found is None
        else (found.message, found.shape, found.type, found.code, found.detail)
    )
    assert got == fault


def test_policy_prefixes_and_quota_errors_are_fields_of_their_service() -> None:
    table = servicetable.table()
    assert [
        getattr(table.of_policy_prefix(p), "usual_type", "")
        for p in (
            "os_compute_api",
            "volume_extension",
            "compute",
        )
    ] == ["compute", "volume", ""]
    quota = {s.usual_type: s.quota_errors for s in table.services if s.quota_errors}
    assert set(quota) == {"volume", "network"}


@pytest.mark.parametrize(
    ("edit", "says"),
    [
        (
            lambda d: d["services"]["compute"].update(policy_prefixes="os_compute_api"),
            "field 'policy_prefixes' is a list of str",
        ),
        (
            lambda d: d["services"]["network"].update(quota_errors=["(OverQuota"]),
            "quota error '(OverQuota'",
        ),
    ],
)
def test_a_bad_policy_prefix_or_quota_error_is_refused(edit: Any, says: str) -> None:
    doc = copy.deepcopy(DOC)
    edit(doc)
    messages = [message for _line, message in servicetable.check(doc)]
    assert any(says in m for m in messages), messages
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, SCHEMA, format_checker=jsonschema.FormatChecker())


@pytest.mark.parametrize(
    ("edit", "says", "schema_sees"),
    [
        (
            lambda d: d["clients"]["last"].append({"service": "volumes", "words": "^cinder"}),
            "clients last 11: service 'volumes' is not in the table",
            False,
        ),
        (
            lambda d: d["clients"]["first"].append({"service": "dns", "words": "^(designate"}),
            "clients first 6: 'words' is not a regular expression",
            True,
        ),
        (
            lambda d: d["clients"]["first"].append({"service": "dns", "word": "^designate"}),
            "clients first 6: a mapping of 'service' and 'words'",
            True,
        ),
        (lambda d: d["clients"].update(middle=[]), "'clients' maps 'first' and 'last'", True),
    ],
)
def test_a_bad_client_entry_is_refused(edit: Any, says: str, schema_sees: bool) -> None:
    doc = copy.deepcopy(DOC)
    edit(doc)
    messages = [message for _line, message in servicetable.check(doc)]
    assert any(says in m for m in messages), messages
    if schema_sees:
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(doc, SCHEMA, format_checker=jsonschema.FormatChecker())
    else:
        jsonschema.validate(doc, SCHEMA, format_checker=jsonschema.FormatChecker())


@pytest.mark.parametrize(
    ("agent", "command", "url", "service"),
    [
        ("python-barbicanclient/5.0", "", "http://c:9696/v2.0/x", "key-manager"),
        ("", "openstack zone list", "", "dns"),
        ("", "openstack --os-cloud x image list", "", "image"),
        ("", "nova volume-list", "", "volume"),
        ("", "nova list", "", "compute"),
        ("", "openstack security group list", "", "network"),
        ("", "openstack server list", "http://c:9696/v2.0/x", "network"),
        ("", "ls", "", ""),
    ],
)
def test_the_client_words_say_the_service(agent: str, command: str, url: str, service: str) -> None:
    from osdoctor.facts.known_names import service_for

    assert service_for(None, url, agent, command) == service
