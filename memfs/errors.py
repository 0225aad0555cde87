"""Every error memfs raises on purpose, in one place.

They are subclasses of the builtin ``OSError`` family (or ``ValueError``), so fsspec and pathlib
callers catch what they expect. Each message names the workspace path (never a host path), says
what was wrong and what to do instead: an agent reads these.
"""

from __future__ import annotations

import datetime as dt
import errno
import os
import stat
from collections.abc import Sequence
from typing import ClassVar, Protocol
from urllib.parse import urlsplit

DISTRIBUTION = "memfs-workspace"
"""The distribution an install hint names (``pip install 'memfs-workspace[s3]'``)."""

_RELATIVE_ADVICE = (
    "Use a path relative to the workspace root, such as 'memory/user-role.md' or 'MEMORY.md'."
)


def message(e: BaseException) -> str:
    """The one line a person or an agent reads for ``e``: an OSError's own message (no
    ``[Errno N]`` prefix, no repeated path), anything else as it prints."""
    if isinstance(e, OSError) and e.strerror:
        text = str(e.strerror)
        if e.filename is not None and str(e.filename) not in text:
            text += f": {str(e.filename)!r}"  # a host file named on the command line
        return text
    return str(e)


def _shown(path: str) -> str:
    return path or "/"


class UnsafePathError(PermissionError):
    """A path that would escape the workspace root, is malformed, or names something memfs does
    not touch (a symlink, a special file, a reserved name); nothing was read or written."""

    def __init__(self, path: object, why: str, *, advice: str = _RELATIVE_ADVICE) -> None:
        shown = path if isinstance(path, str) else repr(path)
        super().__init__(errno.EACCES, f"Refused path {shown!r}: {why}. {advice}", shown)


class ReadOnlyError(PermissionError):
    """A mutation of a read-only mount (what workflow runs get): ``errno.EROFS``."""

    def __init__(self, path: str, action: str) -> None:
        super().__init__(
            errno.EROFS,
            f"Cannot {action} {_shown(path)!r}: this workspace is mounted read-only. Workflow "
            "runs read memory but do not write it; to change memory, do it from a chat turn or "
            "as an explicit workflow step that writes memory.",
            _shown(path),
        )

    def __str__(self) -> str:  # the message names the path already; OSError would add it again
        return f"[Errno {self.errno}] {self.strerror}"


def not_found(path: str) -> FileNotFoundError:
    return FileNotFoundError(
        errno.ENOENT,
        f"No such file: {path!r}. List its directory (list_files) to see which files exist, "
        "or write the file to create it.",
        path,
    )


def nothing_to_delete(paths: list[str]) -> FileNotFoundError:
    shown = ", ".join(repr(p) for p in paths)
    return FileNotFoundError(
        errno.ENOENT,
        f"Nothing to delete: no file or directory {shown} in the workspace. List the "
        "directory to see what exists.",
        shown,
    )


def is_a_directory(path: str) -> IsADirectoryError:
    if not path:
        return IsADirectoryError(
            errno.EISDIR, "The workspace root is a directory; name a file inside it.", "/"
        )
    return IsADirectoryError(
        errno.EISDIR, f"{path!r} is a directory, not a file; name a file inside it.", path
    )


def not_a_directory(path: str) -> NotADirectoryError:
    return NotADirectoryError(
        errno.ENOTDIR, f"{path!r} is a file, not a directory; it cannot hold other files.", path
    )


def not_empty(path: str, holding: str | None = None) -> OSError:
    """``holding``: what keeps it non-empty when a listing cannot show it (a symlink, say)."""
    if holding:
        return OSError(
            errno.ENOTEMPTY,
            f"Directory {path!r} is not empty: it still holds {holding}, which listings do not "
            "show and memfs does not remove. Ask whoever manages the workspace to remove it.",
            path,
        )
    return OSError(
        errno.ENOTEMPTY,
        f"Directory {path!r} is not empty; delete its files first or remove it recursively.",
        path,
    )


def already_exists(path: str, how: str = "") -> FileExistsError:
    return FileExistsError(errno.EEXIST, f"{_shown(path)!r} already exists{how}.", path)


def is_a_file(path: str) -> FileExistsError:
    return FileExistsError(errno.EEXIST, f"{path!r} exists and is a file.", path)


