"""A record whose dict keys are dates (a program built it, or edited ``extra``; the YAML reader
itself gives date-like keys as text): its JSON gives each such key as ISO text, beside the other
non-text keys, and the whole record serializes."""

from __future__ import annotations

import datetime as dt
import json

from memfs.records import MemoryRecord, parse_memory


def test_date_keys_become_iso_text_in_the_json() -> None:
    record = MemoryRecord(
        path="memory/a.md",
        name="a",
        extra={dt.date(2026, 1, 1): "met", 3: "three"},
        metadata_extra={"log": {dt.datetime(2026, 1, 2, 10, 0, tzinfo=dt.UTC): "again"}},
    )
    out = record.to_json_dict(body=False)
    assert out["extra"] == {"2026-01-01": "met", "3": "three"}
    assert out["metadata_extra"] == {"log": {"2026-01-02T10:00:00+00:00": "again"}}
    assert json.loads(json.dumps(out))["extra"] == out["extra"]


def test_the_yaml_reader_already_gives_date_like_keys_as_text() -> None:
    text = b"---\nname: a\n2026-01-01: met\nmetadata:\n  type: user\n---\nbody\n"
    assert parse_memory(text, "memory/a.md").extra == {"2026-01-01": "met"}
