"""``memfs grep WORKSPACE PATTERN``: find memories by their body, name or description."""

from __future__ import annotations

import argparse
import sys

from memfs.cli_workspace import add_workspace_argument, open_listed
from memfs.search import DEFAULT_CONTEXT, describe, format_matches, search_memory


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "grep",
        help="search memory files (bodies, names, descriptions) for a text or a regex",
        description=(
            "Search the memory files of WORKSPACE, read-only and line by line, in their bodies "
            "and their frontmatter name and description (not other frontmatter keys, not the "
            "index). Prints path:line:text for each matching line and path-line-text for its "
            "context, as grep does, from the stored bytes (no staleness reminder). Exit status: "
            "0 when something matched, 1 when nothing did, 2 on an error."
        ),
    )
    add_workspace_argument(p)
    p.add_argument("pattern", help="text to find (a substring; a regex with --regex)")
    p.add_argument(
        "-E", "--regex", action="store_true", help="PATTERN is a Python regular expression"
    )
    p.add_argument("-i", "--ignore-case", action="store_true", help="match regardless of case")
    p.add_argument(
        "-C",
        "--context",
        type=int,
        default=DEFAULT_CONTEXT,
        metavar="N",
        help=f"lines of context before and after each match (default: {DEFAULT_CONTEXT})",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # A bad workspace or pattern raises; the command line's one handler prints it (exit 2).
    # One listing, which detected the layout, and no MemFS (nor fsspec) to read the files.
    reader, _, files = open_listed(args.workspace, layout=args.layout)
    result = search_memory(
        reader,
        args.pattern,
        regex=args.regex,
        ignore_case=args.ignore_case,
        context=args.context,
        files=files,
    )
    if not result.files:
        print(f"memfs grep: {describe(result)}", file=sys.stderr)
        return 1
    print(format_matches(result))
    return 0
