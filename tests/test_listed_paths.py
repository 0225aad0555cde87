"""A listed path is checked once, when the listing builds it, and trusted through its type."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from memfs import LocalFileStore, MemFS
from memfs.errors import UnsafePathError
from memfs.paths import (
    MAX_PATH_BYTES,
    WorkspacePath,
    canonical_entry_name,
    is_canonical,
    listed_child,
    normalize,
)


def test_listed_child_builds_a_trusted_path_only_from_a_canonical_name() -> None:
    child = listed_child("memory", "user-role.md")
    assert child == "memory/user-role.md" and type(child) is WorkspacePath
    assert normalize(child) is child  # returned as it is, for every flag
    assert normalize(child, allow_absolute=True, reserved=True) is child
    for name in ("", ".", "..", "a/b", ".memfs", ".memfs-tmp-x", "%2e%2e", "x?y", "\u2215"):
        assert listed_child("memory", name) is None, name
    assert listed_child("d", "x" * 200) is not None
    assert listed_child("d/" * (MAX_PATH_BYTES // 2 - 100), "x" * 200) is None


def test_a_string_made_from_a_listed_path_is_checked_again() -> None:
    child = listed_child("memory", "a.md")
    assert child is not None
    with pytest.raises(UnsafePathError):
        normalize(child + "/../../etc")  # a plain str once changed
    assert type(child.rstrip("/")) is str


def test_a_local_listing_gives_trusted_paths_that_read_back(tmp_path) -> None:  # type: ignore[no-untyped-def]
    fs = MemFS(LocalFileStore(str(tmp_path)), history=False)
    fs.pipe_file("memory/a.md", b"hello\n")
    (tmp_path / "memory" / "odd?.md").write_bytes(b"x")  # a name no workspace path can hold
    found = fs.find("")
    assert found == ["memory/a.md"] and all(type(p) is WorkspacePath for p in found)
    assert fs.raw.cat_file(found[0]) == b"hello\n"
    assert fs._strip_protocol(found[0]) is found[0]


@settings(max_examples=2000, deadline=None)
@example(".memfs")
@example(".memfs-tmp-x")
@example("..")
@example("a" * 255)
@example("a" * 256)
@example("-x")
@given(st.text(alphabet="aZ09_.-%? \t/\\\x00\x7f\u2028．é", min_size=1, max_size=10))
def test_a_plain_entry_name_is_canonical_exactly_when_normalize_says_so(name: str) -> None:
    """A listing takes most names by their characters alone (no normalize call): never one
    that normalize would refuse or change, in either area."""
    for reserved in (False, True):
        assert canonical_entry_name(name, reserved=reserved) == is_canonical(
            name, reserved=reserved
        )
