"""The documentation as the tests read it: README.md, the pages under docs/ and their scripts."""

from __future__ import annotations

import importlib.util
import re
import sys
import unicodedata
from functools import cache
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"


def pages() -> list[Path]:
    """Every page of the documentation site (docs/**/*.md)."""
    return sorted(DOCS.rglob("*.md"))


@cache
def docs_script(name: str) -> ModuleType:
    """docs/NAME.py (a script, not a package), loaded once by its path."""
    spec = importlib.util.spec_from_file_location(f"docs_{name}", DOCS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up while defined
    spec.loader.exec_module(module)
    return module


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it, and the site too (mkdocs.yml's toc slugify):
    lower case, punctuation dropped, each space a hyphen."""
    text = unicodedata.normalize("NFKC", heading).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """The anchors of a Markdown file's headings (outside code blocks), as GitHub numbers a
    repeated one (name, name-1, ...)."""
    found: set[str] = set()
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        heading = re.match(r"#{1,6} (.+?)\s*#*$", line)
        if fenced or heading is None:
            continue
        name = slug(re.sub(r"[`*_]", "", heading[1]))
        unique, number = name, 0
        while unique in found:
            number += 1
            unique = f"{name}-{number}"
        found.add(unique)
    return found
