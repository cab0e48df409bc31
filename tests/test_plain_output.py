"""What the clients print without --debug, read as they print it.

The shapes come from the clients' own source (``osdoctor/facts/printed.py`` says
which client and release prints which); the lab's plain captures are the real
clients' output of several of them. A printed error gives who said what; the
service's words outrank the client's summary of them; a paste with a client's
words always gets a report.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from osdoctor.cli import main
from osdoctor.diagnose import diagnose, parse_path, parse_stream
from osdoctor.facts.printed import decisive, read_line, read_lines
from osdoctor.kb.loader import KnowledgeBase, load_knowledge
from osdoctor.model import Report
from tests.helpers.public_logs import all_public_logs, public_log

LOGS = Path(__file__).resolve().parent / "fixtures" / "logs"
WILD = Path(__file__).resolve().parent / "fixtures" / "wild"
RID = "req-0b6d3c1e-2f4a-4b8c-9d7e-5a1f3c2e4b6d"


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return load_knowledge(user=False)


def _explain(text: str, kb: KnowledgeBase) -> Report:
    return diagnose(parse_stream(io.BytesIO(text.encode()), "pasted.log"), kb)


# (line as the client prints it, role, the service's or client's words, status,
# request id or service named)
SHAPES = [
    # novaclient's ClientException (2012 on) behind its shell's "ERROR (Class): "
    (
        f"ERROR (Conflict): Cannot 'resize' instance 42 while it is in task_state deleting "
        f"(HTTP 409) (Request-ID: {RID})",
        "refusal",
        "Cannot 'resize' instance 42 while it is in task_state deleting",
        409,
        RID,
    ),
    # novaclient before 2.20 and cinderclient: "ERROR: "
    (
        f"ERROR: The server has either erred or is incapable of performing the requested "
        f"operation. (HTTP 500) (Request-ID: {RID})",
        "refusal",
        "The server has either erred or is incapable of performing the requested operation",
        500,
        RID,
    ),
    # keystoneauth's HttpError, as every openstack command through a python-*client
    (
        f"You are not authorized to perform the requested action: identity:list_users. "
        f"(HTTP 403) (Request-ID: {RID})",
        "refusal",
        "You are not authorized to perform the requested action: identity:list_users",
        403,
        RID,
    ),
    # openstacksdk's HttpException
    (
        "ConflictException: 409: Client Error for url: http://192.0.2.10:8774/v2.1/servers/"
        "42/action, Instance 42 is locked",
        "refusal",
        "Instance 42 is locked",
        409,
        "",
    ),
    # cinderclient's many-target commands
    (
        f"Delete for backup 7 failed: Invalid backup: Backup status must be available or "
        f"error (HTTP 400) (Request-ID: {RID})",
        "refusal",
        "Invalid backup: Backup status must be available or error",
        400,
        RID,
    ),
    # ironicclient's retries
    (
        "Error contacting Ironic server: Node 5 is locked by host c1, please retry after "
        f"the current operation is completed. (HTTP 409) (Request-ID: {RID}). Attempt 6 of 6",
        "refusal",
        "Node 5 is locked by host c1, please retry after the current operation is completed",
        409,
        "Ironic",
    ),
    # ceilometerclient's HTTPException, the class first
    ("HTTPNotFound (HTTP 404) ERROR Meter x not found", "refusal", "Meter x not found", 404, ""),
    # swiftclient's ClientException, old and new
    (
        "Account HEAD failed: http://192.0.2.10:8080/v1/AUTH_a 401 Unauthorized",
        "refusal",
        "Account HEAD failed: 401 Unauthorized",
        401,
        "",
    ),
    (
        "Account GET failed: http://192.0.2.10:8080/v1/AUTH_a?format=json 400 Bad Request   "
        "Invalid path: /sdb/980/AUTH_a",
        "refusal",
        "Account GET failed: 400 Bad Request: Invalid path: /sdb/980/AUTH_a",
        400,
        "",
    ),
    # the clients' summaries of refusals they printed above
    ("ERROR (CommandError): Unable to reboot the specified server(s).", "summary", None, None, ""),
    ("ERROR: Unable to delete any of the specified backups.", "summary", None, None, ""),
    ("2 of 5 volumes failed to delete.", "summary", None, None, ""),
    # no answer at all
    (
        "Error communicating with http://192.0.2.10:9292 [Errno 111] ECONNREFUSED",
        "transport",
        None,
        None,
        "",
    ),
    ("Connection to neutron failed: Maximum attempts reached", "transport", None, None, "neutron"),
    # configuration, versions, usage
    ("Missing value auth-url required for auth plugin password", "config", None, None, ""),
    ("ERROR: openstack Missing parameter(s): ", "config", "Missing parameter(s):", None, ""),
    (
        "You must provide a username via either --os-username or env[OS_USERNAME]",
        "config",
        None,
        None,
        "",
    ),
    ("Invalid client version '3'. must be one of: 2", "version", None, None, ""),
    ("identity API version 4 is not in supported versions: 2, 2.0, 3", "version", None, None, ""),
    (
        "openstack role list: error: unrecognized arguments: --group 3c65",
        "usage",
        "unrecognized arguments: --group 3c65",
        None,
        "",
    ),
    # exceptions printed bare: Python's words say the type
    ("list index out of range", "exception", None, None, ""),
    ("'NoneType' object has no attribute 'get_token'", "exception", None, None, ""),
    ("ImpImporter instance has no attribute 'load_module'", "exception", None, None, ""),
    (
        "ClientManager.is_service_available() takes 2 positional arguments but 4 were given",
        "exception",
        None,
        None,
        "",
    ),
]


@pytest.mark.parametrize(("text", "role", "words", "status", "said"), SHAPES)
def test_each_client_shape_says_who_said_what(
    text: str, role: str, words: str | None, status: int | None, said: str
) -> None:
    found = read_line(7, text)
    assert found is not None, text
    assert (found.line, found.role, found.status) == (7, role, status)
    if words is not None:
        assert found.words == words
    if said.startswith("req-"):
        assert found.request_id == said
    elif said:
        assert found.service == said


@pytest.mark.parametrize(
    "text",
    [
        "+--------------------------------------+------+--------+",
        "| 42 | web | ERROR |",
        "Deleting server : e0c72865-af29-40c8-b734-dcb240893603",
        "No handlers could be found for logger keystoneauth.identity.generic.base",
        "Waiting for provision state manageable on node(s) node-1",
    ],
)
def test_output_and_chatter_are_no_error(text: str) -> None:
    assert read_line(1, text) is None


def test_the_service_words_outrank_the_summary_of_them() -> None:
    errors = read_lines(
        [
            (3, f"Instance 42 is locked (HTTP 409) (Request-ID: {RID})"),
            (4, "ERROR (CommandError): Unable to reboot the specified server(s)."),
        ]
    )
    lead = decisive(errors)
    assert lead is not None
    assert (lead.line, lead.words, lead.error_class) == (3, "Instance 42 is locked", "CommandError")


def test_what_follows_an_error_line_joins_it() -> None:
    (neutron,) = read_lines(
        [
            (1, "Unable to find network with name 'priv'"),
            (2, f"Neutron server returns request_ids: ['{RID}']"),
        ]
    )
    assert neutron.request_id == RID
    (missing,) = read_lines(
        [(1, "ERROR: openstack Missing parameter(s): "), (2, "Set a username with --os-username")]
    )
    assert missing.words == "Missing parameter(s): Set a username with --os-username"
    (glance,) = read_lines([(1, "410 Gone"), (2, "Error in store configuration.")])
    assert (glance.role, glance.status, glance.words) == (
        "refusal",
        410,
        "Error in store configuration.",
    )


@pytest.mark.parametrize(
    ("paste", "rule", "words"),
    [
        # novaclient's do_action_on_many: each refusal (a bytes repr on Python 3), then
        # CommandError
        (
            f"$ nova reboot web\nb'Instance 42 is locked (HTTP 409) (Request-ID: {RID})'\n"
            "ERROR (CommandError): Unable to reboot the specified server(s).\n",
            "known.instance-locked",
            ["locked"],
        ),
        (
            f"$ cinder backup-delete 7\nDelete for backup 7 failed: Invalid backup: Backup "
            f"status must be available or error (HTTP 400) (Request-ID: {RID})\n"
            "ERROR: Unable to delete any of the specified backups.\n",
            "generic.bad-request",
            ["Cinder", "400", "Backup status must be available or error"],
        ),
        # a refusal a terminal folded before its status keeps its start
        (
            "$ openstack volume create --image cirros --size 1 v1\nInvalid input received: "
            "Image virtual size is 2GB and doesn't fit in a volume of size 1GB, greater\n"
            f"than volume size 1 (HTTP 400) (Request-ID: {RID})\n",
            "generic.bad-request",
            ["Invalid input received", "greater than volume size 1"],
        ),
    ],
)
def test_a_paste_leads_with_the_service_words(
    paste: str, rule: str, words: list[str], kb: KnowledgeBase
) -> None:
    report = _explain(paste, kb)
    first = report.findings[0]
    assert (report.outcome, first.id) == ("failure", rule), first.title
    for word in words:
        assert word in first.title


def test_the_real_client_summary_gives_way_to_the_service_words(kb: KnowledgeBase) -> None:
    """osc's multi-delete, without --debug: the locked 409 leads, not '1 of 3'."""
    report = diagnose(parse_path(LOGS / "osc.multi-delete.partial-failure-locked.plain.log"), kb)
    first = report.findings[0]
    assert first.id == "known.instance-locked" and "is locked" in first.title
    assert "1 of 3 servers failed to delete." in [e.text for e in first.evidence]


