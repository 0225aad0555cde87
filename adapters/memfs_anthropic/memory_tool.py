"""The Anthropic client-side memory tool (``memory_20250818``) over a MemFS item workspace.

Claude API users hand Claude a ``/memories`` directory through six commands (``view``,
``create``, ``str_replace``, ``insert``, ``delete``, ``rename``). :class:`MemFSMemoryTool`
implements the SDK's ``BetaAbstractMemoryTool`` on a :class:`~memfs.filesystem.MemFS`, so
the model gets the same memory as every other surface of the workspace:

=========================  =========================================================
``/memories``              the workspace's memory area (``memory/`` by default)
``/memories/<path>``       ``memory/<path>``
``/memories/MEMORY.md``    the index at the workspace root, ``MEMORY.md``
=========================  =========================================================

``/memories/MEMORY.md`` is the workspace layout's index: in the platform layout the file at the
workspace root (where the context builder injects it from; a stray ``memory/MEMORY.md`` is
shadowed, neither listed nor reachable), in Claude Code's layout the ``MEMORY.md`` inside the
memory directory. Links inside the index stay as the layout writes them.

Every user-facing string is the SDK reference's (``BetaLocalFilesystemMemoryTool``) unless the
reference is wrong; the deliberate differences are listed in :data:`DELIBERATE_DIFFERENCES`
and tested. The rules are MemFS's: reads of ``memory/**.md`` carry the staleness reminder,
writes get a trusted ``metadata.recorded``, a read-only mount refuses every mutation and paths
stay confined. This module only maps names and formats text.
"""

from __future__ import annotations

import functools
import os
import posixpath
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from anthropic.lib.tools import (
    BetaAbstractMemoryTool,
    BetaAsyncAbstractMemoryTool,
    BetaFunctionToolResultType,
    ToolError,
)
from anthropic.types.beta import (
    BetaCacheControlEphemeralParam,
    BetaMemoryTool20250818CreateCommand,
    BetaMemoryTool20250818DeleteCommand,
    BetaMemoryTool20250818InsertCommand,
    BetaMemoryTool20250818RenameCommand,
    BetaMemoryTool20250818StrReplaceCommand,
    BetaMemoryTool20250818ViewCommand,
)
from anyio.to_thread import run_sync
from memfs import (
    INDEX_NAME,
    Layout,
    LocalFileStore,
    MemFS,
    MoveConflictError,
    PathConflictError,
    UnsafePathError,
    describe_mode,
    describe_storage_failure,
    escape_for_agent,
    is_expected_failure,
    join,
    normalize,
    split_view,
    write_receipt,
)

MEMORIES_ROOT = "/memories"
MAX_LINES = 999_999
LINE_NUMBER_WIDTH = len(str(MAX_LINES))

DELIBERATE_DIFFERENCES: dict[str, str] = {
    "memories-prefix": (
        "'/memoriesX/...' is refused as outside /memories; the reference strips the prefix "
        "textually and writes to /memories/X/..."
    ),
    "directory-size": (
        "a directory's size in a 'view' listing is the total of the files under it; the "
        "reference prints the host's st_size of the directory inode (4K on ext4), which says "
        "nothing about its content and has no equivalent in a FileStore"
    ),
    "rename-into-itself": (
        "renaming a directory into its own subtree is refused with a message; the reference "
        "lets os.rename raise a bare OSError (EINVAL)"
    ),
    "not-utf8": (
        "a file that is not UTF-8 is an error result naming the path; the reference lets a "
        "bare UnicodeDecodeError escape"
    ),
    "staleness-reminder": (
        "viewing a stale memory file shows MemFS's <system-reminder> on its own unnumbered "
        "line after the header, so line numbers still match the stored file that "
        "str_replace and insert edit; reminder-like tags inside a memory file are shown "
        "escaped (MemFS's forgery guard)"
    ),
    "recorded-stamp": (
        "creating or editing the body of a memory file with frontmatter sets its date "
        "(metadata.recorded) to the write date, whatever date it held (MemFS's trusted date), "
        "so the stored file, its size and its view carry that line"
    ),
    "read-only": (
        "on a read-only mount (fs.read_only(), what workflow turns get) every mutating "
        "command is an error result carrying MemFS's EROFS message; the reference has no "
        "read-only mode"
    ),
    "write-receipt": (
        "create, str_replace and insert of a memory file or of MEMORY.md add MemFS's write "
        "receipt after the reference's message, past a blank line: what was stored (name, "
        "type, description, recorded date) and what is wrong with it, the same receipt every "
        "surface gives; the reference says only that the file was written"
    ),
}
"""Where this tool knowingly differs from the SDK reference, and why."""


