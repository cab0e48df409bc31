"""No file under tests/ names where it was made: not this checkout (nor the main
checkout of a worktree), not the virtualenv running the tests, not the lab's
scratch folder under the system temp folder. A captured fixture also names no
scratch folder of its case, wherever the capture put them, and not the Python the
virtualenv was made from: the lab
writes neutral paths for all of them (osdoctor/lab/capture.py), since a user's
real paths differ anyway, and a fixture must not depend on, or tell, the
capturing machine's.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from osdoctor.lab.capture import DEFAULT_WORKROOT, NEUTRAL_PYTHON

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
CAPTURED = TESTS / "fixtures" / "logs"
#: Folders of files that others wrote and the tests do not: left alone.
NOT_OURS = ("node_modules", "__pycache__", ".pytest_cache", ".hypothesis")


def checkouts() -> set[str]:
    """This checkout, and the main one when this is a git worktree (``.git`` is then
    a file naming ``<main>/.git/worktrees/<name>``)."""
    found = {str(ROOT)}
    dotgit = ROOT / ".git"
    if dotgit.is_file():
        gitdir = Path(dotgit.read_text(encoding="utf-8").partition("gitdir:")[2].strip())
        if gitdir.parent.name == "worktrees" and gitdir.parent.parent.name == ".git":
            found.add(str(gitdir.parent.parent.parent))
    return found


def machine_paths() -> set[str]:
    paths = {*checkouts(), sys.prefix, str(DEFAULT_WORKROOT)}
    return {p for path in paths for p in (path, os.path.realpath(path))}


def captured_paths(case: str) -> set[str]:
    """What a capture alone could have printed besides: the case's scratch folders
    under any work root (``--workroot``: ``<root>/<case>/work`` and ``/home``),
    and the Python the virtualenv was made from."""
    paths = {f"/{case}/work", f"/{case}/home"}
    if sys.base_prefix != NEUTRAL_PYTHON:
        paths |= {sys.base_prefix + "/", os.path.realpath(sys.base_prefix) + "/"}
    return paths


def files_under_tests() -> list[Path]:
    return sorted(
        path
        for path in TESTS.rglob("*")
        if path.is_file() and not any(part in NOT_OURS for part in path.parts)
    )


def named(path: Path, paths: set[str]) -> list[str]:
    data = path.read_bytes()
    return sorted(p for p in paths if os.fsencode(p) in data)


def test_no_test_file_names_the_checkout_its_virtualenv_or_the_labs_scratch() -> None:
    files = files_under_tests()
    assert len(files) > 400
    offenders = {
        str(path.relative_to(ROOT)): found
        for path in files
        if (found := named(path, machine_paths()))
    }
    assert offenders == {}


def test_no_captured_fixture_names_its_scratch_folders_or_the_capturers_python() -> None:
    logs = sorted(CAPTURED.iterdir())
    assert len(logs) > 100

    def case_of(path: Path) -> str:
        """The case a captured file belongs to: ``ID.log``, ``ID.expected.yaml``, or a
        service log under ``ID.service/``."""
        top = path.relative_to(CAPTURED).parts[0]
        return top.split(".log")[0].split(".expected")[0].removesuffix(".service")

    files = [f for path in logs for f in ([path] if path.is_file() else path.rglob("*"))]
    offenders = {
        str(path.relative_to(CAPTURED)): found
        for path in files
        if path.is_file() and (found := named(path, captured_paths(case_of(path))))
    }
    assert offenders == {}


@pytest.mark.parametrize(
    "text",
    [
        f'  File "{sys.prefix}/lib/python3.11/site-packages/x.py", line 1',
        f"No such file or directory: '{DEFAULT_WORKROOT}/case/work/t.yaml'",
        f"cd {ROOT}",
    ],
)
def test_a_file_naming_a_machine_path_is_found(tmp_path: Path, text: str) -> None:
    path = tmp_path / "x.log"
    path.write_text(text, encoding="utf-8")
    assert named(path, machine_paths())
