"""A command line pasted above a client's output carries the secrets only an argv
shows: swift's ``-K`` key, ``tempurl``'s key, ``credential create``'s blob, ``token
revoke``'s token. No report of such a paste may show them, in any format."""

from __future__ import annotations

from pathlib import Path

import pytest

from osdoctor.cli import main
from osdoctor.secrets.redact import redact_line

SECRET = "s3cr3tTYPEDvalue"

TYPED = [
    f"$ swift -A http://127.0.0.1:8080/auth/v1.0 -U test:tester -K {SECRET} stat",
    f"[root@ctl ~]# swift -U test:tester -K {SECRET} list",
    f"$ swift tempurl GET 3600 /v1/AUTH_test/c/o {SECRET}",
    f"$ openstack credential create --type ec2 admin {SECRET}",
    f"+ openstack token revoke {SECRET}",
    f"`openstack token revoke {SECRET}`",
    f"user@host:~$ openstack ec2 credentials delete {SECRET}",
]


@pytest.mark.parametrize("line", TYPED)
def test_the_typed_line_is_masked(line: str) -> None:
    masked = redact_line(line)
    assert SECRET not in masked
    assert "***" in masked
    # the rest of the command stays readable
    assert masked.split("***")[0] == line.split(SECRET)[0]


def test_words_after_the_masked_key_stay() -> None:
    assert redact_line(f"$ swift -U t:t -K {SECRET} stat\n") == "$ swift -U t:t -K *** stat\n"


@pytest.mark.parametrize(
    "line",
    [
        "REQ: curl -g -i -X GET https://h:5000/v3 -k",
        "openstack credential list",
        "$ swift -U test:tester stat",
    ],
)
def test_lines_without_an_argv_secret_are_untouched(line: str) -> None:
    assert redact_line(line) == line


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
@pytest.mark.parametrize("line", TYPED)
def test_no_report_of_the_paste_shows_the_secret(
    line: str, fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "paste.log"
    log.write_text(
        f"{line}\nAuthorization Failure. Authorization failed: 401 Unauthorized\n"
        f"the key {SECRET} again\n",
        encoding="utf-8",
    )
    main(["explain", "--format", fmt, str(log)])
    out, err = capsys.readouterr()
    assert out
    assert SECRET not in out + err
