"""The credential guard as it was before issue 14, its code kept verbatim as the speed baseline.

``benchmarks/bench_credentials.py`` times the current guard against this one in the same run.
Nothing else imports it. Original docstring follows.

The credential guard: memory content that looks like a secret is refused before it is stored.

A memory is replayed verbatim into every later turn that reads it, so writing a secret into
``memory/*.md`` or ``MEMORY.md`` leaks it into every future conversation of the item, for every
member. The prompt already says "never store credentials";
this module is the check that does not depend on the model obeying. :class:`~memfs.MemFS`
calls :func:`check_credentials` from its single write path for memory files and the index
(``MemFS(..., credential_guard=False)`` turns it off).

Every pattern lives in :data:`PATTERNS`, in this file. A pattern is a regex plus, for the
generic ones, a test on the matched value, so that prose about passwords and tokens ("the DB
password is in Vault under prod/db", "the index costs 5,860 tokens") is not refused: only
values that look like an actual secret are.
"""

from __future__ import annotations

import errno
import math
import re
import string
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict


class Finding(BaseModel):
    """One suspected credential: what kind, where, and a redacted preview (never the secret)."""

    model_config = ConfigDict(frozen=True)

    kind: str
    line: int
    start: int
    end: int
    preview: str


@dataclass(frozen=True)
class CredentialPattern:
    """A named regex; ``value_group`` names the group that must pass ``accept`` (if given).

    ``lowered`` patterns are written in lower case and run over the ASCII-lowercased text (same
    length, same offsets), and ``word_start`` ones must start at a word boundary, checked here
    rather than with a leading ``\\b``: a regex that starts with a literal is scanned for that
    literal at C speed, one that starts with ``\\b``, ``(?i:…)`` or a lookbehind is tried at
    every position (far slower on a large file).
    """

    kind: str
    regex: re.Pattern[str]
    value_group: int | str = 0
    accept: Callable[[str], bool] | None = None
    lowered: bool = False
    word_start: bool = False


def shannon_entropy(value: str) -> float:
    """Bits per character of ``value`` (0 for empty text)."""
    if not value:
        return 0.0
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


_PLACEHOLDER = re.compile(
    r"""^(?:
        [$%<{\[(].*                              # ${VAR}, %VAR%, <token>, {{x}}, [redacted]
      | [*xX•.\-_#]+                             # ****, xxxx, ...., ----
      | (?i:none|null|nil|empty|redacted|changeme|example|placeholder|dummy|your[-_a-z]*|
            see|stored|kept|in|from|via|set|env|true|false|yes|no|required|optional)
    )$""",
    re.VERBOSE,
)


def _is_placeholder(value: str) -> bool:
    return bool(_PLACEHOLDER.match(value))


_UUID = re.compile(r"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}")
_HEX = re.compile(r"[0-9a-f]+|[0-9A-F]+")


def _random_looking(value: str, *, min_len: int = 16, min_entropy: float = 3.0) -> bool:
    """Whether ``value`` looks generated (a key) rather than written (a word, a path, a name).

    Generated keys mix digits with letters in both cases about evenly, or are long hex; an
    identifier like ``getUserCredentials2`` has one capital per word, a path has no capitals,
    and a UUID, a git commit or a sha256 digest (hex of 40 or 64) names something, not a secret.
    """
    if len(value) < min_len or _is_placeholder(value) or _UUID.fullmatch(value):
        return False
    digits = sum(c.isdigit() for c in value)
    lower = sum(c.islower() for c in value)
    upper = sum(c.isupper() for c in value)
    if not digits:
        return False
    if _HEX.fullmatch(value):
        if len(value) < 32 or len(value) in (40, 64):
            return False
    elif lower and upper:
        if not 0.2 <= upper / (lower + upper) <= 0.8:
            return False
    elif digits / len(value) < 0.2:
        return False
    return shannon_entropy(value) >= min_entropy