@pytest.mark.parametrize("form", ["yaml", "json", "shell", "value"])
def test_a_show_in_every_format_gives_its_fields(form: str, kb: KnowledgeBase) -> None:
    """The real client's server show -f <form>: the fault and the status are
    resource fields at their own lines, and the fault names the cause."""
    log = LOGS / f"generic.server-show-fault-{form}.log"
    trace = parse_path(log)
    (resource,) = trace.resources
    assert (resource.form, resource.type) == (form, "server")
    status, fault = resource.get("status"), resource.get("fault")
    assert status is not None and status.value == "ERROR"
    assert fault is not None and "No valid host was found" in fault.value
    # Each at its own line: the key's, or the bare value's for -f value.
    lines = log.read_text().splitlines()
    assert "ERROR" in lines[status.line - 1]
    assert ("fault" if form != "value" else "No valid host") in lines[fault.line - 1]
    assert diagnose(trace, kb).findings[0].id == "known.no-valid-host"


def test_pasted_rows_and_folded_yaml_are_resources() -> None:
    rows = parse_path(
        public_log("ironic-2021-baremetal-node-show-last-error-missing-ipmi-address-irmc")
    )
    last_error = rows.resources[0].get("last_error")
    assert last_error is not None and last_error.line == 1
    assert last_error.value.endswith("driver_info: ['ipmi_address']")
    folded = parse_path(
        public_log("magnum-2026-coe-cluster-create-failed-capi-webhook-provider-required")
    )
    (cluster,) = folded.resources
    reason = cluster.get("status_reason")
    assert cluster.type == "cluster" and reason is not None and reason.line == 7
    assert reason.value.startswith("ApiError: ") and reason.value.endswith("code: 422 })")


