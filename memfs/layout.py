"""Where memory lives in a workspace: the memory area, the index, and how index links resolve.

Two layouts are first class:

* **platform** — ``MEMORY.md`` at the workspace root, memory files under ``memory/``, index
  links ``memory/x.md``;
* **claude-code** — Claude Code's own: ``MEMORY.md`` inside the memory directory beside the
  memory files, links relative to it (``x.md``). The memory directory may be the workspace root
  (a ``~/.claude/projects/<p>/memory/`` directory opened as it is) or a folder in it (a
  repository's ``.claude/memory/``).

Every rule that asks "is this a memory file?" or "where is the index?" asks a :class:`Layout`;
nothing else spells those paths out. :func:`detect_layout` tells from a workspace's file list
which layout it is in, and says why.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from memfs.paths import join, normalize

INDEX_NAME = "MEMORY.md"
"""The index's file name in every layout."""

MEMORY_SUFFIX = ".md"

LayoutKind = Literal["platform", "claude-code"]
LAYOUT_CHOICES: tuple[str, ...] = ("auto", "platform", "claude-code")
"""What ``--layout`` accepts: ``auto`` detects (:func:`detect_layout`)."""

CLAUDE_CODE_REPO_DIR = ".claude/memory"
"""Where a repository keeps Claude Code memory (``<repo>/.claude/memory/``)."""


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

    def date_key(self, present: Sequence[str]) -> str:
        """The frontmatter key a change's date is written to, given the date keys a file has
        (labels such as ``metadata.modified``, in the reader's order of precedence).

        The platform's is ``metadata.recorded``. Claude Code's is the key that store already
        uses for the file — its first date key other than ``metadata.recorded`` (usually
        ``metadata.modified``; ``created`` where that is all it has) — and ``metadata.modified``
        for a file with none, so Claude Code keeps reading the date memfs wrote.
        """
        if self.kind == "platform":
            return "metadata.recorded"
        own = [label for label in present if label != "metadata.recorded"]
        return own[0] if own else "metadata.modified"

    def describe(self) -> str:
        """One line for people: which layout and where its files are."""
        area = f"{self.memory_dir}/" if self.memory_dir else "the workspace root"
        return f"{self.kind} layout: index {self.index_path}, memory files in {area}"


PLATFORM = Layout.platform()
"""The platform's layout, the default everywhere."""

INDEX_FILE = PLATFORM.index_path
MEMORY_DIR = PLATFORM.memory_dir


@dataclass(frozen=True)
class Detection:
    """A layout and, in one sentence, why it was chosen."""

    layout: Layout
    reason: str

    def describe(self) -> str:
        return f"{self.layout.describe()} ({self.reason})"