def _secret_value(value: str) -> bool:
    """A value after ``password=`` / ``api_key:``: not a placeholder, not a plain word."""
    value = value.strip("\"'`")
    if len(value) < 6 or _is_placeholder(value):
        return False
    if re.fullmatch(r"[a-z]+(?:[ -][a-z]+)*", value):
        return False  # a plain lowercase word ("password: stored", "token: rotated-weekly")
    if re.fullmatch(r"[-+]?[\d,._]+(?:[eE][-+]?\d+)?", value):
        return False  # a number ("token: 5,860", "password: -1") is a figure, not a secret
    if not value.isascii():
        return False  # typed secrets are ASCII; this is prose in another script
    return bool(re.search(r"\d", value) or re.search(r"[^\w\s]", value) or not value.islower())


# Words that mark the next value as a secret. Specific ones need only a secret-looking value;
# the generic ones (token, secret, key, auth) need a random-looking value. Lower case: these
# patterns run over the lowercased text.
_SPECIFIC_WORDS = (
    r"passw(?:or)?d|passphrase|pwd|api[-_ ]?key|apikey|api[-_ ]?secret|client[-_ ]?secret|"
    r"secret[-_ ]?key|access[-_ ]?key(?:[-_ ]?id)?|private[-_ ]?key|aws[-_]secret[-_]access[-_]key|"
    r"auth[-_ ]?token|access[-_ ]?token|refresh[-_ ]?token|bearer[-_ ]?token|session[-_ ]?token|"
    r"db[-_ ]?pass(?:word)?|signing[-_ ]?key|encryption[-_ ]?key|webhook[-_ ]?secret"
)
_GENERIC_WORDS = r"token|secret|key|auth|credentials?|passcode"

# `password = "x"`, `api_key: x`, `"apiKey": "x"`, `PASSWORD=x`, `--password=x`.
_ASSIGN_TAIL = r"""["']?\s*(?::=|=>|[:=])\s*["'`]?(?P<value>[^\s"'`,;]+)"""


def _after(literal: str, not_before: str = r"[\w-]") -> str:
    """``literal`` not preceded by ``not_before``, with the check after it (keeps the prefix)."""
    return re.escape(literal) + rf"(?<!{not_before}{re.escape(literal)})"


