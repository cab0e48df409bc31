"""The services table (``knowledge/services.yaml``): valid by its schema and by
``kb lint``, read the same from the cache as from the file, and right where the old
copies disagreed."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from osdoctor import servicetable
from osdoctor.kb.loader import KnowledgeBase
from osdoctor.kb.yamlfile import load_yaml

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "knowledge" / "services.yaml"
SCHEMA = json.loads((ROOT / "osdoctor" / "schemas" / "services.schema.json").read_text())


def _doc() -> Any:
    return yaml.safe_load(DATA.read_text(encoding="utf-8"))


def test_the_file_follows_its_schema_and_the_check() -> None:
    jsonschema.validate(_doc(), SCHEMA, format_checker=jsonschema.FormatChecker())
    assert servicetable.check(_doc()) == []


@pytest.mark.parametrize(
    ("edit", "says"),
    [
        (lambda d: d["services"]["compute"].pop("project"), "field 'project' is required"),
        (lambda d: d["services"]["compute"].update(port=[8774]), "unknown field 'port'"),
        (lambda d: d["services"]["compute"].update(ports=["8774"]), "'ports' is a list of int"),
        (
            lambda d: d["services"]["shared-file-system"].update(aliases=["volume"]),
            "'volume' already names service 'block-storage'",
        ),
        (
            lambda d: d["services"]["image"].update(usual_type="images"),
            "usual_type 'images' is not an alias",
        ),
        (
            lambda d: d["services"]["image"].update(ports=[8774]),
            "port 8774 is already service 'compute's",
        ),
    ],
)
def test_a_bad_entry_is_rejected_by_schema_and_check(edit: Any, says: str) -> None:
    doc = _doc()
    edit(doc)
    messages = [message for _line, message in servicetable.check(doc)]
    assert any(says in m for m in messages), messages
    if "already" not in says and "usual" not in says:  # beyond a JSON schema
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(doc, SCHEMA, format_checker=jsonschema.FormatChecker())
    with pytest.raises(servicetable.ServiceTableError, match=says.replace("'", ".")):
        servicetable.build(doc)


def test_kb_lint_names_the_file_and_line_of_a_bad_entry(tmp_path: Path) -> None:
    bad = tmp_path / "services.yaml"
    bad.write_text(
        "kind: services\nservices:\n  compute:\n    project: Nova\n    code: nova\n"
        "  image:\n    project: Glance\n    prots: [9292]\n",
        encoding="utf-8",
    )
    kb = KnowledgeBase()
    kb.add_document(str(bad), load_yaml(bad), "built-in")
    assert [(i.line, i.message, i.severity) for i in kb.issues] == [
        (7, "service 'image': unknown field 'prots'", "error"),
        (7, "service 'image': field 'code' is required (text)", "error"),
    ]


def test_the_built_in_knowledge_holds_the_table_without_an_issue() -> None:
    kb = KnowledgeBase()
    kb.add_document(str(DATA), load_yaml(DATA), "built-in")
    assert kb.issues == []


def test_a_second_read_comes_from_the_private_cache(tmp_path: Path) -> None:
    data = tmp_path / "services.yaml"
    data.write_text(DATA.read_text(encoding="utf-8"), encoding="utf-8")
    first = servicetable.read(data)
    cached = list(Path(os.environ["OSDOCTOR_HOME"], "cache").glob("services-*.json"))
    assert len(cached) == 1
    assert cached[0].stat().st_mode & 0o077 == 0
    assert json.loads(cached[0].read_text()) == first == _doc()
    assert servicetable.read(data) == first
    data.write_text(DATA.read_text(encoding="utf-8").replace("Nova", "Nova!"), encoding="utf-8")
    assert servicetable.read(data)["services"]["compute"]["project"] == "Nova!"


def test_the_lookups_follow_the_authority() -> None:
    table = servicetable.table()
    assert table.official("volumev3") == table.official("volume") == "block-storage"
    assert table.official("sharev2") == "shared-file-system"
    assert table.official("not-a-service") == "not-a-service"
    # Most catalogs still say volume: what the facts call Cinder when no catalog says.
    assert [
        getattr(table.get(n), "usual_type", "") for n in ("volumev3", "sharev2", "compute")
    ] == [
        "volume",
        "sharev2",
        "compute",
    ]
    assert [table.type_at_port(p) for p in ("8776", "8786", "13000", "5050")] == [
        "block-storage",
        "shared-file-system",
        "identity",
        "baremetal-introspection",
    ]
    assert table.type_at_port("1") == ""
    assert table.families()["cinder"] == (
        "block-storage",
        "volume",
        "volumev2",
        "volumev3",
        "block-store",
    )
    assert table.peer_at_port("5672") == "RabbitMQ"
    cinder = table.of_code("cinder")
    assert cinder is not None and cinder.catalog_name == "cinderv3"


def test_a_refusal_is_read_by_the_rule_it_names(tmp_path: Path) -> None:
    """kb lint holds the facts' refusal words and the rule's symptoms together."""
    from osdoctor.kb.loader import load_knowledge

    kb = load_knowledge(user=False)
    assert [i for i in kb.issues if "refusal" in i.message] == []
    named = {rule for _p, _l, _w, rule in kb.refusals}
    assert {"known.no-valid-host", "known.quota-exceeded-for"} <= named
    kb.refusals.append((str(DATA), 9, "No valid host was found", "known.quota-exceeded-for"))
    kb.refusals.append((str(DATA), 10, "x", "known.no-such-rule"))
    kb.check_references()
    assert [(i.line, i.message) for i in kb.issues if "refusal" in i.message] == [
        (
            9,
            "refusal 'No valid host was found': no symptom of rule known.quota-exceeded-for "
            "has these words (the facts and the rule would read different words)",
        ),
        (10, "refusal 'x': no rule 'known.no-such-rule'"),
    ]


@pytest.mark.parametrize(
    ("refusal", "says"),
    [
        ({"words": "(unclosed"}, "'words' is not a regular expression"),
        ({"words": "x", "status": 200}, "'status' is an error status"),
        ({"word": "x"}, "a mapping with 'words'"),
    ],
)
def test_a_bad_refusal_is_rejected(refusal: dict[str, Any], says: str) -> None:
    doc = _doc()
    doc["refusals"].append(refusal)
    messages = [message for _line, message in servicetable.check(doc)]
    assert any(says in m for m in messages), messages
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, SCHEMA, format_checker=jsonschema.FormatChecker())