def root_refused(action: str) -> UnsafePathError:
    """The workspace root itself cannot be removed, deleted or moved."""
    return UnsafePathError("", f"the workspace root cannot be {action}")


# -- what a local disk can hold that memfs does not touch ------------------------------------------

_LEAVE_IT = (
    "Use another path; whoever manages the workspace can replace it with a regular file or "
    "directory."
)


def is_a_symlink(path: str, link: str | None = None) -> UnsafePathError:
    """``link`` (``path`` itself or a directory on the way to it) is a symbolic link."""
    link = path if link is None else link
    what = "it is a symlink" if link == path else f"{link!r} on the way to it is a symlink"
    return UnsafePathError(
        path,
        f"{what}; memfs never follows, overwrites or removes a link (one can lead outside the "
        "workspace)",
        advice=_LEAVE_IT,
    )


def describe_mode(mode: int) -> str:
    """What kind of file ``st_mode`` says it is, for a message ("a FIFO")."""
    for test, kind in (
        (stat.S_ISLNK, "a symlink"),
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return kind
    return "not a regular file"


def not_a_regular_file(path: str, mode: int) -> UnsafePathError:
    """A FIFO, socket or device node: memfs never opens one (it could block or never end)."""
    return UnsafePathError(
        path,
        f"it is {describe_mode(mode)}, not a regular file; memfs reads and writes regular files "
        "only",
        advice=_LEAVE_IT,
    )


def hard_linked(path: str, links: int) -> UnsafePathError:
    """A file with several names may be a file outside the workspace under a second name."""
    return UnsafePathError(
        path,
        f"the file has {links} hard links, so it may be a file outside the workspace under "
        "another name; memfs reads and writes files with a single link only",
        advice=_LEAVE_IT,
    )


def reserved_name(path: str, prefix: str) -> UnsafePathError:
    return UnsafePathError(
        path,
        f"names beginning with {prefix!r} are reserved for memfs's own temporary and lock files",
        advice="Choose another name.",
    )


def reserved_area(path: str, name: str) -> UnsafePathError:
    return UnsafePathError(
        path,
        f"{name!r} is memfs's own area (version history), which no workspace path can reach",
        advice="Choose another name.",
    )


def workspace_gone() -> FileNotFoundError:
    """The workspace directory was removed after it was opened (it is never re-created)."""
    return FileNotFoundError(
        errno.ENOENT,
        "The workspace directory no longer exists (it was removed after the workspace was "
        "opened); nothing was read or written. Open the workspace again once it exists.",
        "/",
    )


def host_error(err: OSError, path: str, action: str) -> OSError:
    """``err`` from the host, re-raised naming the workspace path instead of a host path.

    ``OSError(errno, …)`` picks the builtin subclass for the errno (PermissionError for EACCES),
    so callers catch what they would have caught from the host.
    """
    code = err.errno if err.errno is not None else errno.EIO
    reason = os.strerror(code)
    advice = ""
    if code in (errno.EACCES, errno.EPERM):
        advice = " The workspace's file permissions do not allow it; nothing was changed."
    elif code in (errno.ENOSPC, errno.EDQUOT):
        advice = " Nothing was changed (the old content, if any, is as it was); free space, retry."
    return OSError(code, f"Cannot {action} {_shown(path)!r}: {reason}.{advice}", _shown(path))


def version_not_stored(err: OSError, path: str, action: str) -> OSError:
    """A change of ``path`` refused because its version could not be stored (``err``, from a
    write under memfs's own area, whose path it never shows): nothing was changed."""
    code = err.errno if err.errno is not None else errno.EIO
    advice = ""
    if code in (errno.ENOSPC, errno.EDQUOT):
        advice = " Free some space (`memfs gc` removes what retention no longer keeps) and retry."
    elif code == errno.EROFS:
        advice = " The workspace's storage is mounted read-only; remount it writable first."
    return OSError(
        code,
        f"Cannot {action} {_shown(path)!r}: its version could not be stored in the history "
        f"({os.strerror(code)}); nothing was changed, the file is as it was.{advice}",
        _shown(path),
    )


# -- credentials ----------------------------------------------------------------------------------


class _Finding(Protocol):
    """What the refusal reads of a :class:`memfs.credentials.Finding` (this module sits below the
    guard and does not import it)."""

    @property
    def kind(self) -> str: ...
    @property
    def line(self) -> int: ...
    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...
    @property
    def preview(self) -> str: ...


class CredentialRefusedError(PermissionError):
    """A memory write refused because it looks like it holds a credential; nothing was stored.

    ``findings`` holds :class:`memfs.credentials.Finding` objects. It lives here, with every
    other error, so that catching it does not import the guard (pydantic models)."""

    def __init__(self, path: str, findings: Sequence[_Finding]) -> None:
        self.findings = list(findings)
        path = _redact_name(path, [f for f in findings if f.line == 0])
        what = "; ".join(
            f"{f.kind} {'in the file name' if f.line == 0 else f'on line {f.line}'} ({f.preview})"
            for f in findings[:3]
        )
        more = f" and {len(findings) - 3} more" if len(findings) > 3 else ""
        super().__init__(
            errno.EACCES,
            f"Refused to write {path!r}: it looks like it contains a credential ({what}{more}). "
            "Nothing was written. Memory is replayed verbatim into every later turn, so a "
            "secret stored here leaks into every future conversation. Do not store the secret "
            "itself: store where it lives instead (for example 'the deploy token is in the team "
            "vault under prod/deploy' or 'DB password: in 1Password, item orders-db'), then "
            "write the file again without it. A public identifier (an address, a hash, an ID) "
            "is fine on its own; write it without a password or token label in front.",
            path,
        )


def _redact_name(path: str, in_name: list[_Finding]) -> str:
    """The path with each secret in its names replaced by its preview (the error quotes it)."""
    for f in sorted(in_name, key=lambda f: f.start, reverse=True):
        path = path[: f.start] + f"[{f.kind}: {f.preview}]" + path[f.end :]
    return path


# -- write conflicts ------------------------------------------------------------------------------


class WriteConflictError(FileExistsError):
    """A conditional write was refused because the stored file is not what the writer assumed.

    ``expected_sha256`` is what the writer assumed (None for a create), ``actual_sha256`` what is
    stored now (None when the file does not exist or the store could not tell).
    """

    def __init__(
        self,
        path: str,
        expected_sha256: str | None,
        actual_sha256: str | None,
        message: str | None = None,
    ) -> None:
        self.path = path
        self.expected_sha256 = expected_sha256
        self.actual_sha256 = actual_sha256
        super().__init__(errno.EEXIST, message or self.describe(), path)

    def describe(self) -> str:
        return f"Write to {self.path!r} refused: the stored file changed."

    def __reduce__(self) -> tuple[object, ...]:
        # OSError pickles as (errno, strerror, filename); rebuild with our own arguments so the
        # error survives a trip between processes.
        return (type(self), (self.path, self.expected_sha256, self.actual_sha256, self.strerror))


def _stored(actual: str | None) -> str:
    return f"stored now: {actual}" if actual else "the file does not exist any more"


class PreconditionFailedError(WriteConflictError):
    """The stored bytes no longer hash to the write's ``expected_sha256``."""

    def describe(self) -> str:
        return (
            f"Write to {self.path!r} refused: the file changed since it was read (expected "
            f"content sha256 {self.expected_sha256}, {_stored(self.actual_sha256)}). Nothing was "
            "written. Read the file again, apply the change to its current content and write "
            "with the new hash."
        )


class PathConflictError(WriteConflictError):
    """A create (``mode="create"``) found a file already at the path."""

    def describe(self) -> str:
        sha = f" (content sha256 {self.actual_sha256})" if self.actual_sha256 else ""
        return (
            f"Cannot create {self.path!r}: a file already exists there{sha}, probably written by "
            "another turn. Nothing was written. Read it and edit it instead."
        )


class UpdateConflictError(WriteConflictError):
    """:meth:`MemFS.update <memfs.filesystem.MemFS.update>` lost the race on every attempt."""

    def __init__(
        self,
        path: str,
        expected_sha256: str | None,
        actual_sha256: str | None,
        message: str | None = None,
        *,
        attempts: int = 0,
    ) -> None:
        self.attempts = attempts
        super().__init__(path, expected_sha256, actual_sha256, message)

    def describe(self) -> str:
        return (
            f"Edit of {self.path!r} gave up after {self.attempts} attempts: another turn kept "
            "changing the file between this edit's read and its write. Nothing was written by "
            "this edit. Read the file again and retry the edit."
        )


class MoveConflictError(WriteConflictError):
    """A move copied ``path`` to ``destination``, then found ``path`` changed by another writer:
    the source is kept (deleting it would lose that change), so both files exist."""

    def __init__(
        self,
        path: str,
        expected_sha256: str | None,
        actual_sha256: str | None,
        message: str | None = None,
        *,
        destination: str = "",
    ) -> None:
        self.destination = destination
        super().__init__(path, expected_sha256, actual_sha256, message)

    def describe(self) -> str:
        gone = self.actual_sha256 is None
        what = "was deleted" if gone else "changed"
        kept = "" if gone else ", so it was not deleted"
        return (
            f"Move of {self.path!r} to {self.destination!r} stopped: {self.path!r} {what} after "
            f"it was copied (another turn got there first){kept}. {self.destination!r} holds "
            f"the content from before that. Read {'it' if gone else 'both files'}, keep what "
            "you want and delete the rest."
        )

    def __reduce__(self) -> tuple[object, ...]:
        args = (self.path, self.expected_sha256, self.actual_sha256, self.strerror)
        return (_rebuild_move_conflict, (*args, self.destination))


def move_into_itself(path: str, destination: str) -> OSError:
    return OSError(
        errno.EINVAL,
        f"Cannot move the directory {_shown(path)!r} into itself ({_shown(destination)!r}); "
        "choose a destination outside it.",
        path,
    )


def move_destination_exists(src: str, dst: str, actual_sha256: str | None) -> PathConflictError:
    """A move refused because ``dst`` exists: a move never overwrites a file it has not read."""
    return PathConflictError(
        dst,
        None,
        actual_sha256,
        f"Cannot move {src!r} to {dst!r}: {dst!r} already exists, and a move never overwrites "
        f"a file it has not read. Nothing was moved. Read {dst!r} (delete it first if it should "
        "go), or choose another name.",
    )


def _rebuild_move_conflict(
    path: str, expected: str | None, actual: str | None, message: str | None, destination: str
) -> MoveConflictError:
    return MoveConflictError(path, expected, actual, message, destination=destination)


# -- sizes ----------------------------------------------------------------------------------------


def _size(n: int) -> str:
    return f"{n:,} bytes" if n < 1 << 20 else f"{n / (1 << 20):.1f} MiB ({n:,} bytes)"


class MemoryFileTooLargeError(OSError):
    """A memory file over the workspace's cap (``MemFS(max_memory_file_bytes=…)``): ``EFBIG``.

    A memory file is read whole into a turn, so one that large is a store of several memories.
    """

    def __init__(self, path: str, size: int, limit: int, index: str = "MEMORY.md") -> None:
        self.path, self.size, self.limit, self.index = path, size, limit, index
        super().__init__(
            errno.EFBIG,
            f"Memory file {path!r} would hold {_size(size)}; a memory file holds at most "
            f"{_size(limit)}. Nothing was written. Split the memory into smaller files, one "
            f"topic each, and link each from {index}.",
            path,
        )

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.path, self.size, self.limit, self.index))