PATTERNS: tuple[CredentialPattern, ...] = (
    CredentialPattern(
        "private key block",
        re.compile(r"-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----|PuTTY-User-Key-File-\d+:"),
    ),
    CredentialPattern(
        "AWS access key id",
        re.compile(
            r"A(?:KIA|SIA|BIA|CCA|GPA|IDA|ROA|IPA|NPA|NVA|KPA)(?<![A-Z0-9]A....)"
            r"[A-Z0-9]{16}(?![A-Z0-9])"
        ),
    ),
    CredentialPattern(
        "AWS secret access key",
        re.compile(
            r"aws.{0,20}?(?:secret|sk).{0,20}?(?<![a-z0-9/+])"
            r"(?P<value>[a-z0-9/+]{40})(?![a-z0-9/+=])"
        ),
        "value",
        lambda v: _random_looking(v, min_len=40, min_entropy=3.5),
        lowered=True,
    ),
    CredentialPattern(
        "OpenAI/Anthropic-style secret key (sk-…)",
        re.compile(
            rf"(?P<value>{_after('sk-')}(?:ant-(?:api|admin)\d\d-|proj-|svcacct-|admin-)?"
            r"[A-Za-z0-9_\-]{20,})"
        ),
        "value",
        lambda v: _random_looking(v.split("-", 1)[1], min_len=20),
    ),
    CredentialPattern(
        "Stripe-style key (sk_live_/rk_live_…)",
        re.compile(r"[sr]k_(?:live|test)_(?<![\w-].k_...._)[A-Za-z0-9]{16,}"),
    ),
    CredentialPattern(
        "GitHub token (ghp_/gho_/ghu_/ghs_/ghr_/github_pat_)",
        re.compile(
            r"gh[pousr]_(?<![\w-]gh._)[A-Za-z0-9]{30,}|"
            r"github_pat_(?<![\w-]github_pat_)[A-Za-z0-9_]{40,}"
        ),
    ),
    CredentialPattern(
        "GitLab token (glpat-…)",
        re.compile(r"gl(?:pat|dt|rt|ptt|cbt)-(?<![\w-]gl...-)(?<![\w-]gl....-)[A-Za-z0-9_\-]{20,}"),
    ),
    CredentialPattern(
        "Slack token (xox…)",
        re.compile(rf"{_after('xox')}[abposre]-(?:\d+-)?[A-Za-z0-9\-]{{10,}}"),
    ),
    CredentialPattern(
        "Slack webhook URL",
        re.compile(r"https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9_/]{20,}"),
    ),
    CredentialPattern(
        "Google API key (AIza…)",
        re.compile(rf"{_after('AIza')}[0-9A-Za-z_\-]{{35}}(?![\w-])"),
    ),
    CredentialPattern(
        "Google OAuth client secret (GOCSPX-…)",
        re.compile(rf"{_after('GOCSPX-')}[A-Za-z0-9_\-]{{20,}}"),
    ),
    CredentialPattern(
        "Hugging Face token (hf_…)",
        re.compile(rf"{_after('hf_')}[A-Za-z0-9]{{30,}}(?![\w-])"),
    ),
    CredentialPattern(
        "npm/PyPI token",
        re.compile(
            rf"{_after('npm_')}[A-Za-z0-9]{{36}}|{_after('pypi-AgEIcHlwaS5vcmc')}[A-Za-z0-9_\-]{{20,}}"
        ),
    ),
    CredentialPattern(
        "SendGrid API key (SG.…)",
        re.compile(rf"{_after('SG.')}[A-Za-z0-9_\-]{{16,}}\.[A-Za-z0-9_\-]{{16,}}"),
    ),
    CredentialPattern(
        "Twilio/Mailgun-style key",
        re.compile(rf"(?:{_after('SK')}[0-9a-f]{{32}}|{_after('key-')}[0-9a-f]{{32}})(?![\w-])"),
    ),
    CredentialPattern(
        "JSON Web Token",
        re.compile(
            rf"{_after('eyJ')}[A-Za-z0-9_\-]{{8,}}\.eyJ[A-Za-z0-9_\-]{{8,}}\.[A-Za-z0-9_\-]{{8,}}"
        ),
    ),
    CredentialPattern(
        "password in a connection URL",
        re.compile(r"://[^\s:/@'\"]+:(?P<value>[^\s@/'\"]+)@[\w.\-]+"),
        "value",
        lambda v: not _is_placeholder(v) and v.lower() not in ("password", "pass", "pwd"),
    ),
    CredentialPattern(
        "Authorization header value",
        re.compile(r"(?:bearer|basic|token)\s+(?P<value>[a-z0-9._~+/\-]{20,}=*)"),
        "value",
        lambda v: _random_looking(v, min_len=20),
        lowered=True,
        word_start=True,
    ),
    CredentialPattern(
        "secret assigned to a credential name",
        re.compile(rf"(?:{_SPECIFIC_WORDS})\b{_ASSIGN_TAIL}"),
        "value",
        _secret_value,
        lowered=True,
        word_start=True,
    ),
    CredentialPattern(
        "secret given to a command-line flag",
        re.compile(
            r"-(?<![\w-]-)-?(?:password|passwd|pass|token|api-key|secret|auth-token)"
            r"[ =][\"']?(?P<value>[^\s\"']+)"
        ),
        "value",
        _secret_value,
        lowered=True,
    ),
    CredentialPattern(
        "secret assigned to a credential name (Chinese)",
        re.compile(
            r"(?:密碼|密码|口令|金鑰|密鑰|密钥|私鑰|私钥|令牌|憑證|凭证|通行碼)"
            r"\s*(?:[:：=]|是|為|为)\s*[\"'`「『]?(?P<value>[^\s\"'`」』，。、；]+)"
        ),
        "value",
        _secret_value,
    ),
    CredentialPattern(
        "high-entropy value assigned to a credential word",
        re.compile(rf"(?:{_GENERIC_WORDS})s?\b{_ASSIGN_TAIL}"),
        "value",
        lambda v: _random_looking(v.strip("\"'`"), min_len=16, min_entropy=3.3),
        lowered=True,
        word_start=True,
    ),
    CredentialPattern(
        "high-entropy string next to a credential word",
        re.compile(
            rf"(?:{_SPECIFIC_WORDS}|{_GENERIC_WORDS})s?\b[^\n]{{0,40}}?"
            # A run followed by ".md" or another extension is a file name, not a secret.
            r"(?<![a-z0-9+/_\-])(?P<value>[a-z0-9+/_\-]{24,}={0,2})(?![a-z0-9+/_\-]|\.[a-z])"
        ),
        "value",
        lambda v: _random_looking(v, min_len=24, min_entropy=3.8),
        lowered=True,
        word_start=True,
    ),
)
"""Every credential pattern the guard knows, in one place. Extend it here."""


