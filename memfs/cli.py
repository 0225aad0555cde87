"""The ``memfs`` command.

Subcommands are discovered through the ``memfs.commands`` entry-point group, so integrations
under ``adapters/`` (chat, eval, mcp) add commands without the core importing them. Each entry
point names a module with ``register(subparsers)`` that adds one subparser and sets
``func=callable(args) -> int`` on it.

Start-up pays only for the command that runs: ``memfs stats WS`` imports the ``stats`` module
and nothing else (``memfs --help`` imports them all, for their help lines). A command module
keeps its imports light at the top, so registering it is cheap, and imports what is heavy or
needs an extra inside its ``func`` (see :func:`memfs.extras.require`).

Every failure a command expects (an ``OSError`` or ``ValueError``, a missing extra, a backend
that refuses the credentials) ends here as one line on stderr, ``memfs COMMAND: what went
wrong, what to do``, and exit code 2; see :data:`EXIT_CODES`. Anything else is a bug and keeps
its traceback.
"""

from __future__ import annotations

import argparse
import errno
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from memfs.errors import MissingPackageError, describe_storage_failure, is_expected_failure
from memfs.extras import DISTRIBUTION, MissingExtraError, extra_for

if TYPE_CHECKING:
    import socket

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
EXIT_CODES = {
    EXIT_OK: "done",
    EXIT_FAILED: "the command ran and refused or failed part of the work (an import that would "
    "overwrite, an eval whose endpoint failed); output closed early (`| head`); or a bug, "
    "shown with its traceback",
    EXIT_USAGE: "nothing was done: bad usage or input, a missing workspace, file, extra, "
    "credential or model server, a port that is invalid or taken",
    3: "`memfs model status` only: no model server answers",
    EXIT_INTERRUPTED: "interrupted (Ctrl-C)",
}


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version(DISTRIBUTION)
    except PackageNotFoundError:  # a source tree that was never installed
        return "unknown (not installed)"


class _Parser(argparse.ArgumentParser):
    """argparse with its usage errors as one line (``memfs cat: the following arguments are
    required: path; see `memfs cat --help`.``), exit 2: the one-line rule every failure follows.
    Subparsers are made by the same class, so every command gets it."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: {message}; see `{self.prog} --help`.\n")


class _Version(argparse.Action):
    """``--version``, looked up only when asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_args: Any, **_kw: Any) -> None:
        print(f"memfs {version()}")
        parser.exit()


def _entry_points(everyone: bool) -> list[Any]:
    """The ``memfs.commands`` entry points: this distribution's, or every installed one's."""
    from importlib.metadata import PackageNotFoundError, distribution, entry_points

    if not everyone:
        try:
            own = distribution(DISTRIBUTION).entry_points
        except PackageNotFoundError:
            own = None
        if own is not None:
            return [ep for ep in own if ep.group == "memfs.commands"]
    return list(entry_points(group="memfs.commands"))


def _command_name(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` names: its first word (``memfs`` has no option that takes a
    value), unless that is an option such as ``--help``."""
    return argv[0] if argv and not argv[0].startswith("-") else None


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser; with ``argv``, only the command it names is loaded (all of them otherwise)."""
    parser = _Parser(prog="memfs", description="Persistent, file-based memory for LLM agents.")
    parser.add_argument("--version", action=_Version, help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    wanted = _command_name(argv) if argv is not None else None
    eps = _entry_points(everyone=False)
    if wanted is None or wanted not in {ep.name for ep in eps}:
        eps = _entry_points(everyone=True)  # a plugin from another distribution, or --help
    chosen = [ep for ep in eps if ep.name == wanted] or eps
    seen: set[str] = set()
    for ep in sorted(chosen, key=lambda e: e.name):
        if ep.value in seen:
            continue  # one module registering several commands (import, export)
        seen.add(ep.value)
        try:
            module = ep.load()
        except ImportError as e:
            _add_unavailable(sub, ep.name, e)
            continue
        module.register(sub)
    return parser


def listening_socket(host: str, port: int, *, holder: str = "") -> socket.socket:
    """A listening socket on ``host:port``, bound before anything says it is serving there.

    A port another process holds is one :class:`OSError` saying what to do; ``holder`` names
    who is likely to hold it (``"another `memfs mcp --http`"``)."""
    import socket  # only the serving commands listen; the others never load it

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        sock.close()
        if e.errno == errno.EADDRINUSE:
            who = f" ({holder}?)" if holder else ""
            raise OSError(
                errno.EADDRINUSE,
                f"port {port} on {host} is already in use{who}; stop that process or pass "
                "--port with a free port.",
            ) from None
        raise OSError(e.errno, f"cannot listen on {host}:{port}: {e.strerror}.") from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def tcp_port(text: str) -> int:
    """An argparse ``type`` for a TCP port: a number from 1 to 65535, else a usage error."""
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a TCP port; give a number from 1 to 65535"
        )
    return port


def _add_unavailable(sub: Any, name: str, err: ImportError) -> None:
    """A command whose module cannot be imported: it still parses, and says why it cannot run."""
    extra = extra_for(err)
    why = f"needs the '{extra}' extra" if extra else f"cannot be loaded: {err}"
    p = sub.add_parser(name, help=f"(unavailable: {why})", add_help=False)
    p.add_argument("rest", nargs=argparse.REMAINDER)

    def run(_args: argparse.Namespace) -> int:
        raise err

    p.set_defaults(func=run)


def failure_line(e: BaseException, args: argparse.Namespace | None = None) -> str | None:
    """The one line for an expected failure, or None for a bug (which keeps its traceback)."""
    if isinstance(e, MissingPackageError):
        return str(e)
    if isinstance(e, ImportError):
        extra = extra_for(e)
        return None if extra is None else str(MissingExtraError(extra, e.name or extra))
    if not is_expected_failure(e):
        return None
    return describe_storage_failure(e, getattr(args, "workspace", None))


def _stdout_closed() -> int:
    """Output piped into a reader that stopped (``| head``): the standard Python handling.

    https://docs.python.org/3/library/signal.html#note-on-sigpipe — point stdout at devnull so
    the flush at exit does not raise a second time, and exit 1 quietly.
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a file descriptor (a captured stream)
        pass
    return EXIT_FAILED


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv == ["--version"]:  # answered before any command module is found or loaded
        print(f"memfs {version()}")
        return EXIT_OK
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    name = f"memfs {args.command}"
    try:
        code = int(args.func(args) or 0)
        sys.stdout.flush()  # a closed pipe fails here, inside the handler, not at exit
        return code
    except BrokenPipeError:
        return _stdout_closed()
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as e:
        line = failure_line(e, args)
        if line is None:
            raise
        print(f"{name}: {line}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    raise SystemExit(main())
