"""``memfs log | show | diff | restore | redact | gc``: the version history of a workspace.

Each is a thin layer over :class:`memfs.history.History`. ``log`` lists a damaged record
(status ``damaged``, with its key and why) and exits 0; ``show``, ``diff`` and ``restore`` of a
damaged version refuse it like other bad input. Bad input (no ``@VERSION``, an
unknown or ambiguous id, a version with no content) is one line on stderr and exit 2, with
nothing changed. Changes are attributed to the CLI user (``cli:<login>``).
"""

from __future__ import annotations

import argparse
import getpass
import json
import sys
from collections.abc import Callable

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from memfs.cli_workspace import add_workspace_argument, open_workspace
from memfs.errors import message
from memfs.history import FileLog, History, VersionError, parse_age, split_ref
from memfs.versions import GC_GRACE, Retention


def cli_actor() -> str:
    try:
        return f"cli:{getpass.getuser()}"
    except (KeyError, OSError):  # no login name in this environment
        return "cli"


def _open(args: argparse.Namespace, *, writes: bool) -> History:
    fs = open_workspace(args.workspace, read_only=not writes, layout=args.layout).fs
    return History(fs.acting_as(cli_actor()) if writes else fs)


def _command(name: str, body: Callable[[argparse.Namespace], int]) -> Callable[..., int]:
    def run(args: argparse.Namespace) -> int:
        try:
            return body(args)
        except (OSError, ValueError) as e:
            print(f"memfs {name}: {' '.join(message(e).split())}", file=sys.stderr)
            return 2

    return run


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "log",
        help="the versions of a file (or of every file): operation, time, actor, size, status",
        description="List the versions memfs kept of PATH, or of every file when PATH is left "
        "out, oldest first, in the order the store applied them.",
    )
    add_workspace_argument(p)
    p.add_argument("path", nargs="?", help="a file of the workspace (default: every file)")
    p.add_argument("--json", action="store_true", help="print the log as JSON")
    p.set_defaults(func=_command("log", _log))

    p = sub.add_parser("show", help="the content of one version: PATH@VERSION")
    add_workspace_argument(p)
    p.add_argument("ref", metavar="PATH@VERSION")
    p.set_defaults(func=_command("show", _show))

    p = sub.add_parser("diff", help="a unified diff between two versions, or one and the file")
    add_workspace_argument(p)
    p.add_argument("ref", metavar="PATH@V1")
    p.add_argument("other", nargs="?", metavar="PATH@V2|current", default="current")
    p.set_defaults(func=_command("diff", _diff))

    p = sub.add_parser("restore", help="put a version back as the file's content (a new version)")
    add_workspace_argument(p)
    p.add_argument("ref", metavar="PATH@VERSION")
    p.set_defaults(func=_command("restore", _restore))

    p = sub.add_parser(
        "redact", help="remove a version's content, hash and size; actor, time, operation stay"
    )
    add_workspace_argument(p)
    p.add_argument("ref", metavar="PATH@VERSION")
    p.set_defaults(func=_command("redact", _redact))

    p = sub.add_parser(
        "gc",
        help="apply retention, drop unreferenced blobs, record files no version holds",
        description="Apply retention to every file's versions (the newest is always kept), "
        "delete the content no version refers to any more, and record as a version the current "
        "content of every memory file that no version holds yet.",
    )
    add_workspace_argument(p)
    p.add_argument("--keep", type=int, help="versions kept per file")
    p.add_argument("--max-age", help="drop versions older than this (30, 30d, 12h)")
    p.add_argument("--no-baseline", action="store_true", help="do not record unrecorded files")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=_command("gc", _gc))


def _log(args: argparse.Namespace) -> int:
    history = _open(args, writes=False)
    logs = [history.log(args.path)] if args.path else history.log_all()
    if args.path and not logs[0].exists and not logs[0].versions and not logs[0].damaged:
        if "@" in args.path:
            raise VersionError(
                f"log takes a PATH, not {args.path!r}; `memfs show WORKSPACE PATH@VERSION` "
                "prints one version."
            )
        raise VersionError(f"{logs[0].path} has no file and no versions; check the path.")
    if args.json:
        print(json.dumps([log.model_dump(mode="json") for log in logs], indent=2))
        return 0
    console = Console()
    if not logs:
        console.print("no versions recorded")
    for log in logs:
        render_log(log, console)
    return 0


def render_log(log: FileLog, console: Console) -> None:
    table = Table(title=escape(log.path), show_header=True)
    for col in ("version", "time (UTC)", "operation", "actor", "size", "status"):
        table.add_column(col)
    for v in log.versions:
        r = v.record
        op: str = r.operation
        if r.moved_from:
            op += f" (moved from {r.moved_from})"
        if r.moved_to:
            op += f" (moved to {r.moved_to})"
        if r.restored_from:
            op += f" (from {r.restored_from})"
        table.add_row(
            r.id,
            r.time.strftime("%Y-%m-%d %H:%M:%S"),
            escape(op),
            escape(r.actor),
            "—" if r.size is None else f"{r.size:,} B",
            v.status,
        )
    for d in log.damaged:
        name = d.key.rpartition("/")[2]
        table.add_row(escape(name.removesuffix(".json")), "", "—", "—", "—", "damaged")
    console.print(table)
    for d in log.damaged:
        console.print(escape(f"damaged record {d.key}: {d.reason}"), soft_wrap=True)
    if log.explanation:
        console.print(escape(log.explanation), soft_wrap=True)


def _show(args: argparse.Namespace) -> int:
    path, version = split_ref(args.ref)
    data = _open(args, writes=False).show(path, version)
    sys.stdout.buffer.write(data)
    sys.stdout.flush()
    return 0


def _diff(args: argparse.Namespace) -> int:
    path, version = split_ref(args.ref)
    other = None
    if args.other != "current":
        other_path, other = split_ref(args.other)
        if other_path.strip("/") != path.strip("/"):
            raise ValueError(f"diff compares versions of one file; got {path} and {other_path}.")
    sys.stdout.write(_open(args, writes=False).diff(path, version, other))
    return 0


def _restore(args: argparse.Namespace) -> int:
    path, version = split_ref(args.ref)
    new = _open(args, writes=True).restore(path, version)
    print(f"restored {new.record.path} from {version}: new version {new.id}")
    return 0


def _redact(args: argparse.Namespace) -> int:
    path, version = split_ref(args.ref)
    done = _open(args, writes=True).redact(path, version)
    print(f"redacted version {done.id} of {done.record.path}: content, hash and size removed")
    return 0


def _gc(args: argparse.Namespace) -> int:
    history = _open(args, writes=True)
    retention = None
    if args.keep is not None and args.keep < 1:
        raise ValueError(f"--keep {args.keep}: keep at least 1 version per file.")
    if args.keep is not None or args.max_age is not None:
        retention = Retention(
            keep=args.keep, max_age_days=None if args.max_age is None else parse_age(args.max_age)
        )
    report = history.gc(retention, baseline=not args.no_baseline)
    if args.json:
        print(report.model_dump_json(indent=2))
    else:
        waiting = (
            f", {report.blobs_pending} unreferenced blobs kept until a gc after "
            f"{int(GC_GRACE.total_seconds() // 60)} minutes finds them still unreferenced"
            if report.blobs_pending
            else ""
        )
        print(
            f"gc: {report.records_deleted} versions and {report.blobs_deleted} blobs deleted, "
            f"{report.baselines_recorded} unrecorded files recorded{waiting}"
        )
    return 0
