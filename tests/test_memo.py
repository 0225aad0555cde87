"""The bounded memo: a hit only for the exact input, never more held than the budget."""

from __future__ import annotations

import threading

from memfs.memo import BoundedMemo


def test_a_value_is_returned_only_for_the_source_it_was_built_from() -> None:
    memo: BoundedMemo[str] = BoundedMemo(100)
    memo.put("k", b"source one", "view one", 10)
    assert memo.get("k", b"source one") == "view one"
    assert memo.get("k", b"source two") is None  # the file changed: a miss, not a stale view
    assert memo.get("other", b"source one") is None


def test_putting_a_key_again_replaces_it_and_its_size() -> None:
    memo: BoundedMemo[str] = BoundedMemo(100)
    memo.put("k", "a", "first", 30)
    memo.put("k", "b", "second", 50)
    assert len(memo) == 1 and memo.bytes == 50
    assert memo.get("k", "a") is None and memo.get("k", "b") == "second"


def test_the_oldest_entries_go_first_to_stay_within_the_budget() -> None:
    memo: BoundedMemo[int] = BoundedMemo(100)
    for i in range(5):
        memo.put(i, i, i * 10, 30)
    assert memo.bytes <= 100
    assert [k for k in range(5) if memo.get(k, k) is not None] == [2, 3, 4]
    assert memo.bytes == 90 and len(memo) == 3


def test_a_re_put_entry_counts_as_new() -> None:
    memo: BoundedMemo[str] = BoundedMemo(60)
    memo.put("a", 1, "a", 30)
    memo.put("b", 1, "b", 30)
    memo.put("a", 2, "a2", 30)  # "a" now newer than "b"
    memo.put("c", 1, "c", 30)
    assert memo.get("b", 1) is None
    assert memo.get("a", 2) == "a2" and memo.get("c", 1) == "c"


def test_an_entry_over_the_entry_cap_is_not_kept() -> None:
    memo: BoundedMemo[str] = BoundedMemo(1000, max_entry_bytes=100)
    memo.put("small", "s", "kept", 100)
    memo.put("big", "s", "dropped", 101)
    assert memo.get("small", "s") == "kept" and memo.get("big", "s") is None
    assert memo.bytes == 100 and len(memo) == 1
    whole: BoundedMemo[str] = BoundedMemo(50)  # by default the cap is the whole budget
    whole.put("big", "s", "dropped", 51)
    whole.put("fits", "s", "kept", 50)
    assert len(whole) == 1 and whole.get("fits", "s") == "kept"


def test_clear_empties_it() -> None:
    memo: BoundedMemo[str] = BoundedMemo(100)
    memo.put("a", 1, "a", 40)
    memo.put("b", 1, "b", 40)
    memo.clear()
    assert len(memo) == 0 and memo.bytes == 0 and memo.get("a", 1) is None


def test_threads_putting_at_once_keep_the_byte_count_exact() -> None:
    memo: BoundedMemo[int] = BoundedMemo(10_000)
    start = threading.Barrier(4)

    def put_many(worker: int) -> None:
        start.wait()
        for i in range(2_000):
            memo.put((worker, i % 50), i, i, 1 + i % 7)

    threads = [threading.Thread(target=put_many, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # each key's last put was i = 1950 + j (i % 50 == j), of size 1 + i % 7
    last = {(w, j): 1950 + j for w in range(4) for j in range(50)}
    assert all(memo.get(key, i) == i for key, i in last.items())
    assert len(memo) == 200 and memo.bytes == sum(1 + i % 7 for i in last.values())
