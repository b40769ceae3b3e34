"""Every reference to a document resolves inside the repository (issue 13): each ``*.md``
named in the code, docs, protos, league files and build files exists, and each rule
(``R7``, ``W22``, ``rules.md §2``) and design (``docs/design.md §5``) citation names a
section that exists. Nothing points outside the repository."""

from __future__ import annotations

import re
import subprocess
from functools import cache
from pathlib import Path

import pytest

from tests.conftest import REPO

SUFFIXES = {".py", ".md", ".proto", ".toml", ".js", ".cpp", ".h", ".go", ".rb", ".txt", ".cfg", ".ini", ".yml", ".yaml"}
NAMES = {"Makefile", "CMakeLists.txt", "run"}  # run: .ci/run
SKIPPED = ("referee/_proto/", "package-lock.json", "tests/docs/test_references.py")

MD = ".md"  # the suffix, for test texts naming files that do not exist
PENDING: dict[str, str] = {}
"""Documents being written on another branch: a reference to them is accepted while they are
absent. Remove an entry once the file is merged."""

_MD_REFERENCE = re.compile(r"(?<![\w/.:-])((?:\.\.?/)*[\w.-]+(?:/[\w.-]+)*\.md)\b")
_RULE_SECTION = re.compile(r"\brules\.md\s*(?:§\s*|section\s+)(\d+)", re.IGNORECASE)
_DESIGN_SECTIONS = re.compile(r"\bdesign\.md\s*((?:(?:§\s*\d+)(?:\s*(?:,|and|–|-)\s*)?)+)", re.IGNORECASE)
_RULE_ID = re.compile(r"(?<!\w)([RW])(\d+)\b")
_OUTSIDE = re.compile(r"\.\./shared\b|/work/shared|\bshared/(?:rules|DESIGN|sandbox|STYLE)\.md")


@cache
def repository_files() -> tuple[Path, ...]:
    """The files of the repository that can cite a document (tracked, or new and not ignored)."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    files = []
    for name in sorted(set(listed)):
        path = REPO / name
        if name.startswith(SKIPPED) or name.endswith(SKIPPED) or not path.is_file():
            continue
        if path.suffix in SUFFIXES or path.name in NAMES:
            files.append(path)
    return tuple(files)


@cache
def document_names() -> frozenset[str]:
    """Every ``*.md`` in the repository, by file name (case matters: an upper-case
    ``DESIGN`` name is not ``design.md``)."""
    return frozenset(path.name for path in repository_files() if path.suffix == ".md")


def resolves(reference: str, source: Path) -> bool:
    """Whether ``reference`` (a bare name such as ``rules.md``, or a path
    relative to the repository root or to ``source``'s folder) names a file in the repository."""
    if "/" not in reference:
        return reference in document_names() or reference in PENDING
    for base in (REPO, source.parent):
        candidate = (base / reference).resolve()
        if candidate.is_file() and candidate.is_relative_to(REPO):
            return True
    return Path(reference).name in PENDING


def headings(document: str) -> set[int]:
    """The numbers of the ``## N.`` sections of ``docs/<document>``."""
    text = (REPO / "docs" / document).read_text()
    return {int(number) for number in re.findall(r"^## (\d+)\.", text, re.MULTILINE)}


def rule_ids() -> dict[str, set[int]]:
    """{"R": rule numbers, "W": worked-case numbers} defined in docs/rules.md."""
    text = (REPO / "docs" / "rules.md").read_text()
    return {
        "R": {int(number) for number in re.findall(r"^- \*\*R(\d+)\*\*", text, re.MULTILINE)},
        "W": {int(number) for number in re.findall(r"^\| W(\d+) \|", text, re.MULTILINE)},
    }


def citations(pattern: re.Pattern[str]) -> list[tuple[str, int, re.Match[str]]]:
    """(file, line number, match) of every match of ``pattern`` in the repository's files."""
    found = []
    for path in repository_files():
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), start=1):
            found += [(str(path.relative_to(REPO)), number, match) for match in pattern.finditer(line)]
    return found


def test_the_documents_define_every_rule_case_and_section() -> None:
    assert rule_ids() == {"R": set(range(1, 22)), "W": set(range(1, 26))}
    assert headings("rules.md") == {1, 2, 3, 4}
    assert headings("design.md") == set(range(1, 10))


def test_every_md_reference_names_a_file_in_the_repository() -> None:
    missing = [
        f"{where}:{line}: {match[1]}"
        for where, line, match in citations(_MD_REFERENCE)
        if not match[1].startswith("http") and not resolves(match[1], REPO / where)
    ]
    assert not missing, "references to documents that are not in the repository:\n" + "\n".join(missing)


def test_every_rule_and_worked_case_citation_exists() -> None:
    defined = rule_ids()
    wrong = [f"{where}:{line}: {match[0]}" for where, line, match in citations(_RULE_ID) if int(match[2]) not in defined[match[1]]]
    assert not wrong, "citations of rules or worked cases that docs/rules.md does not define:\n" + "\n".join(wrong)


def test_every_section_citation_exists() -> None:
    rules, design = headings("rules.md"), headings("design.md")
    wrong = [f"{where}:{line}: {match[0]}" for where, line, match in citations(_RULE_SECTION) if int(match[1]) not in rules]
    for where, line, match in citations(_DESIGN_SECTIONS):
        wrong += [f"{where}:{line}: {match[0]}" for number in re.findall(r"\d+", match[1]) if int(number) not in design]
    assert not wrong, "citations of sections that do not exist:\n" + "\n".join(wrong)


def test_nothing_points_outside_the_repository() -> None:
    outside = [f"{where}:{line}: {match[0]}" for where, line, match in citations(_OUTSIDE)]
    assert not outside, "references to files outside the repository:\n" + "\n".join(outside)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        # names of missing files are built here, so that this file itself names none
        (f"see DESIGN{MD} §5 and rules.md R7", [f"DESIGN{MD}", "rules.md"]),
        (f"[protocol](../protos/x{MD}) docs/design.md", [f"../protos/x{MD}", "docs/design.md"]),
        (f"https://example.org/a{MD} is a web page", []),
    ],
)
def test_the_reference_pattern(text: str, found: list[str]) -> None:
    assert [match[1] for match in _MD_REFERENCE.finditer(text) if not match[1].startswith("http")] == found


def test_a_citation_of_a_missing_section_is_caught() -> None:
    sections = [re.findall(r"\d+", m[1]) for m in _DESIGN_SECTIONS.finditer(f"DESIGN{MD} §5, §12 and docs/design.md §3")]
    assert sections == [["5", "12"], ["3"]]
    assert [m[1] for m in _RULE_SECTION.finditer("rules.md §2, rules.md section 4")] == ["2", "4"]
    assert [m.group(0) for m in _RULE_ID.finditer("R7, W22; R3-R7; B2 WR3 R2D2")] == ["R7", "W22", "R3", "R7"]