@dataclass(frozen=True)
class _Target:
    """A ``/memories`` path resolved to the workspace."""

    shown: str
    """The path as the model wrote it: every message quotes it verbatim, like the reference."""
    rel: str
    """The workspace path it maps to."""
    is_root: bool


def format_size(n: int) -> str:
    """Human-readable size exactly as the SDK reference prints it (``0B``, ``512B``, ``1.5K``)."""
    if n == 0:
        return "0B"
    units = ["B", "K", "M", "G"]
    i = min((n.bit_length() - 1) // 10, len(units) - 1)
    size = n / (1024**i)
    return f"{int(size)}{units[i]}" if size == int(size) else f"{size:.1f}{units[i]}"


def _message(e: BaseException) -> str:
    if isinstance(e, OSError) and e.strerror:
        return str(e.strerror)
    return str(e)


def _split_lines_keeping_cr(content: str) -> list[str]:
    lines = content.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def _numbered(lines: list[str], start: int) -> str:
    return "\n".join(
        f"{str(i + start).rjust(LINE_NUMBER_WIDTH)}\t{ln}" for i, ln in enumerate(lines)
    )


class _LocalLinks:
    """The symlinks of a memory area on a local disk, resolved as the reference resolves them.

    The reference tool resolves a path, links included, before it acts, refuses one that leads
    out of ``/memories`` ("would escape /memories directory") and acts on the resolved path.
    MemFS's stores refuse every link they meet, so the tool does the resolving: a link that
    stays in the memory area is followed to its target, one that leads anywhere else (the rest
    of the workspace included) is refused, and the store is handed the link-free result, on
    which it refuses any link swapped in since. Only a :class:`~memfs.LocalFileStore` can hold
    links; on every other store paths are taken as they are.
    """

    def __init__(self, root: str, layout: Layout) -> None:
        self.root = root
        self.layout = layout

    @classmethod
    def of(cls, fs: MemFS) -> _LocalLinks | None:
        store: object = fs.store
        while not isinstance(store, LocalFileStore) and hasattr(store, "inner"):
            store = store.inner  # wrappers: process-locked, counting
        return cls(store.root, fs.layout) if isinstance(store, LocalFileStore) else None

    def host(self, rel: str) -> str:
        return os.path.join(self.root, *rel.split("/")) if rel else self.root

    def _workspace(self, host: str) -> str | None:
        if host == self.root:
            return ""
        if host.startswith(self.root + os.sep):
            return host[len(self.root) + 1 :].replace(os.sep, "/")
        return None

    def in_area(self, rel: str) -> bool:
        return rel == self.layout.memory_dir or self.layout.in_memory_area(rel)

    def resolve(self, rel: str) -> str | None:
        """``rel`` with every link on it resolved, or None when it leads out of the memory
        area (a missing tail is kept as it is, as ``os.path.realpath`` keeps it)."""
        host = self.root
        for seg in rel.split("/") if rel else ():
            host = os.path.join(host, seg)
            try:
                if not stat.S_ISLNK(os.lstat(host).st_mode):
                    continue
            except OSError:
                return rel  # missing from here on: nothing below can be a link
            real = self._workspace(os.path.realpath(self.host(rel)))
            return real if real is not None and self.in_area(real) else None
        return rel  # no link on the way (the root is already a real path)

    def linked_children(self, dir_rel: str) -> list[tuple[str, str]]:
        """``(name, target)`` of each link in the directory ``dir_rel`` whose target exists in
        the memory area (the reference lists those and skips the rest)."""
        host = self.host(dir_rel)
        if os.path.realpath(host) != host:
            return []  # swapped for a link since it was resolved
        try:
            with os.scandir(host) as entries:
                names = [e.name for e in entries if e.is_symlink()]
        except OSError:
            return []
        out = []
        for name in names:
            target = self.resolve(join(dir_rel, name))
            if target is not None and os.path.exists(self.host(target)):
                out.append((name, target))
        return out

    def why_refused(self, rel: str) -> tuple[str, str] | None:
        """What on the way to ``rel`` the store refused: ``("leaf", what it is)`` for the file
        itself or ``("link", path of the link)`` for a directory on the way; None if neither."""
        walked = ""
        for i, seg in enumerate(rel.split("/")):
            walked = join(walked, seg)
            try:
                mode = os.lstat(self.host(walked)).st_mode
            except OSError:
                return None
            last = i == rel.count("/")
            if last and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                return "leaf", describe_mode(mode)
            if stat.S_ISLNK(mode):
                return "link", walked
        return None


_Command = TypeVar("_Command")


def _for_agent(
    method: Callable[[Any, _Command], BetaFunctionToolResultType],
) -> Callable[[Any, _Command], BetaFunctionToolResultType]:
    """Every result and error a command returns, with tag-like text escaped (memfs.tags):
    names, snippets and receipts quote what the model or a file wrote. (``view`` escapes its
    parts itself: its one genuine reminder must stay a reminder.)"""

    @functools.wraps(method)
    def run(self: Any, command: _Command) -> BetaFunctionToolResultType:
        try:
            result = method(self, command)
        except ToolError as e:
            content = e.content
            raise ToolError(
                escape_for_agent(content) if isinstance(content, str) else content
            ) from e.__cause__
        return escape_for_agent(result) if isinstance(result, str) else result

    return run


class MemFSMemoryTool(BetaAbstractMemoryTool):
    """``memory_20250818`` backed by a MemFS workspace (pass ``fs.read_only()`` for workflows)."""

    def __init__(
        self, fs: MemFS, *, cache_control: BetaCacheControlEphemeralParam | None = None
    ) -> None:
        super().__init__(cache_control=cache_control)
        self.fs = fs.acting_as("anthropic memory tool", unless_set=True)  # for the history
        self.memory_dir = fs.layout.memory_dir
        self.index_path = fs.layout.index_path
        self._links = _LocalLinks.of(fs)

    # -- paths ---------------------------------------------------------------------------------

    def resolve(self, path: str) -> _Target:
        """Map a ``/memories`` path to the workspace path it names, or raise ToolError.

        Links in the memory area are resolved as the reference resolves them
        (:class:`_LocalLinks`): every command acts on the resolved path.
        """
        if not path.startswith(MEMORIES_ROOT):
            raise ToolError(f"Path must start with /memories, got: {path}")
        rest = path[len(MEMORIES_ROOT) :]
        if rest and not rest.startswith("/"):
            raise ToolError(
                f"Path {path} is outside /memories: it must be /memories or start with "
                "/memories/ (e.g. /memories/notes.md)."
            )
        # Resolve '.' and '..' over the whole absolute path, as the reference's resolve() does
        # (without following symlinks: the store refuses those that lead out).
        parts: list[str] = []
        for seg in path.split("/"):
            if seg == "..":
                if parts:
                    parts.pop()
            elif seg not in ("", "."):
                parts.append(seg)
        if parts[:1] != [MEMORIES_ROOT.strip("/")]:
            raise ToolError(f"Path {path} would escape /memories directory")
        parts = parts[1:]
        if not parts:
            return _Target(path, self.memory_dir, True)
        rel = self.index_path if parts == [INDEX_NAME] else join(self.memory_dir, *parts)
        try:
            normalize(rel)  # the workspace's own path rules (NUL, backslash, segment length)
        except UnsafePathError as e:
            raise ToolError(f"Path {path} is not a valid memory path: {_message(e)}") from e
        if self._links is not None and self._links.in_area(rel):
            resolved = self._links.resolve(rel)
            if resolved is None:
                raise ToolError(f"Path {path} would escape /memories directory")
            return _Target(path, resolved, resolved == self.memory_dir)
        return _Target(path, rel, False)

    @contextmanager
    def _errors(self, path: str, rel: str | None = None) -> Iterator[None]:
        """Turn what MemFS raises into the error result the model reads."""
        try:
            yield
        except ToolError:
            raise
        except UnsafePathError as e:
            raise self._refused(path, rel, e) from e
        except PermissionError as e:
            raise ToolError(_message(e)) from e
        except (OSError, ValueError) as e:
            raise ToolError(f"The operation on {path} failed: {_message(e)}") from e
        except Exception as e:  # a storage backend's own error, in the words every surface uses
            if not is_expected_failure(e):
                raise
            target = getattr(self.fs.store, "url", None)
            raise ToolError(describe_storage_failure(e, target)) from e

    def _refused(self, shown: str, rel: str | None, e: UnsafePathError) -> ToolError:
        """The store refused ``rel`` although its path passed :meth:`resolve`: a link or a
        special file was there (swapped in since, when it is a link)."""
        why = None if rel is None or self._links is None else self._links.why_refused(rel)
        if why is not None and why[0] == "leaf":
            return ToolError(f"Unsupported file type for {shown}: it is {why[1]}")
        if why is not None:
            link = self._shown_of(why[1])
            return ToolError(f"Path {shown} would escape /memories directory: {link} is a symlink")
        return ToolError(f"The operation on {shown} was refused: {_message(e)}")

    def _shown_of(self, rel: str) -> str:
        """The ``/memories`` path of the workspace path ``rel`` in the memory area."""
        base = self.memory_dir
        if rel == base:
            return MEMORIES_ROOT
        return f"{MEMORIES_ROOT}/{rel[len(base) + 1 :] if base else rel}"

    def _kind(self, t: _Target) -> str | None:
        if t.is_root:
            return "directory"
        with self._errors(t.shown, t.rel):
            if self.fs.isdir(t.rel):
                return "directory"
            if self.fs.exists(t.rel):
                return "file"
        return None

    def _decode(self, t: _Target, data: bytes) -> str:
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ToolError(
                f"The file {t.shown} is not UTF-8 text; the memory tool reads and edits text "
                "files only."
            ) from e

    def _gone(self, t: _Target) -> ToolError:
        return ToolError(
            f"The file {t.shown} no longer exists (may have been deleted or renamed concurrently)."
        )

    def _receipt(self, t: _Target, stored: bytes, sent: bytes | None = None) -> str:
        """MemFS's write receipt for what is now stored at ``t``, after a blank line; or ``""``."""
        receipt = write_receipt(t.rel, stored, layout=self.fs.layout, sent=sent)
        return f"\n\n{receipt}" if receipt else ""

    def _edit(self, t: _Target, change: Callable[[str], str]) -> str:
        """Apply ``change`` to the stored text without losing a concurrent write; return what
        was stored (MemFS may stamp metadata.recorded).

        MemFS's read -> change -> conditional-write loop re-runs ``change`` on the new content
        when another writer got in between; ``change`` raises ToolError to abort.
        """

        def apply(current: bytes | None) -> bytes:
            if current is None:
                raise self._gone(t)
            return change(self._decode(t, current)).encode("utf-8")

        with self._errors(t.shown, t.rel):
            stored = self.fs.update(t.rel, apply)
        return stored.decode("utf-8", errors="replace")

    def _require_file(self, t: _Target) -> None:
        kind = self._kind(t)
        if kind is None:
            raise ToolError(f"The path {t.shown} does not exist. Please provide a valid path.")
        if kind != "file":
            raise ToolError(f"The path {t.shown} is not a file.")

    # -- view ----------------------------------------------------------------------------------

    def view(self, command: BetaMemoryTool20250818ViewCommand) -> str:
        t = self.resolve(command.path)
        kind = self._kind(t)
        if kind is None:
            raise ToolError(f"The path {command.path} does not exist. Please provide a valid path.")
        if kind == "directory":
            return self._listing(t)
        with self._errors(t.shown, t.rel):
            try:
                raw, data = self.fs.read_with_view(t.rel)
            except FileNotFoundError as e:
                raise self._gone(t) from e
        # A reminder is MemFS's own only where MemFS made the view (a decorated memory file,
        # whose stored tags are escaped): one at the top of a file shown as stored is content.
        reminder, body = split_view(data) if data != raw else (None, data)
        text = self._decode(t, body)
        lines = text.split("\n")
        if len(lines) > MAX_LINES:
            raise ToolError(f"File {command.path} exceeds maximum line limit of 999,999 lines.")
        display, start = lines, 1
        if command.view_range and len(command.view_range) == 2:
            first = max(1, command.view_range[0]) - 1
            last = len(lines) if command.view_range[1] == -1 else command.view_range[1]
            display, start = lines[first:last], first + 1
        head = f"Here's the content of {escape_for_agent(command.path)} with line numbers:\n"
        # The reminder goes on its own unnumbered line: line numbers stay the stored file's.
        return head + (reminder + "\n" if reminder else "") + _numbered(display, start)

    def _children(self, dir_rel: str, at_root: bool) -> list[tuple[str, str]]:
        raw = self.fs.raw
        try:
            paths = raw.ls(dir_rel, detail=False)
        except FileNotFoundError:
            paths = []  # the memory area has not been written yet: an empty /memories
        pairs = [(posixpath.basename(p), p) for p in paths]
        if self._links is not None:  # links whose target stays in the memory area
            pairs += self._links.linked_children(dir_rel)
        if at_root:
            pairs = [(n, p) for n, p in pairs if n != INDEX_NAME]
            if raw.isfile(self.index_path):
                pairs.append((INDEX_NAME, self.index_path))
        return sorted(pairs)

    def _listing(self, t: _Target) -> str:
        raw = self.fs.raw
        sizes: dict[str, int | None] = {}

        def file_size(rel: str) -> int | None:
            if rel not in sizes:
                try:
                    sizes[rel] = int(raw.info(rel)["size"])
                except (OSError, ValueError):
                    sizes[rel] = None  # unreadable (e.g. a symlink out): skipped, like listing
            return sizes[rel]

        def tree_size(dir_rel: str, at_root: bool) -> int:
            files = [
                f for f in raw.find(dir_rel) if not (at_root and f == join(dir_rel, INDEX_NAME))
            ]
            if at_root and raw.isfile(self.index_path):
                files.append(self.index_path)
            total = 0
            for f in files:
                inner = posixpath.relpath(f, dir_rel) if f != self.index_path else INDEX_NAME
                if any(seg.startswith(".") for seg in inner.split("/")):
                    continue
                total += file_size(f) or 0
            return total

        items: list[tuple[int, str]] = []

        def collect(dir_rel: str, shown_rel: str, depth: int, at_root: bool) -> None:
            for name, child in self._children(dir_rel, at_root):
                if name.startswith("."):
                    continue
                child_shown = f"{shown_rel}/{name}" if shown_rel else name
                try:
                    is_dir = raw.isdir(child)
                except OSError:
                    continue
                if is_dir:
                    items.append((tree_size(child, False), f"{child_shown}/"))
                    if depth < 2:
                        collect(child, child_shown, depth + 1, False)
                elif (size := file_size(child)) is not None:
                    items.append((size, child_shown))

        with self._errors(t.shown):
            collect(t.rel, "", 1, t.is_root)
            total = tree_size(t.rel, t.is_root)
        header = (
            f"Here're the files and directories up to 2 levels deep in {t.shown}, "
            "excluding hidden items:"
        )
        lines = [f"{format_size(total)}\t{t.shown}"]
        lines.extend(f"{format_size(size)}\t{t.shown}/{rel}" for size, rel in items)
        # File names may hold anything, '<system-reminder>' included: shown escaped.
        return escape_for_agent(f"{header}\n" + "\n".join(lines))

    # -- edits ---------------------------------------------------------------------------------

    @_for_agent
    def create(self, command: BetaMemoryTool20250818CreateCommand) -> str:
        t = self.resolve(command.path)
        if t.is_root:
            raise ToolError(f"File {command.path} already exists")
        sent = command.file_text.encode("utf-8")
        with self._errors(command.path, t.rel):
            try:
                stored = self.fs.save(t.rel, sent, create=True)
            except (FileExistsError, IsADirectoryError) as e:
                # FileExistsError covers MemFS's PathConflictError: another writer got there first
                raise ToolError(f"File {command.path} already exists") from e
        return f"File created successfully at: {command.path}{self._receipt(t, stored, sent)}"

    @_for_agent
    def str_replace(self, command: BetaMemoryTool20250818StrReplaceCommand) -> str:
        t = self.resolve(command.path)
        self._require_file(t)
        old = command.old_str
        changed = 0

        def replace(content: str) -> str:
            nonlocal changed
            count = content.count(old)
            if count == 0:
                raise ToolError(
                    f"No replacement was performed, old_str `{old}` did not appear verbatim in "
                    f"{command.path}."
                )
            if count > 1:
                matching: list[int] = []
                start = 0
                while (pos := content.find(old, start)) != -1:
                    matching.append(content[:pos].count("\n") + 1)
                    start = pos + 1
                raise ToolError(
                    f"No replacement was performed. Multiple occurrences of old_str `{old}` in "
                    f"lines: {', '.join(map(str, matching))}. Please ensure it is unique"
                )
            changed = content[: content.find(old)].count("\n")
            return content.replace(old, command.new_str)

        stored = self._edit(t, replace)
        new_lines = stored.split("\n")
        first, last = max(0, changed - 2), min(len(new_lines), changed + 3)
        snippet = [
            f"{str(n).rjust(LINE_NUMBER_WIDTH)}\t{new_lines[n - 1]}"
            for n in range(first + 1, last + 1)
        ]
        return (
            "The memory file has been edited. Here is the snippet showing the change (with line "
            "numbers):\n" + "\n".join(snippet) + self._receipt(t, stored.encode("utf-8"))
        )

    @_for_agent
    def insert(self, command: BetaMemoryTool20250818InsertCommand) -> str:
        t = self.resolve(command.path)
        self._require_file(t)

        def insert(content: str) -> str:
            lines = _split_lines_keeping_cr(content)
            if command.insert_line < 0 or command.insert_line > len(lines):
                raise ToolError(
                    f"Invalid `insert_line` parameter: {command.insert_line}. "
                    f"It should be within the range [0, {len(lines)}]."
                )
            lines.insert(command.insert_line, command.insert_text.rstrip("\n"))
            new_content = "\n".join(lines)
            return new_content if new_content.endswith("\n") else new_content + "\n"

        stored = self._edit(t, insert)
        return f"The file {command.path} has been edited.{self._receipt(t, stored.encode('utf-8'))}"

    @_for_agent
    def delete(self, command: BetaMemoryTool20250818DeleteCommand) -> str:
        t = self.resolve(command.path)
        if t.is_root:
            raise ToolError("Cannot delete the /memories directory itself")
        kind = self._kind(t)
        with self._errors(command.path, t.rel):
            try:
                if kind == "file":
                    self.fs.rm_file(t.rel)
                elif kind == "directory":
                    self.fs.rm(t.rel, recursive=True)
                else:
                    raise ToolError(f"The path {command.path} does not exist")
            except FileNotFoundError as e:
                raise ToolError(f"The path {command.path} does not exist") from e
        return f"Successfully deleted {command.path}"

    @_for_agent
    def rename(self, command: BetaMemoryTool20250818RenameCommand) -> str:
        old = self.resolve(command.old_path)
        new = self.resolve(command.new_path)
        if old.is_root:
            raise ToolError("Cannot rename the /memories directory itself")
        if self._kind(new) is not None:
            raise ToolError(f"The destination {command.new_path} already exists")
        kind = self._kind(old)
        if kind is None:
            raise ToolError(f"The path {command.old_path} does not exist")
        if kind == "directory" and new.rel.startswith(old.rel + "/"):
            raise ToolError(
                f"Cannot move {command.old_path} into itself ({command.new_path}); choose a "
                "destination outside it."
            )
        with self._errors(command.old_path, old.rel):
            try:
                # The store's move: create-only at the destination (a file another turn creates
                # there meanwhile is never overwritten), one rename on disk and in memory, and on
                # a store that copies, each source deleted only if unchanged since its copy.
                self.fs.move(old.rel, new.rel, create=True)
            except MoveConflictError as e:
                raise self._move_conflict(command, old, new, e) from e
            except PathConflictError as e:
                raise ToolError(f"The destination {command.new_path} already exists") from e
            except FileNotFoundError as e:
                raise ToolError(f"The path {command.old_path} does not exist") from e
        return f"Successfully renamed {command.old_path} to {command.new_path}"

    def _move_conflict(
        self,
        command: BetaMemoryTool20250818RenameCommand,
        old: _Target,
        new: _Target,
        e: MoveConflictError,
    ) -> ToolError:
        """The rename stopped because a file changed after it was copied: say which, and that
        both copies are kept."""
        src = old.shown + e.path[len(old.rel) :]
        dst = new.shown + e.destination[len(new.rel) :]
        head = f"The rename of {command.old_path} to {command.new_path} did not complete: "
        if e.actual_sha256 is None:
            return ToolError(
                f"{head}{src} was deleted after it was copied (by another turn); {dst} holds its "
                "content from before that. View it and delete it if it should be gone."
            )
        return ToolError(
            f"{head}{src} changed after it was copied (another edit landed), so it was kept. "
            f"Both {src} and {dst} exist now; {dst} holds the content from before that edit. "
            "View both, keep what you want and delete the other."
        )

    def clear_all_memory(self) -> str:
        """Delete every memory file and the index (refused on a read-only mount)."""
        with self._errors(MEMORIES_ROOT):
            if self.fs.isdir(self.memory_dir):
                self.fs.rm(self.memory_dir, recursive=True)
            if self.fs.isfile(self.index_path):
                self.fs.rm_file(self.index_path)
        return "All memory cleared"


class MemFSAsyncMemoryTool(BetaAsyncAbstractMemoryTool):
    """The async flavour: each command runs :class:`MemFSMemoryTool` in a worker thread."""

    def __init__(
        self, fs: MemFS, *, cache_control: BetaCacheControlEphemeralParam | None = None
    ) -> None:
        super().__init__(cache_control=cache_control)
        self.sync = MemFSMemoryTool(fs, cache_control=cache_control)

    async def view(self, command: BetaMemoryTool20250818ViewCommand) -> BetaFunctionToolResultType:
        return await run_sync(self.sync.view, command)

    async def create(
        self, command: BetaMemoryTool20250818CreateCommand
    ) -> BetaFunctionToolResultType:
        return await run_sync(self.sync.create, command)

    async def str_replace(
        self, command: BetaMemoryTool20250818StrReplaceCommand
    ) -> BetaFunctionToolResultType:
        return await run_sync(self.sync.str_replace, command)

    async def insert(
        self, command: BetaMemoryTool20250818InsertCommand
    ) -> BetaFunctionToolResultType:
        return await run_sync(self.sync.insert, command)

    async def delete(
        self, command: BetaMemoryTool20250818DeleteCommand
    ) -> BetaFunctionToolResultType:
        return await run_sync(self.sync.delete, command)

    async def rename(
        self, command: BetaMemoryTool20250818RenameCommand
    ) -> BetaFunctionToolResultType:
        return await run_sync(self.sync.rename, command)

    async def clear_all_memory(self) -> BetaFunctionToolResultType:
        return await run_sync(self.sync.clear_all_memory)