class ConditionalWriteTooLargeError(OSError):
    """A conditional write larger than the backend can apply its precondition to: ``EFBIG``."""

    def __init__(self, path: str, size: int, limit: int, backend: str) -> None:
        self.path, self.size, self.limit, self.backend = path, size, limit, backend
        super().__init__(
            errno.EFBIG,
            f"Cannot write {path!r} conditionally: {_size(size)} is more than {backend} checks a "
            f"precondition on in one request ({_size(limit)}). Nothing was written. Store a "
            "file that large without a precondition, or split it.",
            path,
        )

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.path, self.size, self.limit, self.backend))


# -- refusals raised above the filesystem (kept here so that every error has one home) ------------


class VersionError(ValueError):
    """A version that cannot be named, found or used as asked; nothing was changed."""


class SearchPatternError(ValueError):
    """A pattern that cannot be searched for (empty, multi-line, too long, an invalid regex, or
    one that ran past the time limit or the memory cap)."""


class ToolCallError(ValueError):
    """A tool call the executor could not run; its message is what the model reads."""


class FrontmatterStampError(ValueError):
    """A memory write refused: its frontmatter claims a date the workspace cannot stamp.

    Nothing was stored. The message names the path, says what in the frontmatter stops the
    stamp and how to write it instead.
    """

    def __init__(
        self,
        path: str,
        why: str,
        today: dt.date,
        *,
        key: str = "metadata.recorded",
        value: str | None = None,
    ) -> None:
        self.path, self.why, self.key = path, why, key
        shown = repr(path) if path else "the memory file"
        parent, _, name = key.rpartition(".")
        date = f"{name}: {value or today.isoformat()}"
        block = "metadata:\n  type: ..."
        fields = f"{block}\n  {date}" if parent == "metadata" else f"{date}\n{block}"
        super().__init__(
            f"Refused to write {shown}: {why}. Nothing was written. A memory file's date is "
            f"{key}, which the workspace sets on every write so that the staleness "
            "reminder can be trusted; write the frontmatter as plain YAML lines, with metadata "
            f"as a block:\n---\nname: ...\ndescription: ...\n{fields}\n---"
        )