def test_a_row_without_its_header_takes_the_columns_of_its_list() -> None:
    """compute service list's row, the header cut by the poster, the command named
    in the poster's note: Binary, Host, State are known."""
    trace = parse_path(
        public_log("osc-2026-server-create-then-ERROR-no-valid-host-korean-nova-compute-down")
    )
    (service,) = [r for r in trace.resources if r.type == "service"]
    fields = {f.key: f.value for f in service.fields}
    assert (fields["binary"], fields["host"], fields["state"]) == (
        "nova-compute",
        "openstack.test.com",
        "down",
    )


def test_the_wrappers_around_the_client_are_taken_off(kb: KnowledgeBase) -> None:
    heat = parse_path(LOGS / "generic.auth-not-configured.plain.log")
    assert heat.messages[-1].text.startswith("You must provide a username")
    devstack = _explain(
        "2015-05-21 04:29:24.147 | ::./stack.sh:740+openstack --os-token x project show admin\n"
        "2015-05-21 04:29:25.001 | Internal Server Error (HTTP 500)\n",
        kb,
    )
    assert devstack.trace.command == "openstack --os-token *** project show admin"
    assert devstack.findings[0].title.startswith("Keystone failed (500)")
    tempest = _explain(
        "stderr: b'Traceback (most recent call last):\\n  File \"/usr/lib/python3/dist-"
        "packages/openstackclient/shell.py\", line 3, in main\\nKeyError: \\'name\\'\\n'\n",
        kb,
    )
    assert [tb.exc_type for tb in tempest.trace.tracebacks] == ["KeyError"]
    nix = parse_path(public_log("osc-2026-nix-server-create-osc-lib-skew-positional-args"))
    assert nix.command is not None and nix.command.startswith(
        "openstack --os-cloud <cloud> server create"
    )
    flattened = parse_path(
        public_log("osc-2026-volume-list-vvv-flattened-503-keystone-unavailable-cinder-password")
    )
    assert [ex.status for ex in flattened.exchanges][-1] == 503
    decorated = parse_path(
        public_log("keystoneclient-2015-add-user-role-500-server-typeerror-limitedlengthfile")
    )
    assert [ex.status for ex in decorated.exchanges] == [500]


