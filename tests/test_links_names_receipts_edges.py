"""Small rules at their edges: an index link that is only a query, a link to a path outside the
index's directory, a name with nothing left to match, frontmatter keys that are dates in JSON,
a manifest with no context files, and the receipts of memory files missing parts."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from memfs import stats
from memfs.index import resolve_link
from memfs.layout import Layout
from memfs.manifest import AgentManifest
from memfs.receipt import write_receipt
from memfs.records import MemoryNames, parse_memory


def test_an_index_link_that_is_only_a_query_names_no_file() -> None:
    assert resolve_link("?q=1") is None
    assert resolve_link("<memory/a.md>") == "memory/a.md"


def test_a_path_outside_the_index_directory_is_linked_relative_to_it() -> None:
    layout = Layout.claude_code(".claude/memory")
    assert layout.link_for(".claude/memory/a.md") == "a.md"
    assert layout.link_for("notes/x.md") == "../../notes/x.md"


def test_a_name_with_nothing_left_once_folded_matches_no_memory() -> None:
    names = MemoryNames.of_paths(["memory/a.md", "memory/b_c.md"])
    assert names.find("__") is None
    assert names.find("B C") == "memory/b_c.md"


def test_frontmatter_keys_that_are_dates_or_numbers_are_text_in_json() -> None:
    raw = b"---\nname: a\nmetadata:\n  type: user\n  2026-01-01: first\n  7: seven\n---\nx\n"
    extra = parse_memory(raw, "memory/a.md").to_json_dict()["metadata_extra"]
    assert extra == {"2026-01-01": "first", "7": "seven"}
    assert json.loads(json.dumps(extra)) == extra


def test_a_manifest_without_context_files_keeps_none() -> None:
    assert AgentManifest(context_files=None).context_files is None


def test_a_stats_report_refuses_a_value_that_is_not_json() -> None:
    assert stats._json_value(dt.date(2026, 12, 1)) == "2026-12-01"
    with pytest.raises(TypeError, match="object is not JSON"):
        stats._json_value(object())


def test_the_receipt_of_a_memory_without_a_name_or_a_date_says_what_to_fix() -> None:
    receipt = write_receipt(
        "memory/a.md", b"---\ndescription: d\nmetadata:\n  type: user\n---\nx\n"
    )
    assert receipt == (
        "Stored memory/a.md: user memory 'a', description 'd', no recorded date, so reads never "
        "warn that it may be stale.\nTo fix: no name: add a short kebab-case name."
    )


def test_the_receipt_of_a_memory_whose_frontmatter_is_not_yaml_says_so() -> None:
    receipt = write_receipt("memory/a.md", b"---\nname: [a\n  b: : c\n---\nx\n")
    assert receipt.splitlines()[-1] == (
        "To fix: the frontmatter is not valid YAML: name, description and metadata.type are unread."
    )


def test_the_derived_index_links_a_memory_outside_the_index_directory_relatively() -> None:
    from memfs import InMemoryFileStore, MemFS
    from memfs.stats import collect_stats

    layout = Layout("platform", "memory", "docs/MEMORY.md")  # the index in its own folder
    fs = MemFS(InMemoryFileStore(), layout=layout, clock=lambda: dt.date(2026, 12, 1))
    fs.pipe_file("memory/a.md", b"---\nname: a\ndescription: d\nmetadata:\n  type: user\n---\nx\n")
    derived = collect_stats(fs).derived_index
    assert (derived.lines, derived.chars) == (1, len("- [a](../memory/a.md) — d") + 1)
