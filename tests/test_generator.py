"""The generated store has the measured store's shape (sizes, types, index tiers) and is
deterministic."""

from __future__ import annotations

import statistics
from collections import Counter

import pytest
from memfs import InMemoryFileStore, MemFS
from memfs.generator import (
    SEED_FILES,
    SEED_INDEX_BYTES,
    SEED_INDEX_CHARS,
    SEED_SIZE_MAX,
    SEED_SIZE_MEDIAN,
    SEED_SIZE_MIN,
    generate_workspace,
)
from memfs.index import parse_index
from memfs.records import parse_memory

from tests.conftest import TODAY


def _fs() -> MemFS:
    return MemFS(InMemoryFileStore(), clock=lambda: TODAY)


@pytest.fixture(scope="module")
def seed_store():
    fs = _fs()
    return fs, generate_workspace(fs)


def test_sizes_match_the_seed(seed_store):
    fs, gen = seed_store
    sizes = [len(fs.raw.cat_file(p)) for p in gen.memory_paths]
    assert sizes == gen.sizes
    assert (min(sizes), statistics.median(sizes), max(sizes)) == (
        SEED_SIZE_MIN,
        SEED_SIZE_MEDIAN,
        SEED_SIZE_MAX,
    )


def test_types_and_descriptions(seed_store):
    fs, gen = seed_store
    records = [parse_memory(fs.raw.cat_file(p), p) for p in gen.memory_paths]
    types = Counter(r.type for r in records)
    assert types == {"project": 207, "feedback": 45, "reference": 7, "user": 1, None: 1}
    assert sum(r.description is None for r in records) == 46
    described = [len(r.description) for r in records if r.description]
    assert 95 <= statistics.mean(described) <= 115  # the measured store: 109 characters on average
    styles = Counter(r.name_style for r in records)
    assert styles["kebab"] > styles["snake"] > 0  # both styles coexist, as in a real store
    assert any("node_type" in r.extra for r in records)
    assert any("originSessionId" in r.extra for r in records)
    assert all(r.recorded is not None and r.recorded <= TODAY for r in records)


def test_index_shape(seed_store):
    fs, gen = seed_store
    index = parse_index(fs.raw.cat_file("MEMORY.md").decode())
    assert index.line_count == 106
    assert index.char_count == SEED_INDEX_CHARS
    size = len(fs.raw.cat_file("MEMORY.md"))
    assert abs(size - SEED_INDEX_BYTES) / SEED_INDEX_BYTES < 0.05  # 22,365 bytes: CJK share
    assert len(index.entries) == 98
    assert len(index.packed) == 8
    assert index.folded_count == 93
    assert not index.other
    files = set(gen.memory_paths)
    assert len(files - index.linked_paths()) == 70  # orphans
    assert not index.linked_paths() - files  # no broken links
    hot = statistics.mean(len(e.text) for e in index.entries)
    cold = sum(len(p.text) for p in index.packed) / index.folded_count
    assert 120 <= hot <= 142  # a hot line: ~131 characters in the measured store
    assert 43 <= cold <= 55  # a packed member: ~49 characters


def test_deterministic_and_seeded():
    a, b, c = _fs(), _fs(), _fs()
    generate_workspace(a, 40, seed=3)
    generate_workspace(b, 40, seed=3)
    generate_workspace(c, 40, seed=4)
    files = a.raw.find("")
    assert files == b.raw.find("")
    assert all(a.raw.cat_file(p) == b.raw.cat_file(p) for p in files)
    assert any(
        a.raw.cat_file(p) != c.raw.cat_file(p) for p in files if c.raw.exists(p)
    ) or files != c.raw.find("")


@pytest.mark.parametrize("n", [1, 2, 10, 50, 150])
def test_scales_with_same_proportions(n):
    fs = _fs()
    gen = generate_workspace(fs, n)
    assert len(fs.raw.find("memory")) == n
    index = parse_index(fs.raw.cat_file("MEMORY.md").decode())
    linked = index.linked_paths()
    assert linked <= set(gen.memory_paths)
    assert len(set(gen.memory_paths) - linked) == len(gen.orphan_paths)
    if n >= 50:
        assert abs(len(gen.orphan_paths) / n - 70 / SEED_FILES) < 0.03
        assert abs(len(gen.hot_paths) / n - 98 / SEED_FILES) < 0.03
        assert abs(gen.index_chars / n - SEED_INDEX_CHARS / SEED_FILES) < 5


def test_rejects_empty_store():
    with pytest.raises(ValueError, match="n_files"):
        generate_workspace(_fs(), 0)
