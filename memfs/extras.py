"""Optional extras: which one provides an import, and the one line that says what to install.

A command that needs an extra imports it through :func:`require` when it starts, before it
prints anything, so a missing extra is one line naming the extra instead of an argparse error
or a failure on the first message.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

from memfs.errors import DISTRIBUTION, MissingExtraError, MissingPackageError

PROVIDED_BY = {
    "mcp": "mcp",
    "uvicorn": "mcp",
    "litellm": "litellm",
    "s3fs": "s3",
    "anthropic": "anthropic",
    "matplotlib": "plot",
}
"""Top-level module → the extra that installs it."""


def require(extra: str, module: str) -> ModuleType:
    """Import ``module``, which needs ``extra``; :class:`MissingExtraError` if it cannot be."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise MissingExtraError(extra, (e.name or module).split(".")[0]) from e


def require_installed(extra: str, *modules: str) -> None:
    """:class:`MissingExtraError` unless each top-level module can be found; nothing is imported
    (finding costs microseconds, importing the MCP SDK seconds), so a command can refuse its
    other bad input first."""
    for module in modules:
        try:
            found = importlib.util.find_spec(module)
        except (ImportError, ValueError):  # a parent package that is missing or blocked
            found = None
        if found is None:
            raise MissingExtraError(extra, module.split(".")[0])


def missing_backend(package: str, protocol: str) -> MissingPackageError:
    """The error for an fsspec URL whose backend (``gcsfs`` for ``gs://``) is not installed: an
    extra when one provides it, the package otherwise."""
    extra = PROVIDED_BY.get(package)
    if extra is not None:
        return MissingExtraError(extra, package)
    return MissingPackageError(package, f"{protocol}:// URLs (fsspec's {package} backend)")


def extra_for(e: ImportError) -> str | None:
    """The extra that would have provided the module ``e`` failed to import, if one does."""
    if isinstance(e, MissingExtraError):
        return e.extra
    root = (e.name or "").split(".")[0]
    if root in PROVIDED_BY:
        return PROVIDED_BY[root]
    text = str(e)  # fsspec: "Install s3fs to access S3" (no module name on the error)
    return next((extra for mod, extra in PROVIDED_BY.items() if f"Install {mod} " in text), None)


__all__ = [
    "DISTRIBUTION",
    "PROVIDED_BY",
    "MissingExtraError",
    "extra_for",
    "missing_backend",
    "require",
    "require_installed",
]
