"""Optional extras: which one provides an import, and the one line that says what to install.

A command that needs an extra imports it through :func:`require` when it starts, before it
prints anything, so a missing extra is one line naming the extra instead of an argparse error
or a failure on the first message.
"""

from __future__ import annotations

import importlib
from types import ModuleType

DISTRIBUTION = "memfs-workspace"

PROVIDED_BY = {
    "mcp": "mcp",
    "uvicorn": "mcp",
    "litellm": "litellm",
    "s3fs": "s3",
    "anthropic": "anthropic",
    "matplotlib": "plot",
}
"""Top-level module → the extra that installs it."""


class MissingExtraError(ImportError):
    """A command needs an optional extra that is not installed."""

    def __init__(self, extra: str, missing: str) -> None:
        self.extra, self.missing = extra, missing
        super().__init__(
            f"this needs the '{extra}' extra, and {missing!r} is not installed. Install it with "
            f"`pip install '{DISTRIBUTION}[{extra}]'` (in a checkout: `make sync`, which "
            "installs every extra).",
            name=missing,
        )


def require(extra: str, module: str) -> ModuleType:
    """Import ``module``, which needs ``extra``; :class:`MissingExtraError` if it cannot be."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise MissingExtraError(extra, (e.name or module).split(".")[0]) from e


def extra_for(e: ImportError) -> str | None:
    """The extra that would have provided the module ``e`` failed to import, if one does."""
    if isinstance(e, MissingExtraError):
        return e.extra
    root = (e.name or "").split(".")[0]
    if root in PROVIDED_BY:
        return PROVIDED_BY[root]
    text = str(e)  # fsspec: "Install s3fs to access S3" (no module name on the error)
    return next((extra for mod, extra in PROVIDED_BY.items() if f"Install {mod} " in text), None)
