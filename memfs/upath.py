"""A universal-pathlib ``UPath`` for the ``memfs`` protocol (extra ``upath``).

universal-pathlib finds it through the ``universal_pathlib.implementations`` entry point, so
``UPath("memfs://memory/user-role.md", path="/data/items/42")`` is a :class:`MemFSPath` with no
"not explicitly implemented" warning, and ``import memfs`` never imports universal-pathlib.
Every call goes through :class:`~memfs.filesystem.MemFS`, so reads are decorated (unless
``decorate=False`` is given with the other storage options), writes are stamped and a
``read_only=True`` path refuses them.
"""

from __future__ import annotations

from upath import UPath

__all__ = ["MemFSPath"]


class MemFSPath(UPath):
    """A path inside one item workspace; storage options are MemFS's (``path=``, ``store=``,
    ``read_only=``, ``decorate=``, ``clock=`` …)."""

    __slots__ = ()

    @property
    def path(self) -> str:
        # MemFS paths are workspace-relative; the workspace root is "".
        return super().path.strip("/")

    def __str__(self) -> str:
        return f"memfs://{self.path}"