def test_a_later_run_cites_what_an_earlier_run_showed() -> None:
    """A backup list showing the backup creating, then its delete refused: the
    delete's run cites the list's row, on the line the log has it."""
    log = LOGS / "generic.backup-delete-creating.plain.log"
    row = next(i for i, line in enumerate(log.read_text().splitlines(), 1) if "creating" in line)
    from osdoctor.runs.log_runs import read_runs_of_path

    kb = load_knowledge(user=False)
    runs = read_runs_of_path(log, lambda t: diagnose(t, kb), "failed")
    assert [s.outcome for s in runs.summaries] == ["success", "failure"]
    report = runs.reports[1]
    first = report.findings[0]
    assert first.id == "generic.bad-request"
    assert row < runs.summaries[1].first
    assert row in [e.line for e in first.evidence]


def test_a_headline_names_the_earlier_command_that_explains_it(kb: KnowledgeBase) -> None:
    report = diagnose(parse_path(LOGS / "generic.locked-server-lock-then-reboot.plain.log"), kb)
    first = report.findings[0]
    assert first.id == "known.instance-locked-earlier"
    assert '"openstack server lock web" on line 1' in first.title
    assert 1 in [e.line for e in first.evidence]


@pytest.mark.parametrize(
    ("name", "outcome"),
    [
        ("osc.find-by-name.found-by-id.plain", "success"),  # its table, no error
        ("osc.multi-delete.all-deleted.plain", "unknown"),  # a delete prints nothing
    ],
)
def test_a_printed_result_is_a_success_and_silence_is_not(
    name: str, outcome: str, kb: KnowledgeBase
) -> None:
    report = diagnose(parse_path(LOGS / f"{name}.log"), kb)
    assert report.outcome == outcome
    assert [f.id for f in report.findings if f.severity == "error"] == []


def test_a_debug_log_of_a_legacy_client_that_printed_its_table_succeeded(
    kb: KnowledgeBase,
) -> None:
    """keystone --debug user-list logs no END line: its table after the last answer
    says it ended well."""
    report = diagnose(
        parse_path(public_log("keystoneclient-2014-cygwin-user-list-debug-success")), kb
    )
    assert (report.trace.exit_code, report.outcome) == (None, "success")


def _pastes() -> list[Path]:
    return [
        *all_public_logs(),
        *sorted(WILD.glob("*.log")),
        *sorted(LOGS.glob("*.plain.log")),
    ]


@pytest.mark.parametrize("log", _pastes(), ids=lambda p: p.stem)
def test_no_paste_with_a_client_s_words_exits_2(
    log: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["explain", "--no-user-kb", str(log)]) in (0, 1)
    assert "nothing from an OpenStack client" not in capsys.readouterr().err


def test_input_with_nothing_of_openstack_still_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "notes.txt"
    log.write_text("status: ok\nDid the backup finish?\n| a | b |\nlist index of chapters\n")
    assert main(["explain", "--no-user-kb", str(log)]) == 2
    assert "nothing from an OpenStack client" in capsys.readouterr().err


