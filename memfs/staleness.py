"""The staleness reminder: the second surface of the memory prompt, built on every read.

Appendix A of the design puts format and governance in the static prompt and this warning in
the read path. The filesystem calls :func:`decorate` for ``memory/**.md``; nothing else builds
the reminder.
"""

from __future__ import annotations

import datetime as dt
import re
import threading
import unicodedata
from collections import OrderedDict

from memfs.frontmatter_block import recorded_date_of

REMINDER_OPEN = "<system-reminder>"
REMINDER_CLOSE = "</system-reminder>"
FRESH_DAYS = 1
"""Like Claude Code, a memory 0 or 1 days old gets no reminder."""


def reminder_text(days: int) -> str:
    """The exact Appendix A reminder for a memory ``days`` old."""
    return (
        f"{REMINDER_OPEN}This memory is {days} days old. Memories are point-in-time observations, "
        "not live state — claims about code behavior or file:line citations may be outdated. "
        f"Verify against current code before asserting as fact.{REMINDER_CLOSE}"
    )


# Anything a model could read as opening or closing a reminder: any case; spaces, separators
# and invisible characters (format characters, combining marks, variation selectors) anywhere
# inside; letters in compatibility forms (fullwidth, mathematical, circled) and common Cyrillic,
# Greek and small-capital look-alikes; and the bracket look-alikes a tokenizer may fold into
# '<' / '>'.
_LT = "<\uff1c\ufe64\u2039\u3008\u2329\u27e8\u02c2\u1438\u276e"
_GT = ">\uff1e\ufe65\u203a\u3009\u232a\u27e9\u02c3\u1433\u276f"
OPEN_BRACKETS = _LT
"""Every character a tag from :func:`tag_pattern` can start with (a cheap pre-check)."""
_INVISIBLE = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\U000e0000-\U000e01ef"
    "\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f"
)
_LOOKALIKES = {
    "c": "сϲᴄ", "d": "ԁᴅ", "e": "еєҽεᴇ", "f": "ꜰ", "i": "іιɩɪıİ", "l": "ӏʟ", "m": "мᴍ",
    "n": "пոɴ", "o": "оοᴏօ", "r": "гʀ", "s": "ѕꜱſ", "t": "тτᴛ", "x": "хχ", "y": "уүʏγ",
}  # fmt: skip
_COMPAT_RANGES = ((0xFF21, 0xFF5A), (0x1D400, 0x1D6A3), (0x24B6, 0x24E9), (0x1F130, 0x1F189))


def _letter_classes(word: str) -> dict[str, str]:
    classes = {c: c + c.upper() + _LOOKALIKES.get(c, "") for c in set(word)}
    for low, high in _COMPAT_RANGES:
        for cp in range(low, high + 1):
            folded = unicodedata.normalize("NFKC", chr(cp)).lower()
            if folded in classes:
                classes[folded] += chr(cp)
    return {c: "".join(sorted(set(chars + chars.upper()))) for c, chars in classes.items()}


_GAP = rf"[\s{_INVISIBLE}]*"
_SEP = rf"[\s_\-\u2010-\u2015\u2212\ufe63\uff0d\uff3f{_INVISIBLE}]*"


def _spelled(name: str) -> str:
    """``name`` (words joined by '-' or '_') as a pattern for every way a model could read it."""
    classes = _letter_classes(name.replace("-", "").replace("_", ""))
    words = re.split(r"[-_]", name)
    return _SEP.join(
        f"[{_INVISIBLE}]*".join(f"[{re.escape(classes[c])}]" for c in word) for word in words
    )


def tag_pattern(*names: str) -> re.Pattern[str]:
    """A tag a model could read as ``<name …>`` or ``</name …>``, for any of ``names``.

    A match runs from the opening bracket to the closing one, or ends after the name when no
    closing bracket follows before the next '<': an unclosed ``</system-reminder`` reads as a
    close too, and escaping it in the same pass keeps ``<system reminder<system-reminder>>``
    from closing into a new tag once the inner one is escaped. The context frame can use this
    for its own tag names.
    """
    spelled = "|".join(_spelled(n) for n in names)
    # No IGNORECASE: the letter classes hold both cases already, and matching is 3x faster.
    return re.compile(rf"[{_LT}]{_GAP}/?{_GAP}(?:{spelled})\b(?:[^{_LT}{_GT}]*[{_GT}])?")