class CopiedTextError(ValueError):
    """A write refused: a memory file or the index would hold memfs's own words, copied back
    from what a turn was shown — the frame around the context block (``what="frame"``) or a
    write's receipt (``what="receipt"``). Stored, a later turn would read them as a memory.
    Nothing was stored."""

    _WHAT: ClassVar[dict[str, str]] = {
        "frame": "the frame memfs puts around the workspace files it loads into a turn "
        '("The workspace files below are loaded into context for this turn.")',
        "receipt": 'the receipt of an earlier write ("Overwrote memory/… (N bytes)", '
        '"… recorded … (stamped by the workspace)"), which says what that write stored',
    }

    def __init__(self, path: str, what: str = "frame") -> None:
        self.path, self.what = path, what
        super().__init__(
            f"Refused to write {path!r}: it holds {self._WHAT[what]}, which is not a memory. "
            "Nothing was written. Write the fact itself, in the user's words."
        )

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.path, self.what))


class UnreadableMemoryError(ValueError):
    """A write refused: it would turn a memory memfs can read into one it cannot — no
    frontmatter (the opening ``---`` glued to the next line, a fence missing) or frontmatter
    no reader can use. Stored, the memory would lose its name, description, type and date,
    and the staleness reminder would never fire again. ``problem`` says what is wrong with
    the content sent. Nothing was stored."""

    def __init__(self, path: str, problem: str) -> None:
        self.path, self.problem = path, problem
        super().__init__(
            f"Refused to write {path!r}: {problem}, and memfs could no longer read the "
            "memory's name, description, type and date. Nothing was written. Keep the --- "
            "block at the top: a line --- alone, the name, description and metadata lines, a "
            "line --- alone, then the body. To replace the memory with a file that is not a "
            "memory, delete it first."
        )

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.path, self.problem))