def _count(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")


def _claude_code_index(files: set[str]) -> str | None:
    """The index of a Claude Code memory directory below the root: ``.claude/memory/`` first,
    then the shallowest other ``*/MEMORY.md``."""
    nested = sorted(
        (p for p in files if p.endswith("/" + INDEX_NAME)), key=lambda p: (p.count("/"), p)
    )
    preferred = f"{CLAUDE_CODE_REPO_DIR}/{INDEX_NAME}"
    if preferred in files:
        return preferred
    return nested[0] if nested else None


IndexLinks = Callable[[], Sequence[str]]
"""The workspace paths of the markdown files the root ``MEMORY.md`` links
(:func:`memfs.index.markdown_file_links`), asked for only when the file list cannot decide."""


def _links_into_subfolders(files: set[str], index_links: IndexLinks | None) -> list[str]:
    """The root index's links when every one of them points into a sub-folder of the root
    other than ``memory/`` (a Claude Code store kept in ``episodic/``, ``semantic/``, …)."""
    if index_links is None:
        return []
    links = list(index_links())
    inside = [
        p for p in links if "/" in p and not p.startswith(("../", "/", f"{PLATFORM.memory_dir}/"))
    ]
    return links if links and len(inside) == len(links) else []


def detect_layout(paths: Iterable[str], index_links: IndexLinks | None = None) -> Detection:
    """The layout of a workspace holding ``paths`` (workspace file paths), and why.

    Decided from the file list (and, in one case, the root index's links), in this order:

    1. ``MEMORY.md`` at the root with markdown files under ``memory/``: **platform**.
    2. ``MEMORY.md`` at the root with other markdown files beside it and none under
       ``memory/``: **claude-code** with the root as the memory directory (a
       ``~/.claude/projects/<p>/memory/`` directory opened as it is). So too when every link
       of that ``MEMORY.md`` (``index_links``) points into a sub-folder of the root other than
       ``memory/``: a Claude Code store that keeps its memories in folders.
    3. No ``MEMORY.md`` at the root but one below it: **claude-code** in that directory —
       ``.claude/memory/`` when it has one (a repository), else the shallowest (so a store
       moved to ``memory/MEMORY.md`` is read as Claude Code's, not as an index-less platform).
    4. No index anywhere: markdown under ``.claude/memory/`` (and none under ``memory/``) is
       **claude-code** there; anything else is **platform**, the default (a new workspace).

    A lone root ``MEMORY.md`` with no memory files yet is the platform layout.
    """
    files = {p for p in paths if p}
    platform_files = [p for p in files if PLATFORM.is_memory_file(p)]
    if INDEX_NAME in files:
        if platform_files:
            return Detection(
                PLATFORM,
                f"{INDEX_NAME} at the root and {_count(len(platform_files), 'markdown file')} "
                f"under {PLATFORM.memory_dir}/",
            )
        beside = [p for p in files if "/" not in p and p.endswith(MEMORY_SUFFIX)]
        beside.remove(INDEX_NAME)
        if beside:
            return Detection(
                Layout.claude_code(""),
                f"{INDEX_NAME} beside {_count(len(beside), 'markdown file')} at the root and "
                f"no {PLATFORM.memory_dir}/ folder",
            )
        links = _links_into_subfolders(files, index_links)
        if links:
            folders = sorted({p.split("/", 1)[0] + "/" for p in links})
            shown = ", ".join(folders[:4]) + (" …" if len(folders) > 4 else "")
            return Detection(
                Layout.claude_code(""),
                f"{INDEX_NAME} at the root links {_count(len(links), 'markdown file')}, all in "
                f"its sub-folders ({shown}), none under {PLATFORM.memory_dir}/",
            )
        return Detection(PLATFORM, f"{INDEX_NAME} at the root and no memory files yet")
    index = _claude_code_index(files)
    if index is not None:
        layout = Layout.claude_code(posixpath.dirname(index))
        n = sum(layout.is_memory_file(p) for p in files)
        return Detection(
            layout,
            f"{index} beside {_count(n, 'markdown file')}, no {INDEX_NAME} at the root",
        )
    nested = Layout.claude_code(CLAUDE_CODE_REPO_DIR)
    nested_files = [p for p in files if nested.is_memory_file(p)]
    if nested_files and not platform_files:
        return Detection(
            nested,
            f"{_count(len(nested_files), 'markdown file')} under {CLAUDE_CODE_REPO_DIR}/ and "
            "no index yet",
        )
    if platform_files:
        return Detection(
            PLATFORM,
            f"{_count(len(platform_files), 'markdown file')} under {PLATFORM.memory_dir}/ "
            f"and no {INDEX_NAME} yet",
        )
    return Detection(PLATFORM, "no index and no memory files: the default")


def resolve_layout(
    choice: str, paths: Iterable[str], index_links: IndexLinks | None = None
) -> Detection:
    """The layout ``--layout CHOICE`` means for a workspace holding ``paths``.

    ``auto`` detects; ``platform`` is the platform layout; ``claude-code`` is Claude Code's,
    in the directory :func:`detect_layout` would find for it (the root when there is none).
    ``index_links`` as :func:`detect_layout` takes it.
    """
    if choice == "platform":
        return Detection(PLATFORM, "chosen with --layout platform")
    files = [p for p in paths if p]
    if choice == "claude-code":
        found = detect_layout(files, index_links)
        if found.layout.kind == "claude-code":
            return Detection(found.layout, f"chosen with --layout claude-code; {found.reason}")
        index = None if INDEX_NAME in files else _claude_code_index(set(files))
        where = posixpath.dirname(index) if index is not None else ""
        return Detection(Layout.claude_code(where), "chosen with --layout claude-code")
    if choice == "auto":
        return detect_layout(files, index_links)
    raise ValueError(f"Unknown layout {choice!r}; use one of {', '.join(LAYOUT_CHOICES)}.")
