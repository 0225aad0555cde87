"""The store comparison and the credential guard on real Claude Code stores, kept outside the
repository.

    python -m benchmarks.real_stores --list          # the repositories and commits measured
    python -m benchmarks.real_stores DIR [DIR ...]   # compare, then scan every file

The stores are other people's notes and most carry no licence, so none is kept here: only the
repository names and the commits measured (``REAL_STORES``). This script cannot fetch them;
bring each one's ``.claude/memory/`` into a directory of its own first, for example::

    git clone --filter=blob:none https://github.com/OWNER/NAME /tmp/src/NAME
    mkdir -p /tmp/realstores/NAME
    git -C /tmp/src/NAME archive COMMIT .claude/memory | tar -x -C /tmp/realstores/NAME

With directories it prints the table of :mod:`benchmarks.compare_stores`, then runs the guard
(:func:`~memfs.credentials.guard.find_credentials` on each file's text and
:func:`~memfs.credentials.guard.find_credentials_in_name` on its path) over every file and
prints the files with findings: path, line and kind, never the text found. Whether a finding is
a real secret or a false alarm is for a reader to judge; docs/claude-code.md records the last
judgement. Exit status: that of the comparison.
"""

from __future__ import annotations

import sys
from pathlib import Path

from memfs.credentials.guard import find_credentials, find_credentials_in_name

from benchmarks import compare_stores

REAL_STORES: tuple[tuple[str, str], ...] = (
    ("0WAQ/gsim-ops", "3f977ce75b8723bae3116b023f39a570068b8243"),
    ("1pitaph/ai_job", "4269d5d4b68eff5dd012bfaee2832c91fbeb528a"),
    ("3creddy/dive-form-app", "7886bfabfedd549bd7daa914fd7adc4ac05f9996"),
    ("4444J99/application-pipeline", "c85fbc2eaf2e2b6ee25a2a27f4d30a0efec1c7d8"),
    ("4444J99/portfolio", "eedac7c6d94fe4eab8d4d32f837ee0e63b82cbb0"),
    ("ActorForth/ActorForth", "b454705b25c01a8e57a0bd1e9ab1f29a06e1ff81"),
    ("Adamniels/dayboard-desktop-widget", "cbbc41b2cc77cfea7f203dc44f7f3748d5887c83"),
    ("Agentic-Delivery/nordkredit-core-banking", "3dee056864115c2151761fa757cc9daa4faf14c7"),
    ("Airhonreality/indra_next", "ffd34fc56457c847532ed074b359bedd2e41a1b0"),
    ("Akanekira/GooBlenderMCP", "36c1996baf8ff1da6d87340f619de4b42a368d8d"),
    ("Aleslammer/deathwatch_foundryvtt", "efe362e74845b1ff4a976b08e6d302aaafae4918"),
    ("AlexSergey/opensa", "578c3487e09142ea2576058500bcbfcaddfdb0f1"),
    ("AlexandreRiedo/leadsheet-utility", "cc71173d613cf49f8adf0b8db14dbb0b45c618b6"),
    ("AnandRituraj/HOS_Dashboard", "bb14bedb079969449c7985259b04e0edf79e8d1c"),
    ("AnotherSava/bga-assistant", "a0b167ea0073be1a5efcc2115107db1d74117ff8"),
    ("AnotherSava/build123d-models", "b90ca8c6a9fd1cdd752215f659616f1ea3a18cbb"),
)


def guard_findings(root: Path) -> tuple[int, dict[str, list[str]]]:
    """``(files scanned, {path: ["line N: kind", ...]})`` for every file under ``root``."""
    scanned = 0
    found: dict[str, list[str]] = {}
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        scanned += 1
        rel = path.relative_to(root).as_posix()
        text = path.read_bytes().decode("utf-8", "replace")
        hits = [*find_credentials_in_name(rel), *find_credentials(text)]
        if hits:
            found[rel] = [f"line {f.line}: {f.kind}" for f in hits]
    return scanned, found


def main(argv: list[str]) -> int:
    if not argv or argv == ["--list"]:
        for repo, commit in REAL_STORES:
            print(f"https://github.com/{repo}  {commit}")
        return 0
    status = compare_stores.main(argv)
    total = flagged = 0
    for root in (Path(a) for a in argv):
        scanned, found = guard_findings(root)
        total += scanned
        flagged += len(found)
        for rel, hits in found.items():
            print(f"{root.name}/{rel}: " + "; ".join(hits))
    print(f"guard: {flagged} of {total} files with findings")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