# -- what is not installed ------------------------------------------------------------------------


class MissingPackageError(ImportError):
    """A storage backend or a command needs a package that is not installed.

    ``needed_for`` says what needs it (``"gs:// URLs (fsspec's gcsfs)"``)."""

    def __init__(self, missing: str, needed_for: str) -> None:
        self.missing = missing
        super().__init__(
            f"{needed_for} need the package {missing!r}, which is not installed. Install it with "
            f"`pip install {missing}`, then run the command again.",
            name=missing,
        )


class MissingExtraError(MissingPackageError):
    """A command needs an optional extra of this distribution that is not installed."""

    def __init__(self, extra: str, missing: str) -> None:
        self.extra, self.missing = extra, missing
        ImportError.__init__(
            self,
            f"this needs the '{extra}' extra, and {missing!r} is not installed. Install it with "
            f"`pip install '{DISTRIBUTION}[{extra}]'` (in a checkout: `make sync`, which "
            "installs every extra).",
            name=missing,
        )


# -- storage that cannot be used ------------------------------------------------------------------


class BucketNotFoundError(OSError):
    """An object store's bucket that does not exist, or that the credentials cannot see.

    ``errno.ENOENT``, but deliberately not a :class:`FileNotFoundError`: code that reads a
    missing file as empty (the index, the context block) must not read a missing bucket as an
    empty workspace."""

    def __init__(self, bucket: str, target: str) -> None:
        self.bucket, self.target = bucket, target
        super().__init__(
            errno.ENOENT,
            f"No bucket {bucket!r} for {target!r}, or none these credentials can see. Check the "
            "bucket name (memfs does not create buckets).",
            target,
        )

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.bucket, self.target))


