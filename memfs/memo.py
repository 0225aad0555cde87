"""A bounded memo: the last results of a pure function of bytes, capped in bytes, not entries.

The same memory files and index are read on every turn of an item, so the views built from them
are kept; an entry is checked against the exact input it was built from, and the memo never
holds more than its budget however large the inputs are. The oldest entries go first. A lookup
takes no lock (one dict read and one comparison): on the hot read path it is most of the cost.
"""

from __future__ import annotations

import threading
from collections.abc import Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class BoundedMemo(Generic[V]):
    """``key -> (source, value)``; the ``size`` of an entry is what the caller says it costs."""

    def __init__(self, budget_bytes: int, *, max_entry_bytes: int | None = None) -> None:
        self.budget_bytes = budget_bytes
        self.max_entry_bytes = budget_bytes if max_entry_bytes is None else max_entry_bytes
        self._entries: dict[Hashable, tuple[object, V, int]] = {}
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: Hashable, source: object) -> V | None:
        """The value stored for ``key`` if it was built from ``source`` (compared with ==)."""
        hit = self._entries.get(key)
        return hit[1] if hit is not None and hit[0] == source else None

    def put(self, key: Hashable, source: object, value: V, size: int) -> None:
        if size > self.max_entry_bytes:
            return
        with self._lock:
            old = self._entries.pop(key, None)
            self._bytes += size - (old[2] if old is not None else 0)
            self._entries[key] = (source, value, size)
            while self._bytes > self.budget_bytes and self._entries:
                self._bytes -= self._entries.pop(next(iter(self._entries)))[2]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0

    @property
    def bytes(self) -> int:
        return self._bytes

    def __len__(self) -> int:
        return len(self._entries)
