"""The credential guard: memory that looks like it holds a secret is refused before it is stored.

A memory is replayed verbatim into every later turn that reads it, so a secret written into
memory leaks into every future conversation of the item, for every member. The prompt already
says "never store credentials"; this package is the check that does not depend on the model
obeying. :class:`~memfs.MemFS` calls :func:`check_credentials` from its single write path
(``MemFS(..., credential_guard=False)`` turns it off).

The scan, in order:

1. :mod:`.normalize` — format characters (zero-width spaces, joiners, BOM, soft hyphen) are
   dropped and NFKC applied, so split and fullwidth secrets are seen as they read.
2. :mod:`.formats` — provider token formats (GitHub, Slack, Stripe, Azure, OpenAI, …), one
   table, :data:`PATTERNS`.
3. :mod:`.labels` — secrets known by their label rather than their shape, in ten languages:
   ``password: X``, prose (``the staging root password is X``), a label on the line above,
   a table column headed ``password``/``token``, ``admin / X``.
4. :mod:`.values` — whether a value is a secret at all: placeholders and public identifiers
   (addresses, hashes, UUIDs, versions, dates, URLs without credentials) are not.

Nothing is compiled at import, and the guard itself (its pydantic :class:`Finding`) is
imported by the first check, not by ``import memfs``: a process that only reads memory never
pays for it. Evaluation and figures: ``docs/security/credentials.md``; corpus:
``tests/corpus/credentials``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memfs.credentials.formats import PATTERNS, CredentialPattern
from memfs.credentials.normalize import normalize
from memfs.credentials.values import shannon_entropy
from memfs.errors import CredentialRefusedError

if TYPE_CHECKING:
    from memfs.credentials.guard import Finding, find_credentials, find_credentials_in_name

_FROM_GUARD = ("Finding", "find_credentials", "find_credentials_in_name")


def check_credentials(path: str, data: bytes | str) -> None:
    """Raise :class:`CredentialRefusedError` when ``data`` or the name ``path`` holds a secret
    (:func:`memfs.credentials.guard.check_credentials`, imported on the first call)."""
    from memfs.credentials import guard

    guard.check_credentials(path, data)


def __getattr__(name: str) -> Any:
    if name in _FROM_GUARD:
        from memfs.credentials import guard

        return getattr(guard, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "PATTERNS",
    "CredentialPattern",
    "CredentialRefusedError",
    "Finding",
    "check_credentials",
    "find_credentials",
    "find_credentials_in_name",
    "normalize",
    "shannon_entropy",
]
