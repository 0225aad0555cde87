"""Secrets written so that a pattern does not see them, read back the way a person reads them.

A model asked to keep a secret out of memory, or a user working around the guard, writes it
hex- or URL-encoded, splits it over two lines or with ``**bold**``, spaces its label out
(``p a s s w o r d``), writes the token in hyphen groups, or hides the label's letters behind
Cyrillic look-alikes (``pаssword`` with a Cyrillic ``а``). Each :func:`views` entry is the
text with one such disguise undone; the guard scans them when the text as written has no
finding. A view is only the lines the undoing changed, each mapped to its line as written,
so a finding in a view names the line of the text as written and costs a line's scan.

Each view is built only when its trigger is in the text (a ``%``, a long hex run, ``**``, a
non-ASCII letter in a Latin word, …), so a plain memory file pays for none of them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from urllib.parse import unquote

# Cyrillic and Greek letters that look like Latin ones, for words that mix the scripts.
_HOMOGLYPHS = str.maketrans(
    "аеорсухіјѕԁԛԝАВЕКМНОРСТХУІЈЅаοΑΒΕΖΗΙΚΜΝΟΡΤΥΧνρτ",
    "aeopcyxijsdqwABEKMHOPCTXYIJSaoABEZHIKMNOPTYXvpt",
)


@cache
def _re(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _homoglyphs(text: str) -> str | None:
    """Words mixing Latin letters with Cyrillic or Greek look-alikes, spelled in Latin."""
    if text.isascii() or not _re(r"[\u0370-\u04ff]").search(text):
        return None
    if not _re(r"[A-Za-z][\u0370-\u04ff]|[\u0370-\u04ff][A-Za-z]").search(text):
        return None

    def fold(m: re.Match[str]) -> str:
        w = m.group()
        return w.translate(_HOMOGLYPHS) if _re(r"[A-Za-z]").search(w) else w

    out = _re(r"[^\W\d_]+").sub(fold, text)
    return out if out != text else None


def _spaced(text: str) -> str | None:
    """``p a s s w o r d`` → ``password``: four or more single letters, one space apart."""
    # the trigger starts with a literal (fast to scan for); the full rule then runs
    if not _re(r" [A-Za-z] [A-Za-z] ").search(text) and not _re(r"\.[A-Za-z]\.[A-Za-z]\.").search(
        text
    ):
        return None
    rx = _re(r"(?<![A-Za-z0-9])[A-Za-z](?:[ .][A-Za-z]){3,}(?![A-Za-z0-9])")
    if not rx.search(text):
        return None
    return rx.sub(lambda m: m.group().replace(" ", "").replace(".", ""), text)


def _bold(text: str) -> str | None:
    """``ghp_ab**cd**ef`` → ``ghp_abcdef``: emphasis markers inside a word."""
    if "**" not in text and "__" not in text:
        return None
    inside = _re(r"[A-Za-z0-9_](?:\*\*|__)(?=[A-Za-z0-9_])")
    if not inside.search(text):
        return None
    return _re(r"(?<=[A-Za-z0-9_])(?:\*\*|__)(?=[A-Za-z0-9_])").sub("", text)


def _hex(text: str) -> str | None:
    """Hex runs that decode to printable ASCII (``6768705f…`` → ``ghp_…``)."""
    if not _re(r"[0-9a-fA-F]{24}").search(text):
        return None

    def decode(m: re.Match[str]) -> str:
        raw = m.group()
        try:
            s = bytes.fromhex(raw).decode("ascii")
        except ValueError:
            return raw
        return s if s.isprintable() and not s.isspace() else raw

    out = _re(r"(?<![0-9a-fA-F])(?:[0-9a-fA-F]{2}){12,}(?![0-9a-fA-F])").sub(decode, text)
    return out if out != text else None


def _url(text: str) -> str | None:
    """Percent-encoded text decoded (``ghp%5F…``, ``password%3DX``)."""
    if not _re(r"%[0-9a-fA-F]{2}").search(text):
        return None
    out = "\n".join(unquote(line) for line in text.split("\n"))
    return out if out != text else None


def _groups(text: str) -> str | None:
    """A token written in hyphen or space groups (``ghp_Ab3d-Ef5h-…``) joined up."""
    if not _re(r"-[A-Za-z0-9]{3,8}-[A-Za-z0-9]{3,8}-[A-Za-z0-9]{3,8}").search(text):
        return None
    rx = _re(r"(?<![\w-])[A-Za-z0-9_]{3,12}(?:-[A-Za-z0-9]{3,8}){3,}(?![\w-])")
    if not rx.search(text):
        return None

    def join(m: re.Match[str]) -> str:
        g = m.group()  # never a UUID: its last group is longer than a group here can be
        if not (_re(r"\d").search(g) and _re(r"[A-Za-z]").search(g)):
            return g  # words, numbers
        return g.replace("-", "")

    out = rx.sub(join, text)
    return out if out != text else None


def _join(text: str) -> tuple[str, list[int]] | None:
    """A token broken over two lines put back on one; the line map says where each came from."""
    if not _re(r"\n[ \t]*[A-Za-z0-9_\-+/=]{8,}[ \t]*(?:\n|$)").search(text):
        return None  # no line that is one token: nothing to join
    lines = text.split("\n")
    out: list[str] = []
    where: list[int] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if i + 1 < len(lines):
            a = _re(r"[A-Za-z0-9_\-+/=]{12,}[ \t]*$").search(line)
            b = _re(r"^[ \t]*[A-Za-z0-9_\-+/=]{8,}[ \t]*$").match(lines[i + 1])
            if a and b and not (_env_name(a.group()) or _env_name(b.group())):
                out.append(line.rstrip() + lines[i + 1].strip())
                where.append(i)
                i += 2
                continue
        out.append(line)
        where.append(i)
        i += 1
    return "\n".join(out), where


def _env_name(fragment: str) -> bool:
    """``GITHUB_API_KEY=``: a variable name on its own line, not half a token."""
    return _re(r"[ \t]*[A-Z][A-Z0-9_]*=?[ \t]*").fullmatch(fragment) is not None


def _frontmatter_label(text: str) -> str | None:
    """A label in the frontmatter (``name: prod db password``) over a body that is one value.

    The value then stands alone in the body; the view writes the label before it.
    """
    if not text.startswith("---"):
        return None
    end = text.find("\n---", 3)
    if end < 0:
        return None
    head = text[:end].lower()
    m = _re(r"(?m)^(?:name|description|title):[ \t]*[\"']?(?P<v>[^\n]*)$").finditer(head)
    labels = [x.group("v") for x in m]
    body_start = text.find("\n", end + 4)
    body = text[body_start + 1 :] if body_start >= 0 else ""
    lines = [ln for ln in body.split("\n") if ln.strip()]
    if not labels or len(lines) != 1 or " " in lines[0].strip().strip("`"):
        return None
    from memfs.credentials.labels import label_of

    label = next((lab for v in labels if (lab := label_of(v))), None)
    if label is None:
        return None
    at = body_start + 1 + body.index(lines[0])
    return text[:at] + f"{label}: " + text[at:]


def _changed_lines(lines: list[str], out: str) -> list[tuple[int, str]]:
    """(index, new line) for each line ``out`` changes (a decoded newline ends the zip early)."""
    return [(i, b) for i, (a, b) in enumerate(zip(lines, out.split("\n"), strict=False)) if a != b]


def views(text: str) -> Iterator[tuple[str, str, list[int]]]:
    """(why, the lines a disguise undone changes, the written line index of each).

    Only changed lines are yielded, so the guard rescans a line or two, not the file.
    """
    lines = text.split("\n")
    for why, undo in (
        ("look-alike letters", _homoglyphs),
        ("spaced-out letters", _spaced),
        ("split by emphasis", _bold),
        ("hex-encoded", _hex),
        ("URL-encoded", _url),
        ("written in groups", _groups),
    ):
        out = undo(text)
        if out is not None:
            changed = _changed_lines(lines, out)
            if changed:
                yield why, "\n".join(b for _, b in changed), [i for i, _ in changed]
    joined = _join(text)
    if joined is not None:
        view, where = joined
        pairs = zip(where, view.split("\n"), strict=True)
        kept = [(w, ln) for w, ln in pairs if ln not in lines]
        if kept:
            yield "split over two lines", "\n".join(ln for _, ln in kept), [w for w, _ in kept]
    fm = _frontmatter_label(text)
    if fm is not None:
        changed = _changed_lines(lines, fm)
        yield (
            "label in the frontmatter, value in the body",
            "\n".join(b for _, b in changed),
            [i for i, _ in changed],
        )