def _preview(secret: str) -> str:
    shown = secret[:4] if len(secret) > 8 else secret[:2]
    return f"{shown}… ({len(secret)} characters)"


_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


def find_credentials(text: str, patterns: Iterable[CredentialPattern] = PATTERNS) -> list[Finding]:
    """Every suspected credential in ``text``, in order, one finding per overlapping span."""
    lowered = text.lower()  # C speed; offsets must match ``text``, and a few characters
    if len(lowered) != len(text):  # ('İ') lower to two, so fall back to ASCII-only lowering
        lowered = text.translate(_ASCII_LOWER)
    found: list[tuple[int, int, str]] = []
    for pattern in patterns:
        for m in pattern.regex.finditer(lowered if pattern.lowered else text):
            if pattern.word_start and m.start() and _is_word_char(text[m.start() - 1]):
                continue
            start, end = m.start(pattern.value_group), m.end(pattern.value_group)
            if pattern.accept is not None and not pattern.accept(text[start:end]):
                continue
            found.append((start, end, pattern.kind))
    found.sort()
    out: list[Finding] = []
    last_end = -1
    for start, end, kind in found:
        if start < last_end:
            continue  # the same secret matched by a second, more generic pattern
        out.append(
            Finding(
                kind=kind,
                line=text.count("\n", 0, start) + 1,
                start=start,
                end=end,
                preview=_preview(text[start:end]),
            )
        )
        last_end = end
    return out


def _is_word_char(c: str) -> bool:
    return c.isalnum() or c == "_"


class CredentialRefusedError(PermissionError):
    """A memory write refused because its content looks like a credential; nothing was stored."""

    def __init__(self, path: str, findings: list[Finding]) -> None:
        self.findings = findings
        what = "; ".join(f"{f.kind} on line {f.line} ({f.preview})" for f in findings[:3])
        more = f" and {len(findings) - 3} more" if len(findings) > 3 else ""
        super().__init__(
            errno.EACCES,
            f"Refused to write {path!r}: it looks like it contains a credential ({what}{more}). "
            "Memory is replayed verbatim into every later turn, so a secret stored here leaks "
            "into every future conversation. Do not store the secret itself: store where it "
            "lives instead (for example 'the deploy token is in the team vault under "
            "prod/deploy'), then write the file again without it.",
            path,
        )


def check_credentials(path: str, data: bytes | str) -> None:
    """Raise :class:`CredentialRefusedError` when ``data`` written to ``path`` holds a secret."""
    text = data if isinstance(data, str) else data.decode("utf-8", errors="replace")
    findings = find_credentials(text)
    if findings:
        raise CredentialRefusedError(path, findings)
