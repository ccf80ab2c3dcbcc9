"""The README and the documentation stay true (docs/development.md, "The documentation"): the
README short, its set-up commands those CI runs, every relative link and anchor pointing at
something that exists, the command reference what the bot's command tree gives, and every
citation of the documentation in the code naming a page and section that exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.docs import DOCS, README, ROOT, anchors, docs_script, pages

README_MAX_LINES = 250
# The README's two set-up commands, exactly as a new host and CI type them.
START = "python3 -m venv .venv && . .venv/bin/activate && pip install -e . && python -m bot"
TESTS = (
    "python3 -m venv .venv && . .venv/bin/activate && "
    'pip install -e ".[test]" && ruff check . && mypy && pytest'
)
CI_COMMAND = 'pip install -e ".[test]" && ruff check . && mypy && pytest'

LINK = re.compile(r"!?\[(?:[^\]]|\][^(])*?\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def prose(path: Path) -> str:
    """A Markdown file without its code blocks and code spans (links there are not links)."""
    text = re.sub(r"^```.*?^```", "", path.read_text(encoding="utf-8"), flags=re.S | re.M)
    return re.sub(r"``.*?``|`[^`\n]*`", "", text)


def relative_links(path: Path) -> list[str]:
    return [
        target
        for target in LINK.findall(prose(path))
        if not re.match(r"[a-z]+:", target)  # https:, mailto:
    ]


def broken_links(path: Path) -> list[str]:
    broken = []
    for target in relative_links(path):
        file_part, _, anchor = target.partition("#")
        linked = (path.parent / file_part).resolve() if file_part else path
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(f"{target}: no heading #{anchor} in {linked.name}")
    return broken


def test_the_readme_is_at_most_250_lines() -> None:
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines: move the detail to docs/"


def test_the_readmes_two_set_up_commands_are_the_ones_ci_runs() -> None:
    readme = README.read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)\n```", readme, flags=re.S)
    assert START in blocks and TESTS in blocks
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert CI_COMMAND in ci and TESTS.endswith(CI_COMMAND)
    assert "mkdocs build --strict" in ci.split(CI_COMMAND, 1)[1]  # after the tests


@pytest.mark.parametrize("path", [README, *pages()], ids=lambda path: str(path.relative_to(ROOT)))
def test_every_relative_link_points_at_a_file_and_heading_that_exist(path: Path) -> None:
    assert broken_links(path) == []


def test_the_readme_links_into_every_page_of_the_site() -> None:
    linked = {
        (README.parent / target.partition("#")[0]).resolve() for target in relative_links(README)
    }
    site = {page.resolve() for page in pages()}
    assert site - linked == set(), "a page the README doesn't link"


def test_the_link_checker_finds_a_broken_link_and_anchor(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    (tmp_path / "other.md").write_text("# Other\n\n## Sinew & Steel\n")
    page.write_text(
        "# Page\n[a](other.md#sinew--steel) [b](other.md#nope) [c](missing.md) [d](#page)\n"
        "`[e](not-a-link.md)` [f](https://example.com/x.md)\n"
    )
    assert broken_links(page) == [
        "other.md#nope: no heading #nope in other.md",
        "missing.md: no such file",
    ]


def test_the_docs_hold_no_test_names_nor_a_diary() -> None:
    for page in pages():
        text = page.read_text(encoding="utf-8")
        named = re.findall(r"(?<![/\w])test_\w+", text)
        assert named == [], f"{page.name} names tests: {named}"
        assert not re.search(r"\b[Ss]ession \d+", text), f"{page.name}: a session diary"
    readme = README.read_text(encoding="utf-8")
    assert not re.search(r"test_\w+", readme)


def test_each_system_page_shows_its_reply_picture() -> None:
    renderer = docs_script("render_reply")
    for system, example in renderer.EXAMPLES.items():
        page = DOCS / "players" / f"{system}.md"
        picture = example.output.relative_to(DOCS)
        assert f"](../{picture})" in page.read_text(encoding="utf-8"), page
        assert example.output.is_file()
        assert example.typed.split()[0] == f"/{system}"


def test_the_command_reference_is_what_the_command_tree_gives_now() -> None:
    written = (DOCS / "commands.md").read_text(encoding="utf-8")
    assert written == docs_script("gen_commands").render(), (
        "docs/commands.md is stale: run python docs/gen_commands.py"
    )


# --- citations of the documentation in the code

CODE = ("bot", "cogs", "rules", "tests", "bench", "docs")
CITATION = re.compile(r"docs/([\w/-]+\.md)(?:[,:]\s*\"([^\"]+)\")?")
README_CITATION = re.compile(r"README(?:'s)?,?\s+\"([^\"]+)\"")


def python_files() -> list[Path]:
    return sorted(path for folder in CODE for path in (ROOT / folder).rglob("*.py"))


def test_every_citation_of_a_page_names_a_page_and_section_that_exist() -> None:
    wrong = []
    for path in python_files():
        text = " ".join(path.read_text(encoding="utf-8").split())  # citations span lines
        text = re.sub(r"\s*#\s*", " ", text)
        for page, section in CITATION.findall(text):
            cited = DOCS / page
            if not cited.is_file():
                wrong.append(f"{path.relative_to(ROOT)}: no page docs/{page}")
            elif section and section not in " ".join(cited.read_text(encoding="utf-8").split()):
                wrong.append(f"{path.relative_to(ROOT)}: no {section!r} in docs/{page}")
    assert wrong == []


def test_a_citation_of_the_readme_names_one_of_its_headings() -> None:
    headings = set(re.findall(r"^#+ (.+)$", README.read_text(encoding="utf-8"), flags=re.M))
    wrong = []
    for path in python_files():
        text = " ".join(path.read_text(encoding="utf-8").split())
        for cited in README_CITATION.findall(text):
            if cited not in headings:
                wrong.append(f"{path.relative_to(ROOT)}: README has no {cited!r}")
        if re.search(r"README,\s+(?:Rules notes|Benchmarks|Layout|Metrics|Environment)", text):
            wrong.append(f"{path.relative_to(ROOT)}: cites a README section that moved to docs/")
    assert wrong == []
