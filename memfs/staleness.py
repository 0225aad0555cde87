"""The staleness reminder: built on every read of a memory file, never stored.

The static memory prompt holds format and governance; this warning lives in the read path.
The filesystem calls :func:`decorate` for memory files; nothing else builds the reminder, and
:func:`split_view` is the one way to take a decorated view apart again.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Hashable

from memfs import tags
from memfs.frontmatter_block import recorded_date_of
from memfs.memo import BoundedMemo
from memfs.tags import AGENT_MATCHER, REMINDER_TAG

REMINDER_OPEN = f"<{REMINDER_TAG}>"
REMINDER_CLOSE = f"</{REMINDER_TAG}>"
FRESH_DAYS = 1
"""Like Claude Code, a memory 0 or 1 days old gets no reminder."""


REMINDER_TEMPLATE = (
    "This memory is {days} days old. Memories are point-in-time observations, not live state — "
    "claims about code behavior or file:line citations may be outdated. Verify against current "
    "code before asserting as fact."
)
"""The reminder's words, ``{days}`` where the age goes: the one spelling of the text."""


def reminder_text(days: int) -> str:
    """The exact reminder for a memory ``days`` old."""
    return f"{REMINDER_OPEN}{REMINDER_TEMPLATE.format(days=days)}{REMINDER_CLOSE}"


def _genuine_matcher() -> re.Pattern[bytes]:
    """A reminder at the start of a view, matched on the template's own words (any age)."""
    before, after = (REMINDER_OPEN + REMINDER_TEMPLATE + REMINDER_CLOSE).split("{days}")
    return re.compile(
        rb"\A" + re.escape(before.encode()) + rb"\d+" + re.escape(after.encode()) + rb"\r?\n"
    )


_TAG = AGENT_MATCHER
_GENUINE = _genuine_matcher()


def neutralize_tags(text: str) -> str:
    """Escape every reminder-like (or frame-like) tag in memory content: none can open or
    close a reminder."""
    return _TAG.escape(text)


def age_in_days(recorded: dt.date, today: dt.date) -> int:
    return (today - recorded).days


def memory_age(raw: bytes, today: dt.date) -> int | None:
    """The age the reminder states for a memory file holding ``raw`` (None: no trusted date).

    The reminder is shown when this is above :data:`FRESH_DAYS`; anything that shows a memory's
    age (``memfs serve``) uses this, so it always says what the agent's read says."""
    recorded = recorded_date_of(raw, today)  # a date after today is never trusted
    return None if recorded is None else age_in_days(recorded, today)


MEMO_BUDGET_BYTES = 32 << 20
"""Bytes of stored content and views :func:`decorate` keeps to answer repeated reads."""
_memo: BoundedMemo[bytes] = BoundedMemo(MEMO_BUDGET_BYTES, max_entry_bytes=5 << 20)


def decorate(raw: bytes, today: dt.date, version: Hashable | None = None) -> bytes:
    """The decorated view of a memory file: one genuine reminder (if stale) + neutralised body.

    Never raises: binary content, no frontmatter, frontmatter that is not UTF-8, broken YAML
    and missing, bad or future dates all return the content without a reminder. Only the frontmatter
    is decoded to find the date; tags are neutralised in any content, UTF-8 or not. Views are
    memoised (checked against the bytes and the date they were built for, or against the
    store's ``version`` of the file when it gives one): the same memory files are read on
    every turn of an item.
    """
    if type(raw) is not bytes:
        raw = bytes(raw)  # a store may hand back a mutable buffer; the memo keeps immutable bytes
    key: Hashable
    source: object
    if version is not None:
        key, source = ("version", version), (len(raw), today)
    else:
        key, source = (len(raw), raw[:64], raw[-64:]), (raw, today)
    view = _memo.get(key, source)
    if view is None:
        view = _decorate(raw, today)
        _memo.put(key, source, view, len(raw) + len(view))
    return view


def clear_memo() -> None:
    """Forget every memoised view, decorated or escaped (benchmarks of first reads; tests)."""
    _memo.clear()
    tags.clear_memo()


def _decorate(raw: bytes, today: dt.date) -> bytes:
    body = _TAG.escape_bytes(raw)
    days = memory_age(raw, today)
    if days is not None and days > FRESH_DAYS:
        return reminder_text(days).encode("utf-8") + b"\n" + body
    return body


def split_view(view: bytes) -> tuple[str | None, bytes]:
    """``(reminder, body)`` of a view :func:`decorate` built; ``reminder`` None when absent.

    Content can never carry a genuine-looking reminder (every tag in it is escaped), so a
    reminder at the start of a view is the filesystem's own.
    """
    m = _GENUINE.match(view)
    if not m:
        return None, view
    return view[: m.end()].rstrip(b"\r\n").decode("utf-8"), view[m.end() :]


def strip_reminders(data: bytes) -> bytes:
    """Remove reminders a caller copied from the decorated view before it is stored."""
    body = data
    while True:
        reminder, rest = split_view(body)
        if reminder is None:
            return body
        body = rest
