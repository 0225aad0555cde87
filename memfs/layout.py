"""Where memory lives in a workspace: the memory area, the index, and how index links resolve.

Two layouts are first class:

* **platform** — ``MEMORY.md`` at the workspace root, memory files under ``memory/``, index
  links ``memory/x.md``;
* **claude-code** — Claude Code's own: ``MEMORY.md`` inside the memory directory beside the
  memory files, links relative to it (``x.md``). The memory directory may be the workspace root
  (a ``~/.claude/projects/<p>/memory/`` directory opened as it is) or a folder in it (a
  repository's ``.claude/memory/``).

Every rule that asks "is this a memory file?" or "where is the index?" asks a :class:`Layout`;
nothing else spells those paths out.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import Literal

from memfs.paths import join, normalize

INDEX_NAME = "MEMORY.md"
"""The index's file name in every layout."""

MEMORY_SUFFIX = ".md"

LayoutKind = Literal["platform", "claude-code"]


@dataclass(frozen=True)
class Layout:
    """The memory area (``memory_dir``, ``""`` for the workspace root) and the index path."""

    kind: LayoutKind
    memory_dir: str
    index_path: str

    @classmethod
    def platform(cls, memory_dir: str = "memory") -> Layout:
        return cls("platform", normalize(memory_dir), INDEX_NAME)

    @classmethod
    def claude_code(cls, memory_dir: str = "") -> Layout:
        rel = normalize(memory_dir)
        return cls("claude-code", rel, join(rel, INDEX_NAME))

    @property
    def index_dir(self) -> str:
        """The directory index links are relative to."""
        return posixpath.dirname(self.index_path)

    def in_memory_area(self, rel: str) -> bool:
        """Whether the workspace path ``rel`` lies in the memory area (any file, any extension)."""
        if not self.memory_dir:
            return bool(rel)
        return rel.startswith(self.memory_dir + "/")

    def is_index(self, rel: str) -> bool:
        return rel == self.index_path

    def is_memory_file(self, rel: str) -> bool:
        """A memory file: a markdown file in the memory area that is not the index."""
        return rel.endswith(MEMORY_SUFFIX) and self.in_memory_area(rel) and rel != self.index_path

    def memory_path(self, name: str) -> str:
        """The workspace path of the memory file called ``name`` (``user-role`` or ``x.md``)."""
        name = name.strip()
        if not name.endswith(MEMORY_SUFFIX):
            name += MEMORY_SUFFIX
        return join(self.memory_dir, name)

    def link_for(self, memory_path: str) -> str:
        """How the index links ``memory_path`` (relative to the index's directory)."""
        base = self.index_dir
        if not base:
            return memory_path
        if memory_path.startswith(base + "/"):
            return memory_path[len(base) + 1 :]
        return posixpath.relpath(memory_path, base)

    def describe(self) -> str:
        """One line for people: which layout and where its files are."""
        area = f"{self.memory_dir}/" if self.memory_dir else "the workspace root"
        return f"{self.kind} layout: index {self.index_path}, memory files in {area}"


PLATFORM = Layout.platform()
"""The platform's layout, the default everywhere."""

INDEX_FILE = PLATFORM.index_path
MEMORY_DIR = PLATFORM.memory_dir
