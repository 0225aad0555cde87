"""The ``memfs`` command.

Subcommands are discovered through the ``memfs.commands`` entry-point group, so integrations
under ``adapters/`` (chat, eval, mcp) add commands without the core importing them. Each entry
point names a module with ``register(subparsers)`` that adds one subparser and sets
``func=callable(args) -> int`` on it.
"""

from __future__ import annotations

import argparse
import sys
from importlib.metadata import entry_points


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="memfs", description="Persistent, file-based memory for LLM agents."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    seen: set[str] = set()
    for ep in sorted(entry_points(group="memfs.commands"), key=lambda e: e.name):
        if ep.value in seen:
            continue
        seen.add(ep.value)
        try:
            module = ep.load()
        except ImportError as e:
            # An optional extra is not installed: say which, instead of hiding the command.
            missing = sub.add_parser(ep.name, help=f"(unavailable: {e.name or e})")
            missing.set_defaults(func=_unavailable(ep.name, e))
            continue
        module.register(sub)
    return parser


def _unavailable(name: str, err: ImportError):  # type: ignore[no-untyped-def]
    def run(_args: argparse.Namespace) -> int:
        print(
            f"memfs {name}: a dependency is missing ({err}). Install the extra that provides it, "
            f"e.g. `uv sync --all-extras` or `pip install 'memfs-workspace[{name}]'`.",
            file=sys.stderr,
        )
        return 2

    return run


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    return int(args.func(args) or 0)


if __name__ == "__main__":
    raise SystemExit(main())
