"""Opening a workspace from a command-line argument: one meaning in every command.

``WORKSPACE`` is a local directory or an fsspec URL (``s3://bucket/items/42``,
``file:///data/items/42``). A local directory must exist unless the command was given
``--create``; a read-only open never creates anything, locally or remotely. ``--layout``
says where the memory is; ``auto`` (the default) detects it from the workspace's files. A
command says which layout it used only when that is news (:func:`layout_notice`).
"""

from __future__ import annotations

import argparse
import errno
import json
import os
from typing import TYPE_CHECKING, NamedTuple

from memfs.errors import BucketNotFoundError
from memfs.layout import INDEX_NAME, LAYOUT_CHOICES, Detection, Layout, resolve_layout
from memfs.stores import FileStore, LocalFileStore
from memfs.views import RawReader

if TYPE_CHECKING:
    # MemFS (and fsspec under it) loads when a workspace is opened as one; the manifest's
    # pydantic models load with the commands that read one.
    from memfs.filesystem import MemFS
    from memfs.manifest import AgentManifest

_NOT_A_WORKSPACE = ("http", "https")
"""fsspec protocols that can read a file but cannot list or write a directory reliably."""

WORKSPACE_HELP = "workspace directory or fsspec URL (s3://bucket/items/42)"


def open_store(target: str, *, create: bool = False, offer_create: bool = False) -> FileStore:
    """The store behind ``target``; a missing local directory is an error unless ``create``.

    ``offer_create``: the command has ``--create``, so the error says to add it."""
    if target.startswith("file://"):
        target = target[len("file://") :] or "/"
    if "://" in target:
        if target.split("://", 1)[0].split("::")[-1].lower() in _NOT_A_WORKSPACE:
            raise ValueError(
                f"{target!r} is a web address, and a workspace cannot live behind one: HTTP "
                "gives memfs no directory listing or writes to rely on. Give a local directory "
                "or an object store URL such as s3://bucket/items/42."
            )
        from memfs.stores import FsspecFileStore

        store = FsspecFileStore(target)
        _check_bucket(store, target)
        return store
    if not os.path.isdir(target):
        if os.path.exists(target):
            raise NotADirectoryError(
                errno.ENOTDIR, f"{target!r} is a file, not a workspace directory.", target
            )
        if not create:
            todo = ", or add --create to make a new workspace" if offer_create else ""
            raise FileNotFoundError(
                errno.ENOENT,
                f"No workspace directory at {target!r}. Pass an existing directory or an fsspec "
                f"URL such as s3://bucket/items/42{todo}.",
                target,
            )
    return LocalFileStore(target, create=create)


def _check_bucket(store: FileStore, target: str) -> None:
    """On an object store (S3, GCS, Azure: a filesystem that splits a path into bucket and key)
    the URL's first segment is a bucket, and it must exist. A prefix with nothing under it is an
    empty workspace (a new item has no objects yet), so without this a mistyped bucket would read
    as one. A filesystem without buckets (``http://``) is not asked."""
    fs = getattr(store, "fs", None)
    if fs is None or not hasattr(fs, "split_path"):
        return
    bucket = str(getattr(store, "root", "")).split("/", 1)[0]
    if not bucket:
        return
    try:  # info, not exists: exists reads an unreachable endpoint as a missing bucket
        fs.info(bucket)
    except FileNotFoundError:
        raise BucketNotFoundError(bucket, target) from None


class Workspace(NamedTuple):
    """An opened workspace and the layout it was opened in, with why."""

    fs: MemFS
    detection: Detection


def open_workspace(
    target: str,
    *,
    read_only: bool = False,
    create: bool = False,
    offer_create: bool = False,
    layout: Layout | str = "auto",
) -> Workspace:
    """A MemFS over ``target``; ``read_only`` mounts it read-only and never creates it.

    ``layout`` is a :class:`~memfs.layout.Layout`, or a ``--layout`` choice (``auto`` detects
    it from one listing of the workspace).
    """
    if read_only and create:
        raise ValueError("A read-only workspace is never created; drop --create or --read-only.")
    store, found = open_store_in_layout(
        target, create=create, offer_create=offer_create, layout=layout
    )
    from memfs.filesystem import MemFS

    fs = MemFS(store, layout=found.layout, read_only=read_only)
    return Workspace(fs, found)


