"""``osdoctor runbook``: every scenario, branch and rule has its page, the pages are
the same on every run, the committed runbook is up to date, and a folder that
holds someone else's files is never overwritten."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest

from osdoctor.cli import main
from osdoctor.kb.loader import KnowledgeBase, load_knowledge
from osdoctor.kb.runbook_pages import rule_page, scenario_page
from osdoctor.lint import default_fixtures_dir
from osdoctor.runbook.build import build_runbook
from osdoctor.runbook.excerpts import Excerpts, collect
from osdoctor.runbook.markdown_pages import INDEX
from osdoctor.runbook.write import MARKER, RunbookError, write_runbook
from osdoctor.secrets.redact import contains_secret, redact_text

ROOT = Path(__file__).resolve().parent.parent
COMMITTED = ROOT / "docs" / "runbook"
REGENERATE = "osdoctor runbook --no-user-kb -o docs/runbook"


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    kb = load_knowledge(user=False)
    assert [str(i) for i in kb.issues if i.severity == "error"] == []
    return kb


@pytest.fixture(scope="module")
def pages(kb: KnowledgeBase) -> dict[str, str]:
    return build_runbook(kb, default_fixtures_dir())


def _links(page: str) -> set[str]:
    """The page's links; a code span's ``[ =](?P<x>...)`` is text, not a link."""
    return {
        link
        for line in page.splitlines()
        for link in re.findall(r"\]\(([^)\s]+)\)", _outside_code(line))
    }


def test_every_scenario_and_branch_has_its_section(
    kb: KnowledgeBase, pages: dict[str, str]
) -> None:
    index = pages[INDEX]
    for scenario in kb.scenarios.values():
        page = pages[scenario_page(scenario.id)]
        assert scenario_page(scenario.id) in _links(index)
        assert f"# {scenario.id}: " in page
        assert "```mermaid\nsequenceDiagram\n" in page
        for branch in scenario.branches:
            assert f'<a id="{branch.id}"></a>' in page, f"{scenario.id}/{branch.id}"
            assert f"### {branch.id}: " in page
            assert f"(#{branch.id})" in page
            assert f"{scenario_page(scenario.id)}#{branch.id}" in _links(index)


def test_every_rule_has_its_page_with_seed_reference_and_steps(
    kb: KnowledgeBase, pages: dict[str, str]
) -> None:
    index = pages[INDEX]
    for rule in kb.rules.values():
        page = pages[rule_page(rule.id)]
        assert rule_page(rule.id) in _links(index)
        for ref in rule.references:
            if ref.url:
                assert f"`{ref.url}`" in page  # a tracker page, by its address
                continue
            assert f"seed `{ref.seed}` section {ref.section}" in page
        assert page.count("\n1. ") == 1 and f"\n{len(rule.next_steps)}. " in page
        for cond in rule.when:
            assert cond.describe() in page
    assert set(pages) == (
        {INDEX} | {scenario_page(s) for s in kb.scenarios} | {rule_page(r) for r in kb.rules}
    )


def test_symptom_index_lists_every_symptom_and_branch_title(
    kb: KnowledgeBase, pages: dict[str, str]
) -> None:
    index = pages[INDEX].split("## By client")[0]
    for rule in kb.rules.values():
        for symptom in rule.symptoms:
            row = next(
                (
                    ln
                    for ln in index.splitlines()
                    if f"`{symptom}`" in ln and rule_page(rule.id) in ln
                ),
                None,
            )
            assert row is not None, f"{rule.id}: {symptom}"
    for scenario in kb.scenarios.values():
        for branch in scenario.branches:
            assert f"{scenario_page(scenario.id)}#{branch.id})" in index


def test_links_between_pages_resolve(pages: dict[str, str]) -> None:
    for path, page in pages.items():
        for link in _links(page):
            target, _, anchor = link.partition("#")
            resolved = (
                os.path.normpath(os.path.join(os.path.dirname(path), target)) if target else path
            )
            assert resolved in pages, f"{path} links to {link}"
            if anchor:
                assert f'<a id="{anchor}"></a>' in pages[resolved], f"{path} -> {link}"


@pytest.fixture(scope="module")
def found(kb: KnowledgeBase) -> Excerpts:
    """The excerpts of every fixture, collected once for the tests that read them."""
    return collect(kb, default_fixtures_dir())


def test_excerpts_are_real_redacted_log_lines(found: Excerpts) -> None:
    folder = default_fixtures_dir()
    assert folder is not None
    assert found.branches and found.rules
    redacted: dict[str, list[str]] = {}  # a fixture gives the excerpts of several rules
    for excerpt in [*found.branches.values(), *found.rules.values()]:
        if excerpt.fixture not in redacted:
            text = (folder / f"{excerpt.fixture}.log").read_text()
            redacted[excerpt.fixture] = redact_text(text).splitlines()
        log = redacted[excerpt.fixture]
        for number, line in excerpt.lines:
            assert log[number - 1].startswith(line.removesuffix("…"))
            assert not contains_secret(line)


def test_every_declared_fixture_branch_shows_an_excerpt(
    found: Excerpts, pages: dict[str, str]
) -> None:
    for (scenario, branch), excerpt in found.branches.items():
        section = pages[scenario_page(scenario)].split(f'<a id="{branch}"></a>')[1]
        section = section.split("<a id=")[0]
        assert f"From the fixture `{excerpt.fixture}`" in section
        first_line = excerpt.lines[0][1]
        assert first_line in section


def test_no_log_excerpt_holds_a_secret(pages: dict[str, str]) -> None:
    for path, page in pages.items():
        for block in re.findall(r"^```text\n(.*?)^```$", page, flags=re.M | re.S):
            for line in block.splitlines():
                assert not contains_secret(line.split(" | ", 1)[-1]), f"{path}: {line}"


def test_two_runs_give_identical_files(
    kb: KnowledgeBase, pages: dict[str, str], tmp_path: Path
) -> None:
    # ``pages`` is the first run; this one build is the second.
    second = build_runbook(kb, default_fixtures_dir())
    assert second == pages
    result = write_runbook(pages, tmp_path / "rb")
    assert sorted(result.written) == sorted(pages)
    snapshot = {p: p.read_bytes() for p in (tmp_path / "rb").rglob("*") if p.is_file()}
    again = write_runbook(second, tmp_path / "rb")
    assert again.written == [] and sorted(again.unchanged) == sorted(pages)
    assert {p: p.read_bytes() for p in (tmp_path / "rb").rglob("*") if p.is_file()} == snapshot


def test_committed_runbook_is_up_to_date(pages: dict[str, str], tmp_path: Path) -> None:
    """docs/runbook is what the knowledge generates now: regenerate it with
    REGENERATE after changing the knowledge or the fixtures. (``pages`` is built
    from the knowledge without the user's rules, as REGENERATE's --no-user-kb.)"""
    fresh = tmp_path / "runbook"
    write_runbook(pages, fresh)

    def tree(root: Path) -> dict[str, bytes]:
        return {
            p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*"))
            if p.is_file()
        }

    want, have = tree(fresh), tree(COMMITTED) if COMMITTED.is_dir() else {}
    stale = sorted(k for k in set(want) | set(have) if want.get(k) != have.get(k))
    assert stale == [], f"docs/runbook is stale ({', '.join(stale[:8])}): run {REGENERATE}"


def test_the_cli_refuses_a_bad_folder_before_it_builds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Building reads every fixture: a wrong -o is refused at once, not after."""
    import osdoctor.runbook.build as build

    def no_build(*args: object, **kwargs: object) -> dict[str, str]:
        raise AssertionError("built the runbook before checking the folder")

    monkeypatch.setattr(build, "build_runbook", no_build)
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "index.md").write_text("my own notes\n")
    assert main(["runbook", "--no-user-kb", "-o", str(folder)]) == 2
    assert "did not write" in capsys.readouterr().err