# Errors whose message already says what went wrong and what to do; any other OSError or
# ValueError gets the action in front ("read_file failed: …") where a surface names one.
_SELF_EXPLAINING = (
    PermissionError,
    FileNotFoundError,
    IsADirectoryError,
    NotADirectoryError,
    BucketNotFoundError,
)
_CREDENTIALS = {"NoCredentialsError", "PartialCredentialsError", "CredentialRetrievalError"}
_UNREACHABLE = {"EndpointConnectionError", "ConnectTimeoutError", "ClientConnectorError"}


def _third_party(e: BaseException) -> set[str]:
    """The class names of a botocore or aiohttp error (named without importing either)."""
    return {
        c.__name__ for c in type(e).__mro__ if c.__module__.split(".")[0] in ("botocore", "aiohttp")
    }


def is_expected_failure(e: BaseException) -> bool:
    """Whether ``e`` is a failure a caller words for a person or an agent (an ``OSError``, a
    ``ValueError``, a storage backend's own error), as opposed to a bug, which keeps its
    traceback."""
    return isinstance(e, (OSError, ValueError)) or bool(_third_party(e))


def _endpoint(e: BaseException) -> str:
    """``scheme://host:port`` of the endpoint a connection error was for, or ''."""
    kwargs = getattr(e, "kwargs", None)
    url = str(kwargs.get("endpoint_url", "")) if isinstance(kwargs, dict) else ""
    if not url:  # aiohttp's ClientConnectorError: host and port of its connection key
        host = getattr(e, "host", None)
        if not host:
            return ""
        key = getattr(e, "_conn_key", None)  # whether it was TLS is kept only in the key
        scheme = "https" if getattr(key, "is_ssl", False) else "http"
        return f"{scheme}://{host}:{getattr(e, 'port', None)}"
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.netloc else url


def describe_storage_failure(
    e: BaseException, target: str | None = None, *, action: str | None = None
) -> str:
    """The one line that says what failed and what to do, the same on every surface.

    ``target`` names the workspace (the URL a command was given, a store's ``url``); ``action``
    (``"read_file"``) goes in front of a failure whose own words do not say what failed (an
    ``EIO`` from a backend, an exception of unknown kind). The CLI prints the line after
    ``memfs COMMAND:``, the file tools and the MCP server after ``Error:``.
    """
    where = f" for {target}" if target else ""
    names = _third_party(e)
    if names & _CREDENTIALS:
        return (
            f"no usable S3 credentials{where} ({e}). Set AWS_ACCESS_KEY_ID and "
            "AWS_SECRET_ACCESS_KEY (or AWS_PROFILE) in the environment, then run the command "
            "again."
        )
    if names & _UNREACHABLE:
        endpoint = _endpoint(e)
        check = "AWS_ENDPOINT_URL" if "botocore" in type(e).__module__ else "the URL"
        return (
            f"cannot reach the storage endpoint{f' {endpoint}' if endpoint else ''}{where}; "
            f"check {check} and the network."
        )
    if names:
        return f"the storage backend refused the request{where}: {' '.join(str(e).split())}"
    text = message(e) or type(e).__name__
    if action and not isinstance(e, _SELF_EXPLAINING):
        return f"{action} failed: {text}"
    return text


__all__ = [
    "DISTRIBUTION",
    "BucketNotFoundError",
    "ConditionalWriteTooLargeError",
    "CopiedTextError",
    "CredentialRefusedError",
    "FrontmatterStampError",
    "MemoryFileTooLargeError",
    "MissingExtraError",
    "MissingPackageError",
    "MoveConflictError",
    "PathConflictError",
    "PreconditionFailedError",
    "ReadOnlyError",
    "SearchPatternError",
    "ToolCallError",
    "UnreadableMemoryError",
    "UnsafePathError",
    "UpdateConflictError",
    "VersionError",
    "WriteConflictError",
    "already_exists",
    "describe_mode",
    "describe_storage_failure",
    "hard_linked",
    "host_error",
    "is_a_directory",
    "is_a_file",
    "is_a_symlink",
    "is_expected_failure",
    "message",
    "move_destination_exists",
    "move_into_itself",
    "not_a_directory",
    "not_a_regular_file",
    "not_empty",
    "not_found",
    "nothing_to_delete",
    "reserved_area",
    "reserved_name",
    "root_refused",
    "version_not_stored",
    "workspace_gone",
]
