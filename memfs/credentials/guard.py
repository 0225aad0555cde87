"""The scan and the refusal: :func:`find_credentials`, :func:`check_credentials`."""

from __future__ import annotations

import re
import string
from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict

from memfs.credentials.disguises import views
from memfs.credentials.formats import PATTERNS, CredentialPattern
from memfs.credentials.labels import (
    find_in_tables,
    find_labelled,
    find_pairs,
    find_unlock_phrases,
)
from memfs.credentials.normalize import Normalized, normalize
from memfs.credentials.values import named_as_fake
from memfs.errors import CredentialRefusedError


class Finding(BaseModel):
    """One suspected credential: what kind, where, and a redacted preview (never the secret).

    ``line`` counts from 1; 0 means the file name. ``start``/``end`` index the text as written
    (or the path, for a file name).
    """

    model_config = ConfigDict(frozen=True)

    kind: str
    line: int
    start: int
    end: int
    preview: str


def _preview(secret: str) -> str:
    """The first few characters and the length: enough to find it, too little to use it."""
    shown = secret[:4] if len(secret) >= 20 else secret[:2]
    return f"{shown}… ({len(secret)} characters)"


_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)

# A provider format names the secret best; on overlapping spans it wins over a label finding.
_PRIORITY_FORMAT, _PRIORITY_LABEL = 0, 1


def _scan(text: str, patterns: Iterable[CredentialPattern], labels: bool) -> list[Finding]:
    patterns = tuple(patterns)
    norm = normalize(text)
    out = _scan_as_written(text, patterns, labels, norm)
    if out or not labels:
        return out
    return _scan_disguised(text, norm.text, patterns)


def _scan_disguised(
    text: str, normalized: str, patterns: tuple[CredentialPattern, ...]
) -> list[Finding]:
    """Findings in the text with a disguise undone (:mod:`.disguises`), on their written lines.

    Only the first view with a finding counts: the file is refused either way.
    """
    # disguises are undone in the text as the scan reads it (format characters dropped), so a
    # zero-width character inside an identifier cannot cut it into something that looks like
    # a key; normalising keeps every line where it was
    for why, view, where in views(normalized):
        found = _scan_as_written(view, patterns, True)
        if not found:
            continue
        line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        out = []
        for f in found:
            line = where[f.line - 1] + 1
            start = line_starts[min(line, len(line_starts)) - 1]
            end = text.find("\n", start)
            out.append(
                Finding(
                    kind=f"{f.kind} ({why})",
                    line=line,
                    start=start,
                    end=len(text) if end < 0 else end,
                    preview=f.preview,
                )
            )
        return out
    return []


def _scan_as_written(
    text: str,
    patterns: Iterable[CredentialPattern],
    labels: bool,
    norm: Normalized | None = None,
) -> list[Finding]:
    if norm is None:
        norm = normalize(text)
    t = norm.text
    lowered = t.lower()  # C speed; offsets must match ``t``, and a few characters
    if len(lowered) != len(t):  # ('İ') lower to two, so fall back to ASCII-only lowering
        lowered = t.translate(_ASCII_LOWER)
    found: list[tuple[int, int, int, str]] = []
    for pattern in patterns:
        subject = lowered if pattern.lowered else t
        if not pattern.could_match(subject):
            continue
        for m in pattern.regex.finditer(subject):
            start, end = m.span(pattern.value_group)
            if not pattern.admits(t, start, end):
                continue
            found.append((start, _PRIORITY_FORMAT, end, pattern.kind))
    if labels:
        for finder in (find_labelled, find_in_tables, find_pairs, find_unlock_phrases):
            found.extend((s, _PRIORITY_LABEL, e, kind) for s, e, kind in finder(t, lowered))
    found.sort()
    out: list[Finding] = []
    last_end = -1
    for start, _, end, kind in found:
        if start < last_end:
            continue  # the same secret matched by a second, more generic rule
        if named_as_fake(t[t.rfind("\n", 0, start) + 1 : start]):
            continue  # whatever rule found it, its own name says it is a stand-in
        o_start, o_end = norm.original(start), norm.original(end)
        out.append(
            Finding(
                kind=kind,
                line=text.count("\n", 0, o_start) + 1,
                start=o_start,
                end=o_end,
                preview=_preview(t[start:end]),
            )
        )
        last_end = end
    return out


def find_credentials(text: str, patterns: Iterable[CredentialPattern] = PATTERNS) -> list[Finding]:
    """Every suspected credential in ``text``, in order, one finding per overlapping span.

    The text is normalised first (format characters dropped, NFKC), so a secret split by a
    zero-width space or written in fullwidth forms is found as what it reads as.
    """
    return _scan(text, patterns, labels=True)


def find_credentials_in_name(path: str) -> list[Finding]:
    """Provider tokens in a path's names (``memory/ghp_….md``); ``line`` is 0 for each."""
    return [f.model_copy(update={"line": 0}) for f in _scan(path, PATTERNS, labels=False)]


def check_credentials(path: str, data: bytes | str) -> None:
    """Raise :class:`CredentialRefusedError` when ``data`` or the name ``path`` holds a secret.

    The one call a filesystem makes for every write it guards: the content is scanned with
    every rule, the path's names for provider tokens.
    """
    text = data if isinstance(data, str) else data.decode("utf-8", errors="replace")
    findings = find_credentials_in_name(path) + find_credentials(text)
    if findings:
        raise CredentialRefusedError(path, findings)