_TAG = tag_pattern("system-reminder")
_GENUINE = re.compile(
    r"\A<system-reminder>This memory is \d+ days old\. [^<]*</system-reminder>\r?\n",
)


def neutralize_tags(text: str) -> str:
    """Escape every reminder-like tag in memory content so it cannot open or close one."""
    return _TAG.sub(_escape, text)


def _escape(m: re.Match[str]) -> str:
    tag = m.group(0)
    return "&lt;" + (tag[1:-1] + "&gt;" if tag[-1] in _GT else tag[1:])


def age_in_days(recorded: dt.date, today: dt.date) -> int:
    return (today - recorded).days


def _may_hold_tag(raw: bytes) -> bool:
    """Whether ``raw`` holds any of the _LT brackets every tag starts with (letters can be
    look-alikes, so the bracket is the cheap test); one memchr for ASCII content."""
    if raw.isascii():
        return b"<" in raw
    text = raw.decode("utf-8", "surrogateescape")
    return any(lt in text for lt in _LT)


def _neutralized(raw: bytes) -> bytes:
    """``raw`` with reminder-like tags escaped; every other byte, valid UTF-8 or not, kept."""
    if not _may_hold_tag(raw):
        return raw  # the hot path: no decode, no regex over the body
    text = raw.decode("utf-8", "surrogateescape")
    body, escaped = _TAG.subn(_escape, text)
    return body.encode("utf-8", "surrogateescape") if escaped else raw


MEMO_BUDGET_BYTES = 32 << 20
"""Bytes of stored content and views :func:`decorate` keeps to answer repeated reads."""
_MEMO_MAX_FILE = 1 << 20
_memo: OrderedDict[tuple[int, bytes, bytes], tuple[bytes, dt.date, bytes]] = OrderedDict()
_memo_bytes = 0
_memo_lock = threading.Lock()


def decorate(raw: bytes, today: dt.date) -> bytes:
    """The decorated view of a memory file: one genuine reminder (if stale) + neutralised body.

    Never raises: binary content, no frontmatter, frontmatter that is not UTF-8, broken YAML
    and missing or bad dates all return the content without a reminder. Only the frontmatter
    is decoded to find the date; tags are neutralised in any content, UTF-8 or not.

    The same memory files are read on every turn of an item (and ``ls``/``info`` decorate to
    report sizes), so the last views are memoised: a repeat read costs one byte comparison
    with the content the view was built from, instead of a decode and scan of the whole file.
    """
    global _memo_bytes
    if type(raw) is not bytes:
        raw = bytes(raw)  # a store may hand back a mutable buffer; the memo keeps immutable bytes
    key = (len(raw), raw[:64], raw[-64:])
    with _memo_lock:
        hit = _memo.get(key)
        if hit is not None and hit[1] == today and hit[0] == raw:
            _memo.move_to_end(key)
            return hit[2]
    view = _decorate(raw, today)
    if len(raw) <= _MEMO_MAX_FILE:
        with _memo_lock:
            old = _memo.pop(key, None)
            if old is not None:
                _memo_bytes -= len(old[0]) + len(old[2])
            _memo[key] = (raw, today, view)
            _memo_bytes += len(raw) + len(view)
            while _memo_bytes > MEMO_BUDGET_BYTES and _memo:
                _, (r, _, v) = _memo.popitem(last=False)
                _memo_bytes -= len(r) + len(v)
    return view


def clear_memo() -> None:
    """Forget every memoised view (benchmarks of first reads; tests)."""
    global _memo_bytes
    with _memo_lock:
        _memo.clear()
        _memo_bytes = 0


def _decorate(raw: bytes, today: dt.date) -> bytes:
    body = _neutralized(raw)
    recorded = recorded_date_of(raw)
    if recorded is not None:
        days = age_in_days(recorded, today)
        if days > FRESH_DAYS:
            return reminder_text(days).encode("utf-8") + b"\n" + body
    return body


def strip_reminders(data: bytes) -> bytes:
    """Remove reminders a caller copied from the decorated view before it is stored."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return data
    stripped = text
    while True:
        m = _GENUINE.match(stripped)
        if not m:
            break
        stripped = stripped[m.end() :]
    return stripped.encode("utf-8") if len(stripped) != len(text) else data
