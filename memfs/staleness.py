"""The staleness reminder: the second surface of the memory prompt, built on every read.

Appendix A of the design puts format and governance in the static prompt and this warning in
the read path. The filesystem calls :func:`decorate` for ``memory/**.md``; nothing else builds
the reminder.
"""

from __future__ import annotations

import datetime as dt
import re

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


# Anything a model could read as opening or closing a reminder: any case, spaces inside the
# brackets, and the bracket look-alikes a tokenizer may fold into '<' / '>'.
_LT = "<\uff1c\ufe64\u2039\u3008\u2329\u27e8"
_GT = ">\uff1e\ufe65\u203a\u3009\u232a\u27e9"
_TAG = re.compile(
    rf"[{_LT}]\s*/?\s*system[\s_\-\u2010-\u2015]*reminder\b[^{_LT}{_GT}]*[{_GT}]", re.IGNORECASE
)
_GENUINE = re.compile(
    r"\A<system-reminder>This memory is \d+ days old\. [^<]*</system-reminder>\r?\n",
)


def neutralize_tags(text: str) -> str:
    """Escape every reminder-like tag in memory content so it cannot open or close one."""
    return _TAG.sub(_escape, text)


def _escape(m: re.Match[str]) -> str:
    return "&lt;" + m.group(0)[1:-1] + "&gt;"


def age_in_days(recorded: dt.date, today: dt.date) -> int:
    return (today - recorded).days


# Every tag _TAG matches spells "reminder", any case. Under IGNORECASE r/e/m/n/d match only
# ASCII and i also matches U+0130/U+0131, so ASCII-lowercased bytes without this hold no tag.
_TAG_HINT = re.compile(rb"rem(?:i|\xc4\xb0|\xc4\xb1)nder")


def _neutralized(raw: bytes) -> bytes:
    """``raw`` with reminder-like tags escaped; every other byte, valid UTF-8 or not, kept."""
    if not _TAG_HINT.search(raw.lower()):
        return raw  # the hot path: no decode, no regex over the body
    text = raw.decode("utf-8", "surrogateescape")
    body, escaped = _TAG.subn(_escape, text)
    return body.encode("utf-8", "surrogateescape") if escaped else raw


def decorate(raw: bytes, today: dt.date) -> bytes:
    """The decorated view of a memory file: one genuine reminder (if stale) + neutralised body.

    Never raises: binary content, no frontmatter, frontmatter that is not UTF-8, broken YAML
    and missing or bad dates all return the content without a reminder. Only the frontmatter
    is decoded to find the date; tags are neutralised in any content, UTF-8 or not.
    """
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
