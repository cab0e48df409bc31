"""A case may shadow an installed library with a real old release: its wheel is
found in the lab's wheel folder (never downloaded), unpacked into the client's
user site-packages and put first on its path."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from osdoctor.lab.capture import CaptureError, capture_case, prepare_run
from osdoctor.lab.case import load_case, select_cases
from osdoctor.lab.config import ConfigError
from osdoctor.lab.wheels import WheelMissing, find_wheel, unpack, user_site


def _wheel(folder: Path, name: str, files: dict[str, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    with zipfile.ZipFile(path, "w") as archive:
        for member, text in files.items():
            archive.writestr(member, text)
    return path


def test_a_wheel_is_found_by_its_normalised_name_and_exact_version(tmp_path: Path) -> None:
    wanted = _wheel(tmp_path, "osc_lib-2.6.0-py3-none-any.whl", {"osc_lib/__init__.py": ""})
    _wheel(tmp_path, "osc_lib-2.6.01-py3-none-any.whl", {"osc_lib/__init__.py": ""})
    assert find_wheel("osc-lib==2.6.0", tmp_path) == wanted
    with pytest.raises(WheelMissing, match=r"pip download --no-deps osc-lib==2\.5\.0 -d "):
        find_wheel("osc-lib==2.5.0", tmp_path)
    with pytest.raises(WheelMissing):
        find_wheel("keystoneauth1==4.0.0", tmp_path / "absent")


@pytest.mark.parametrize("text", ["osc-lib", "osc-lib>=2", "osc-lib==", "==2.6.0"])
def test_only_an_exact_release_may_be_pinned(text: str, tmp_path: Path) -> None:
    case = tmp_path / "generic" / "x.yaml"
    case.parent.mkdir()
    case.write_text(
        f"command: [openstack, server, list]\nwheels: ['{text}']\n"
        "expect: {exit_code: 1, outcome: failure}\n"
    )
    with pytest.raises(ConfigError, match="NAME==VERSION"):
        load_case(case)


def test_an_unsafe_member_is_refused(tmp_path: Path) -> None:
    bad = _wheel(tmp_path, "evil-1.0-py3-none-any.whl", {"../outside.py": "x = 1"})
    with pytest.raises(ConfigError, match="unsafe path"):
        unpack([bad], tmp_path / "site")
    assert not (tmp_path / "outside.py").exists()


def test_the_release_is_unpacked_into_the_user_site_and_put_first(tmp_path: Path) -> None:
    (case,) = select_cases(["generic.library-mismatch-osc-lib"])
    wheel = _wheel(
        tmp_path / "wheels", "osc_lib-2.6.0-py3-none-any.whl", {"osc_lib/__init__.py": "OLD = 1"}
    )
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    values = {"auth_url": "http://127.0.0.1:1/identity/v3"}
    _args, env = prepare_run(case, values, home, work, [wheel])
    site = user_site(home)
    assert env["PYTHONPATH"] == str(site)
    assert (site / "osc_lib" / "__init__.py").read_text() == "OLD = 1"


def test_a_capture_without_its_wheel_says_how_to_fetch_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OSDOCTOR_LAB_WHEELS", str(tmp_path / "empty"))
    (case,) = select_cases(["generic.library-mismatch-osc-lib"])
    with pytest.raises(CaptureError, match=r"pip download --no-deps osc-lib==2\.6\.0"):
        capture_case(case, tmp_path / "out", port=0, workroot=tmp_path / "work")
    assert not (tmp_path / "out").exists()
