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
    ("011-sam-110/JrDevRewrite", "02f0de464c36c2bdc0027c0bb040b8c5be55b53b"),
    ("0WAQ/gsim-ops", "3f977ce75b8723bae3116b023f39a570068b8243"),
    ("0x0wRangler/stockerly", "06fc2e396dbd3fbce399dc760d21c40dcb3eee3b"),
    ("0xDevCult/polkadot-app-template", "121ddd90258e619f57999e8eb676829ef8477ae0"),
    ("1110x/ETA", "390e6bad17778fc1211cc0db0342de5f38eeda0c"),
    ("13875892872/eloquence-camp", "ef5bb5460c5c6aa472b4ed56197ebea8b933043e"),
    ("1pitaph/ai_job", "4269d5d4b68eff5dd012bfaee2832c91fbeb528a"),
    ("308368/smart_office", "e20b930d6faf34e8959495e4943a8d98f5583c73"),
    ("3336-zheng/zhiyu-voice-assistant", "5e3024e6f11d9164ede06ce54c081226466eb41e"),
    ("3creddy/dive-form-app", "7886bfabfedd549bd7daa914fd7adc4ac05f9996"),
    ("4444J99/application-pipeline", "c85fbc2eaf2e2b6ee25a2a27f4d30a0efec1c7d8"),
    ("4444J99/portfolio", "eedac7c6d94fe4eab8d4d32f837ee0e63b82cbb0"),
    ("A-H-911/acmp", "111a0a9c2a49b8433fd6bd5d0c116b4e919a8cdb"),
    ("abl030/cratedigger", "8ec199774a292772eb8cc89430966c5479a6d459"),
    ("ActorForth/ActorForth", "b454705b25c01a8e57a0bd1e9ab1f29a06e1ff81"),
    ("Adam-S-Daniel/agentskills", "b81f6f1b10861400e93579c401e2255daa63b678"),
    ("Adamniels/dayboard-desktop-widget", "cbbc41b2cc77cfea7f203dc44f7f3748d5887c83"),
    ("AdrianLinares/agenda-virtual-liceo", "f2e5ac41454de27c3a42c64f3482520dd3890c93"),
    ("Agentic-Delivery/nordkredit-core-banking", "3dee056864115c2151761fa757cc9daa4faf14c7"),
    ("Airhonreality/indra_next", "ffd34fc56457c847532ed074b359bedd2e41a1b0"),
    ("Akai0301/nl2sql-langgraph", "9c37ac1f633b7a9abc7ff16339b0a7359933ba56"),
    ("Akanekira/GooBlenderMCP", "36c1996baf8ff1da6d87340f619de4b42a368d8d"),
    ("Aleslammer/deathwatch_foundryvtt", "efe362e74845b1ff4a976b08e6d302aaafae4918"),
    ("AlexandreRiedo/leadsheet-utility", "cc71173d613cf49f8adf0b8db14dbb0b45c618b6"),
    ("AlexSergey/opensa", "578c3487e09142ea2576058500bcbfcaddfdb0f1"),
    ("AliouSpecter/automation-projects", "f1597f84c1454f2e17c85ca89c44dd05740132e2"),
    ("AnandRituraj/HOS_Dashboard", "bb14bedb079969449c7985259b04e0edf79e8d1c"),
    ("AnotherSava/bga-assistant", "a0b167ea0073be1a5efcc2115107db1d74117ff8"),
    ("AnotherSava/build123d-models", "b90ca8c6a9fd1cdd752215f659616f1ea3a18cbb"),
    ("BhaskarMantralaHub/vibe-planner", "f4e866240810aef6578f6d93811823904a35caa4"),
    ("calebklc/RaceIQ", "601a34c6db163134087b4413155e3bba69124139"),
    ("CNCHoward/Stock_Analyzer", "d8dbe99d6b1d35717ce29690caa9b80d43720e7d"),
    ("DatZ2H/robotnet10-claude-workspace", "2d416a7eba0e66f695dcca1280a4aafa96b08e3b"),
    ("DiagonalSquares/2D-Fluid-Simulation", "3b226ecfab5c44f64c9a868f15498ce18dc0dfdf"),
    ("domyozi/habit-design-app", "475ad475833e93471777497baecc30113316d498"),
    ("epifanovmd/rest-api-template-app", "590eafb5403035fc9200fc7764b7034f67e99e7d"),
    ("hughmor/fairchild", "619f9021e7c1b52afed055389674d8346449ed75"),
    ("JaeKyoung/mail-cleaner", "81c1720c1abb477dcc091cbacbe3d6edce4bacfa"),
    ("jamart3d/gdar", "c2a9ca480c895597f98b7460d5d3dc8fa1765909"),
    ("JohnLampitt/Ahoy", "66a5167675b31651cdd649ff97482a36049ccc3c"),
    ("kmcd/xray", "e69d089d97f2959562f96467c4272dfa242dedcf"),
    ("Mackeno113/ICare247_Core", "36602158a1dabfe8bbe174486de82108ef8e40c9"),
    ("musaid/pelagic-studio", "d48b692ef92b570f85a909987389e9551a13904d"),
    ("ofostier/claude-code-quest", "304f702f02ce18c0aa1bce5719b340523fe56d4a"),
    ("reringa/EnergyCompass", "8612574cfd87de78806510b07fa5d17a8a671b10"),
    ("thesaluja/ai-solutions", "ac68e66f77530acbc4bc02bf35c7c6bae95f6874"),
    ("vidarc/recommendarr", "324c6502ec38a760c41f4bd6874763c016bea702"),
    ("zlgwzy/zfj-tools", "82b3c51b9c93ea6de5f747533876fde145a679fe"),
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