def test_a_resource_condition_says_what_is_wrong_with_it() -> None:
    from osdoctor.kb.conditions import Condition, ConditionError

    with pytest.raises(ConditionError, match="resource is a mapping"):
        Condition({"resource": {"matches": "ERROR"}})
    with pytest.raises(ConditionError, match="unknown key 'value'"):
        Condition({"resource": {"field": "status", "value": "ERROR"}})
    with pytest.raises(ConditionError, match="not a valid regular expression"):
        Condition({"resource": {"field": "status", "matches": "("}})


def test_a_resource_condition_matches_a_field_and_its_siblings(kb: KnowledgeBase) -> None:
    from osdoctor.kb.conditions import Condition, Context, match_all

    trace = parse_path(LOGS / "generic.compute-service-down.plain.log")
    ctx = Context(trace, "failure")
    down = Condition(
        {
            "resource": {
                "type": "service",
                "field": "state",
                "matches": "^down$",
                "with": {"binary": "nova-compute", "host": "(?P<on>\\S+)"},
            }
        }
    )
    found = match_all([down], ctx)
    assert found is not None and found.captures["on"] == "compute-1"
    assert len(found.evidence) == 3  # state, binary, host: each on the row's line
    up = Condition(
        {"resource": {"field": "state", "matches": "^down$", "with": {"binary": "nova-scheduler"}}}
    )
    assert match_all([up], ctx) is None


@pytest.mark.parametrize("what", ["server", "volume"])
def test_one_target_of_a_delete_leads_with_its_own_reason(what: str, kb: KnowledgeBase) -> None:
    """ "1 of 1 servers failed to delete" is osc's summary of the one reason printed
    above it: the service's words lead, not the summary."""
    reason = {
        "server": "Instance 3f1c2b4a-1111-4222-8333-944455556666 is locked (HTTP 409)",
        "volume": "Invalid volume: Volume status must be available or error or "
        "error_restoring or error_extending or error_managing and must not be migrating, "
        "attached, belong to a group, have snapshots or be disassociated from "
        "snapshots after volume transfer. (HTTP 400)",
    }[what]
    report = _explain(
        f"$ openstack {what} delete web-2\n"
        f"Failed to delete {what} with name or ID 'web-2': {reason} "
        "(Request-ID: req-0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d)\n"
        f"1 of 1 {what}s failed to delete.\n",
        kb,
    )
    first = next(f for f in report.findings if f.severity == "error")
    assert first.id != "osc.multi-delete-all-failed"
    assert ("locked" if what == "server" else "refused") in first.title


def test_an_ansible_task_whose_server_went_to_error_names_the_servers_fault(
    kb: KnowledgeBase,
) -> None:
    """openstack.cloud.server gives no answer body when the server it made went to
    ERROR: only ``extra_data.server``, whose ``fault`` says why."""
    server = "9d1f2c3a-0b4e-4c5d-8e6f-7a8b9c0d1e2f"
    report = _explain(
        "TASK [Create instance] ****\n"
        'fatal: [localhost]: FAILED! => {"changed": false, "extra_data": {"server": '
        '{"fault": {"code": 500, "created": "2026-12-01T08:11:02Z", "message": "Exceeded '
        "maximum number of retries. Exhausted all hosts available for retrying build "
        f'failures for instance {server}."}}, "id": "{server}", "name": "vm1", '
        '"status": "ERROR"}}, "msg": "Error in creating the server (no further '
        'information available)"}\n',
        kb,
    )
    assert report.outcome == "failure"
    first = report.findings[0]
    assert first.id == "known.build-retries-exhausted"
    assert server in first.title
    assert all(e.line == 2 for e in first.evidence)


def test_heats_words_for_a_server_in_error_name_the_schedulers_cause(kb: KnowledgeBase) -> None:
    """Heat: 'Went to status ERROR due to "Message: <fault>, Code: 500"'."""
    report = _explain(
        "$ openstack stack failures list mystack\n"
        "mystack.server:\n"
        "  resource_type: OS::Nova::Server\n"
        "  status: CREATE_FAILED\n"
        "  status_reason: |\n"
        '    ResourceInError: resources.server: Went to status ERROR due to "Message: No valid '
        'host was found. There are not enough hosts available., Code: 500"\n',
        kb,
    )
    assert report.findings[0].id == "known.no-valid-host"
    assert "There are not enough hosts available" in report.findings[0].title