def test_refuses_a_folder_it_did_not_write(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "index.md").write_text("my own notes\n")
    with pytest.raises(RunbookError, match="did not write"):
        write_runbook({"index.md": "x\n"}, folder)
    assert main(["runbook", "--no-user-kb", "-o", str(folder)]) == 2
    assert "did not write" in capsys.readouterr().err
    assert (folder / "index.md").read_text() == "my own notes\n"
    assert sorted(p.name for p in folder.iterdir()) == ["index.md"]
    a_file = tmp_path / "file"
    a_file.write_text("x")
    assert main(["runbook", "--no-user-kb", "-o", str(a_file)]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_rewrites_only_its_own_pages(tmp_path: Path) -> None:
    folder = tmp_path / "rb"
    write_runbook({"index.md": "a\n", "rules/old.rule.md": "old\n"}, folder)
    (folder / "rules" / "mine.txt").write_text("keep me\n")
    result = write_runbook({"index.md": "b\n", "rules/new.rule.md": "new\n"}, folder)
    assert result.removed == ["rules/old.rule.md"]
    assert (folder / "rules" / "mine.txt").read_text() == "keep me\n"
    assert (folder / "index.md").read_text() == "b\n"
    assert (folder / MARKER).read_text().splitlines()[1:] == ["index.md", "rules/new.rule.md"]
    write_runbook({"index.md": "b\n"}, folder)
    assert not (folder / "rules" / "new.rule.md").exists()
    assert (folder / "rules" / "mine.txt").exists()


@pytest.fixture(scope="module")
def html_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The HTML runbook as the CLI writes it, built once for the tests that read it."""
    folder = tmp_path_factory.mktemp("html") / "html"
    assert main(["runbook", "--no-user-kb", "--format", "html", "-o", str(folder)]) == 0
    return folder


def test_html_runbook_is_self_contained(kb: KnowledgeBase, html_site: Path) -> None:
    files = sorted(p.relative_to(html_site).as_posix() for p in html_site.rglob("*.html"))
    assert files == sorted(
        [
            "index.html",
            *(f"scenarios/{s}.html" for s in kb.scenarios),
            *(f"rules/{r}.html" for r in kb.rules),
        ]
    )
    for name in files:
        page = (html_site / name).read_text()
        assert not re.search(r"""(src|href)=["']?(https?:)?//""", page), name
        assert "<script" not in page and '.md"' not in page
        if name.startswith("scenarios/"):
            assert page.count("<svg") == 1 and "language-mermaid" in page
            scenario = kb.scenarios[name.removeprefix("scenarios/").removesuffix(".html")]
            for p in scenario.participants:
                assert f">{p.label}</text>" in page.replace("&#x27;", "'")


def _outside_code(line: str) -> str:
    """A Markdown line without its code spans and fenced blocks' content."""
    return re.sub(r"(`+).+?\1", "", line)


def test_markdown_needs_no_entities_and_keeps_html_out(pages: dict[str, str]) -> None:
    """Placeholders, paths and shell redirections are set as code, which needs no
    escaping: no page shows ``&lt;id&gt;`` or ``2&gt;&amp;1``, and no ``<`` outside
    code could be read as an HTML tag (the anchors are the only HTML)."""
    for name, page in pages.items():
        fenced = False
        for line in page.splitlines():
            if line.startswith("```"):
                fenced = not fenced
                continue
            if fenced or line.startswith("<!--") or re.fullmatch(r'<a id="[\w.\-]+"></a>', line):
                continue
            prose = _outside_code(line)
            assert not re.search(r"&(lt|gt|amp);", line), f"{name}: {line}"
            assert "<" not in prose and ">" not in prose, f"{name}: {line}"


_WORDS = {
    "id",
    "stack",
    "name",
    "command",
    "method",
    "failed",
    "total",
    "server",
    "node",
    "resource",
    "template",
    "env",
    "user",
    "project",
    "host",
    "port",
    "fault",
}


def test_html_pages_escape_what_the_markdown_sets_as_code(
    kb: KnowledgeBase, pages: dict[str, str]
) -> None:
    from osdoctor.runbook.html import markdown_site_to_html

    # What build_runbook(..., "html") returns, from the pages already built.
    html = markdown_site_to_html(kb, pages)
    page = html["scenarios/heat.stack-delete.html"]
    assert "<code>2&gt;&amp;1</code>" in page
    assert "&amp;lt;" not in page and "&amp;amp;" not in page
    for name, body in html.items():
        # A placeholder left raw would be read as an unknown HTML tag and vanish.
        raw = re.findall(r"<(/?)([a-z_]+(?: [a-z_]+)*)>", body)
        tags = {t for _slash, t in raw}
        assert not {t for t in tags if "_" in t or " " in t or t in _WORDS}, name


def test_the_runbook_folders_and_pages_are_private(tmp_path: Path) -> None:
    from osdoctor.runbook.write import write_runbook

    folder = tmp_path / "new" / "runbook"
    write_runbook({"index.md": "# Index\n", "scenarios/a.md": "# A\n"}, folder)
    for path in (tmp_path / "new", folder, folder / "scenarios"):
        assert stat.S_IMODE(path.stat().st_mode) == 0o700, path
    for path in (folder / "index.md", folder / "scenarios" / "a.md"):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