def open_store_in_layout(
    target: str, *, create: bool = False, offer_create: bool = False, layout: Layout | str = "auto"
) -> tuple[FileStore, Detection]:
    """The store behind ``target`` (:func:`open_store`) and its layout, with why; what
    :func:`open_workspace` mounts, for a reader that needs no :class:`MemFS` around it."""
    store = open_store(target, create=create, offer_create=offer_create)
    if isinstance(layout, Layout):
        return store, Detection(layout, "given")
    return store, _detect(store, layout, store.ls(""))


def open_listed(target: str, *, layout: str = "auto") -> tuple[RawReader, Detection, list[str]]:
    """A read-only reader of ``target``'s stored bytes in its layout, with why, and every file
    of the workspace from the one listing the layout was detected from: for a whole-store pass
    (``memfs stats``, ``memfs grep``), which then lists nothing again and builds no MemFS (a
    local workspace is read without fsspec, see :class:`~memfs.views.RawReader`)."""
    store = open_store(target)
    files = store.ls("")
    found = _detect(store, layout, files)
    return RawReader(store, found.layout), found, files


def _detect(store: FileStore, choice: str, files: list[str]) -> Detection:
    return resolve_layout(choice, files, lambda: _root_index_links(store))


def layout_notice(command: str, found: Detection) -> str | None:
    """The one stderr line a command prints about the layout, or None.

    Said only when detection picked something other than the platform's layout (a Claude Code
    store read as it is): the platform's is the default a newcomer expects, and a line on
    every run reads as a warning. ``memfs stats`` reports the layout in its table instead.
    """
    from memfs.layout import PLATFORM

    if found.layout == PLATFORM or found.reason == "given" or found.reason.startswith("chosen"):
        return None
    return f"{command}: {found.describe()}"


def _root_index_links(store: FileStore) -> list[str]:
    """The markdown files the root ``MEMORY.md`` links (one read, made only when the file list
    leaves the layout open)."""
    from memfs.index import markdown_file_links

    try:
        text = store.read(INDEX_NAME).decode("utf-8", "replace")
    except OSError:
        return []
    return markdown_file_links(text)


def load_manifest(path: str | None) -> AgentManifest:
    """The agent manifest of an ``app.json`` (``--app``), or the default one."""
    from memfs.manifest import AgentManifest

    if path is None:
        return AgentManifest()
    with open(path, encoding="utf-8") as f:
        try:
            data = json.load(f)
        except json.JSONDecodeError as e:
            raise ValueError(f"{path}: not valid JSON ({e}); pass the app's app.json.") from None
    return AgentManifest.from_app_json(data)


def add_workspace_argument(
    parser: argparse.ArgumentParser, *, creates: bool = False, name: str = "workspace"
) -> None:
    """The ``WORKSPACE`` argument, ``--layout``, and ``--create`` for commands that may write."""
    parser.add_argument(name, help=WORKSPACE_HELP)
    add_layout_argument(parser)
    if creates:
        parser.add_argument(
            "--create",
            action="store_true",
            help="create the workspace directory when it does not exist yet",
        )


def add_layout_argument(parser: argparse.ArgumentParser, default: str = "auto") -> None:
    """``--layout auto|platform|claude-code`` for a command that opens a workspace."""
    parser.add_argument(
        "--layout",
        choices=LAYOUT_CHOICES,
        default=default,
        help=(
            "where the memory is: 'platform' (MEMORY.md at the root, files under memory/), "
            "'claude-code' (MEMORY.md beside the files, e.g. a .claude/memory/ directory), or "
            f"'auto' to detect it from the files (default: {default})"
        ),
    )
