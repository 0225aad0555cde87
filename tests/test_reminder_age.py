"""The reminder's age is right across a change of day, in a process in another time zone, and
when two processes write the same file: every date is the UTC day."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from pathlib import Path

from memfs import InMemoryFileStore, LocalFileStore, MemFS
from memfs.filesystem import utc_today
from memfs.frontmatter_block import recorded_date_of
from memfs.staleness import reminder_text
from memfs.tools import FileToolExecutor

MEMORY = b"---\nname: a\ndescription: d\nmetadata:\n  type: user\n---\nfact\n"


def test_a_change_of_day_moves_the_age_by_one_day_per_day() -> None:
    day = [dt.date(2026, 12, 31)]
    fs = MemFS(InMemoryFileStore(), clock=lambda: day[0])
    fs.pipe_file("memory/a.md", MEMORY)  # written on the 31st
    for later, shown in [
        (1, b""),
        (2, reminder_text(2).encode()),
        (400, reminder_text(400).encode()),
    ]:
        day[0] = dt.date(2026, 12, 31) + dt.timedelta(days=later)
        assert fs.cat_file("memory/a.md").startswith(shown or b"---")
    FileToolExecutor(fs).execute(
        "edit_file", {"path": "memory/a.md", "old_string": "fact", "new_string": "new"}
    )
    assert recorded_date_of(fs.raw.cat_file("memory/a.md")) == day[0]  # re-dated by the edit


_WRITE = (
    "import sys; from memfs import MemFS, LocalFileStore; "
    "fs = MemFS(LocalFileStore(sys.argv[1])); "
    "fs.pipe_file('memory/' + sys.argv[2] + '.md', sys.stdin.buffer.read())"
)


def _write_in(tz: str, root: Path, name: str, data: bytes) -> None:
    env = {**os.environ, "TZ": tz}
    subprocess.run([sys.executable, "-c", _WRITE, str(root), name], input=data, env=env, check=True)


def test_processes_in_other_time_zones_date_a_write_by_the_utc_day(tmp_path: Path) -> None:
    # 14 hours ahead of UTC and 11 behind: the local date differs from UTC's for half the day.
    before = utc_today()
    for tz in ("Pacific/Kiritimati", "Pacific/Pago_Pago", "UTC"):
        _write_in(tz, tmp_path, tz.replace("/", "-"), MEMORY)
    after = utc_today()
    fs = MemFS(LocalFileStore(tmp_path))
    for tz in ("Pacific/Kiritimati", "Pacific/Pago_Pago", "UTC"):
        date = recorded_date_of(fs.raw.cat_file(f"memory/{tz.replace('/', '-')}.md"))
        assert date in {before, after}, (tz, date)


def test_two_processes_writing_the_same_file_leave_one_trusted_date(tmp_path: Path) -> None:
    before = utc_today()
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITE, str(tmp_path), "same"],
            stdin=subprocess.PIPE,
            env={**os.environ, "TZ": tz},
        )
        for tz in ("Pacific/Kiritimati", "Pacific/Pago_Pago")
    ]
    for i, p in enumerate(procs):
        p.communicate(MEMORY.replace(b"fact", f"fact {i}".encode()))
        assert p.returncode == 0
    stored = MemFS(LocalFileStore(tmp_path)).raw.cat_file("memory/same.md")
    assert stored.count(b"recorded: ") == 1
    assert recorded_date_of(stored) in {before, utc_today()}
