"""Is this value a secret? Placeholders, public identifiers and typed or generated secrets.

The label layer (:mod:`.labels`) and the provider formats (:mod:`.formats`) find *where* a
secret may be; this module decides whether the value there is one. Public identifiers are
never secrets: blockchain addresses and transaction hashes, commit SHAs and other digests,
UUIDs and ULIDs, versions, dates, numbers, URLs without credentials, file names and paths,
environment-variable names, and the placeholders documentation uses (``<your key>``,
``${TOKEN}``, ``****``, ``AKIAIOSFODNN7EXAMPLE``). The one exception is deliberate: a UUID or a
hex string that is the value of a specific credential label (``api_key: 3f2a…``, Heroku keys
are UUIDs) is that credential.

Every regex here is compiled on first use (``functools.cache``), none at import.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from functools import cache


def shannon_entropy(value: str) -> float:
    """Bits per character of ``value`` (0 for empty text)."""
    if not value:
        return 0.0
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


@cache
def _re(pattern: str, flags: int = 0) -> re.Pattern[str]:
    return re.compile(pattern, flags)


_PLACEHOLDER = r"""^(?:
    \$\{.*|\$\(.*|\$[A-Za-z_]\w*|%\w+%|[<{\[(].*    # ${VAR}, $(cmd), $VAR, %VAR%, <token>, {{x}}
  | .*[.]{3}.* | .*…                             # sk-..., ghp_…
  | [*xX•.\-_#=~]+                               # ****, xxxx, ...., ----
  | .*(?:x{4,}|X{4,}|\*{3,}|0{6,}|1234567|abcdef|example|sample|redacted|placeholder
        |changeme|replace[-_ ]?(?:me|with)
        |your[-_]?(?:own[-_]?)?(?:api[-_]?)?(?:key|token|secret|password|pass)
        |dummy|fake|notreal|not[-_]a[-_]real).*
  | .*(?:IOSFODNN7|wJalrXUtnFEMI).*                # AWS's documentation key pair, varied
  | (?:my[-_]?)?(?:none|null|nil|empty|n/?a|tbd|todo|unset|unknown|hidden|masked|omitted
      |secret|password|passwd|pass|pwd|token|key|apikey|api_key|value|string|required|optional|true|false
      |yes|no|see|stored|kept|in|from|via|set|env|same|below|above|here|there)
)$"""

# Places a secret is kept, named instead of the secret: the guard wants exactly these.
_REFERENCE = r"""(?ix)^(?:1password|lastpass|bitwarden|keepass(?:xc)?|keychain|vault|hashicorp
  |secrets?[-_ ]?manager|key[-_ ]?vault|kms|ssm|sops|doppler|op://\S*|vault://\S*|env:\S*)$"""


def is_placeholder(value: str) -> bool:
    """A stand-in documentation and templates use, or the name of where a secret is kept.

    Besides the words and masks of :data:`_PLACEHOLDER`, a value typed along the alphabet or
    the number row (``aBcDeFgHiJ…``, ``…1234567890``, ``zyxwvu…``) is one: no generator draws
    eight characters in order, and people write them where a key goes.
    """
    return (
        bool(_re(_PLACEHOLDER, re.VERBOSE | re.IGNORECASE).match(value))
        or bool(_re(_REFERENCE).match(value))
        or _one_character_filler(value)
        or _typed_in_order(value)
        or _encoded_text(value)
    )


def _one_character_filler(value: str) -> bool:
    """One character eight times or more (``1111…``, ``sk_live_AAAA…``), unless a long random
    part follows the run: Twitter bearer tokens open with ``AAAAAAAAAAAAAAAAAAAAA``."""
    if _re(r"(.)\1{7,}").search(value) is None:
        return False
    rest = max(_re(r"(.)\1{7,}").sub(" ", value).split(), key=len, default="")
    return not (len(rest) >= 32 and random_looking(rest, min_len=32))


def _typed_in_order(value: str) -> bool:
    """Eight letters or digits in alphabet order, up or down (``…3456789…``), also when
    letters take turns with them, in either case and across hyphens (``a1b2c3d4e5f6a7b8…``,
    ``aB1cD2eF3gH4…``, ``1a2b3C4d-5E6f-7g8H-…``, ``sq0atp-812e…45678901``: filler), or a value
    typed as nothing but such runs of three or more (``abcxyz123``, ``abc123def456…``). A
    drawn key holds no eight letters in order once its digits are taken out: the chance is
    about one in 26⁷ per place."""
    v = value.lower()
    if _in_order_run(v, 8) or _only_runs(v) or _in_order_with_one_slip(v):
        return True
    digits = "".join(c for c in v if c.isdigit())
    letters = "".join(c for c in v if c.isalpha())
    return _in_order_run(digits, 8) or _in_order_run(letters, 8)


def _only_runs(v: str) -> bool:
    """Whether ``v`` (six characters or more) is wholly runs of three or more in order."""
    if len(v) < 6 or not v.isalnum():
        return False
    run = 1
    for a, b in itertools.pairwise(v):
        same = (a.isdigit() and b.isdigit()) or (a.isalpha() and b.isalpha())
        if same and ord(b) - ord(a) == 1:
            run += 1
        elif run < 3:
            return False
        else:
            run = 1
    return run >= 3


def _in_order_with_one_slip(v: str) -> bool:
    """Eight letters or digits typed along the alphabet with two neighbours swapped
    (``abdcefgh``, ``12354678``): a filler typed by hand, slipped once. Drawn characters fall
    that way about once in 10¹⁰ places. Fillers are typed into a key's place, so a value
    longer than any key (256 characters: a blob) is not read window by window, nor one with
    three in order nowhere."""
    if len(v) > 256 or not _in_order_run(v, 3):
        return False
    for i in range(len(v) - 7):
        w = v[i : i + 8]
        if ord(max(w)) - ord(min(w)) != 7 or len(set(w)) != 8:
            continue  # not eight neighbouring characters, in any order
        if not (w.isalpha() or w.isdigit()):
            continue
        for ordered in (sorted(w), sorted(w, reverse=True)):
            off = [j for j in range(8) if w[j] != ordered[j]]
            if len(off) == 2 and off[1] == off[0] + 1:
                return True
    return False


def _in_order_run(v: str, length: int) -> bool:
    run, last = 0, 0
    for a, b in itertools.pairwise(v):
        d = ord(b) - ord(a)
        same = (a.isdigit() and b.isdigit()) or (a.isalpha() and b.isalpha())
        if same and d in (1, -1) and (run == 0 or d == last):
            run, last = run + 1, d
            if run >= length - 1:
                return True
        else:
            run = 0
    return False


def _encoded_text(value: str) -> bool:
    """Base64 that decodes to words (``ZHVtbXkgdGV4dC…`` is "dummy text…") or to a stand-in
    (``MGE6eHh4eHh4…`` is "0a:xxxx…"): a stand-in itself.

    A key decodes to bytes; a sentence or a filler someone encoded to fill the field decodes
    to printable text.
    """
    if len(value) < 16 or len(value) % 4 or not _re(r"[A-Za-z0-9+/]+={0,2}").fullmatch(value):
        return False
    import base64

    # Base64's alphabet, "=" only at the end and a length of 4n: this always decodes.
    text = base64.b64decode(value, validate=True).decode("latin-1")
    if " " in text and sum(c.isalpha() or c == " " for c in text) >= 0.9 * len(text):
        return True
    return text.isprintable() and text.isascii() and is_placeholder(text)


_HEX = r"[0-9a-fA-F]+"
_UUID = r"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}"
_BASE58 = r"[1-9A-HJ-NP-Za-km-z]+"
_ULID = r"[0-7][0-9A-HJKMNP-TV-Z]{25}"
# a legacy address is base58check, so both cases: a one-case "1opov9oy6ycs…" is a key
_BTC = (
    r"(?:[13](?=[^A-Z\s]*[A-Z])(?=[^a-z\s]*[a-z])[1-9A-HJ-NP-Za-km-z]{25,34}"
    r"|bc1[02-9ac-hj-np-z]{11,71}|tb1[02-9ac-hj-np-z]{11,71})"
)
_CID = r"(?:Qm[1-9A-HJ-NP-Za-km-z]{44}|baf[a-z2-7]{50,})"
_NUMBER = r"[-+]?[\d,._]*\d(?:[eE][-+]?\d+)?%?"
_DATE = (
    r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?"
    r"|\d{1,2}:\d{2}(?::\d{2})?"
)
_VERSION = r"v?\d+(?:\.\d+)+(?:[-+.][0-9A-Za-z.\-+]*)?|v\d+"
_IP = r"\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?(?:/\d+)?"
_HOST_PORT = r"(?:localhost|[A-Za-z][\w-]*(?:\.[\w-]+)+):\d{2,5}"
_URL = r"(?i)[a-z][a-z0-9+.\-]*://[^\s]*"
_EMAIL = r"[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)+"
_ENV_NAME = r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+"
_FILE = (
    r"[\w.\-/~]*\.(?:md|txt|json|ya?ml|toml|ini|env|csv|py|js|ts|tsx|jsx|go|rs|rb|java|cs|kt|"
    r"swift|php|sh|sql|log|pem|cfg|conf|xml|html|example|sample|template|lock)(?::\d+(?:-\d+)?)?"
)  # a file, or a place in one (".gitleaks.toml:13")
_ARN = r"arn:aws[\w-]*:[\w-]*:[\w-]*:\d*:\S+"
_PATH = r"(?:~|\.{1,2})?/?(?:[\w.\-]+/)+[\w.\-]*"
_DIGEST_PREFIX = (
    r"(?i)(?:sha-?(?:1|224|256|384|512)|md5|blake2[bs]?|crc32|fingerprint|digest|checksum|hash)"
    r"(?:[^\w]|is|是|為|为|は|는|은){1,6}$"
)
_DIGEST_VALUE = r"(?i)(?:sha-?(?:1|224|256|384|512)|md5|blake2[bs]?)[:-]"
_CRYPTO_CONTEXT = (
    r"(?i)address|wallet|\bmint\b|program|pubkey|public|contract|multisig|ledger|"
    r"地址|錢包|钱包|公鑰|公钥|合約|合约|アドレス|ウォレット|주소|지갑|adresse|dirección|direccion|"
    r"endereço|endereco|адрес|кошел"
)


def is_public_identifier(value: str, context: str = "", *, labelled: bool = False) -> bool:
    """A value that names something public: a hash, an address, an ID, a version, a date.

    ``context`` is the text before the value on its line (``sha256:``, ``wallet``, …).
    ``labelled`` says the value follows a specific credential label, where hex strings and
    UUIDs are keys, not identifiers.
    """
    v = value
    if _re(r"0x[0-9a-fA-F]{40}").fullmatch(v):
        return True  # an account or contract address: public by design
    if _re(r"0x[0-9a-fA-F]{64}").fullmatch(v):
        return not labelled  # a transaction or block hash, unless given as a private key
    if _re(_DIGEST_PREFIX).search(context[-24:]) or _re(_DIGEST_VALUE).match(v):
        return True
    for pattern in (
        _NUMBER,
        _DATE,
        _VERSION,
        _IP,
        _HOST_PORT,
        _EMAIL,
        _FILE,
        _CID,
        _BTC,
        _ARN,
    ):
        if _re(pattern).fullmatch(v):
            return True
    if _re(_ENV_NAME).fullmatch(v) and not any(_drawn_segment(p) for p in v.split("_")):
        return True
    if _re(_URL).fullmatch(v) and not _re(r"://[^/\s:@]+:[^/\s@]+@").search(v):
        return not hook_url(v)
    if v.startswith(("pk_live_", "pk_test_", "ssh-ed25519", "ssh-rsa", "ecdsa-sha2-")):
        return True  # Stripe publishable keys and SSH public keys are meant to be shared
    if v.startswith(("AAAAB3NzaC1", "AAAAC3NzaC1", "AAAAE2VjZHNh", "AAAAB3NzaC")):
        return True  # the base64 body of an SSH public key ("ssh-ed25519 AAAAC3…")
    if _re(r"(?i)(?:public|publishable)[-_ ]?key|公鑰|公钥|公開鍵|공개\s?키").search(context):
        return True
    if _re(_PATH).fullmatch(v) is not None and v.count("/") >= 2 and not _drawn_part(v):
        return True  # secret/data/prod/db: where a secret is kept
    if labelled:
        return False
    if _re(_UUID).fullmatch(v) or _re(_ULID).fullmatch(v):
        return True
    if _re(_HEX).fullmatch(v) and (len(v) < 32 or len(v) in (40, 64, 128)):
        return True  # short SHAs (and 24-digit MongoDB ObjectIds), git commits, digests
    # a Solana (or other base58) address named as one
    return bool(
        32 <= len(v) <= 44 and _re(_BASE58).fullmatch(v) and _re(_CRYPTO_CONTEXT).search(context)
    )


def hook_url(value: str) -> bool:
    """A webhook's URL (``https://hooks.zapier.com/hooks/catch/…/bJdWL5uSLdrqauDu``): whoever
    holds it can post as the owner, so the URL is the secret. "hook" names the host or the
    path, and a part after it was drawn: a help page about webhooks has only words."""
    m = _re(r"(?i)[a-z][a-z0-9+.\-]*://[^\s]*?hook").match(value)
    if m is None:
        return False
    return any(
        random_looking(part, min_len=16) and not is_public_identifier(part)
        for part in _re(r"[/?&=#@]").split(value[m.end() :])
    )


def _drawn_segment(part: str) -> bool:
    """A part of an ``ENV_NAME`` no one names a variable by: sixteen characters or more with
    digits among them (``API_KEYN2B1NFN5CP6CK5BJHY8B15YF535TP681`` is a key glued to its
    name; ``AWS_SECRET_ACCESS_KEY``, ``PG_16_HOST`` are names)."""
    return len(part) >= 16 and sum(c.isdigit() for c in part) >= 3


def _drawn_part(path: str) -> bool:
    """Whether a path-shaped value has a part no one names a folder by: base64 with slashes
    (``AK1CI5QsL1zvRE5KBX/uL9Ku…``) is a key, not a place."""
    return any(
        _re(r"[A-Za-z0-9+=]{16,}").fullmatch(part)
        and part.lower() != part != part.upper()
        and random_looking(part, min_len=16)
        for part in path.split("/")
    )


def random_looking(value: str, *, min_len: int = 16, min_entropy: float = 3.0) -> bool:
    """Whether ``value`` looks generated (a key) rather than written (a word, a path, a name).

    Generated keys mix digits with letters in both cases about evenly, or are long hex; an
    identifier like ``getUserCredentials2`` has one capital per word, a path has no capitals.
    """
    if len(value) < min_len or is_placeholder(value):
        return False
    if value[0] in "=?" or _re(r"[^&=]*=[^&]*(?:&[^&=]*=[^&]*)+").fullmatch(value):
        return False  # no key starts with base64's padding or a query mark; "a=1&b=2" is a query
    digits = sum(c.isdigit() for c in value)
    lower = sum(c.islower() for c in value)
    upper = sum(c.isupper() for c in value)
    entropy = shannon_entropy(value)
    if not digits:
        # base62 drawn without a digit by chance: both cases about evenly, no word shape
        return (
            len(value) >= 20
            and lower > 0
            and 0.3 <= upper / (lower + upper) <= 0.7
            and entropy >= max(min_entropy, 4.0)
            and not _re(r"[A-Z]?[a-z]+(?:[A-Z][a-z]+)+").fullmatch(value)
        )
    if _re(_HEX).fullmatch(value):
        if len(value) < 32:
            return False
    elif lower and upper and 0.2 <= upper / (lower + upper) <= 0.8:
        pass
    elif lower and upper and _re(r"[A-Z]?[a-z]+(?:[A-Z][a-z]+)+\d*").fullmatch(value):
        return False  # camelCase: "getUserCredentials2"
    elif digits / len(value) < 0.2 and not _one_case_key(value, digits, entropy):
        return False  # one case, or one case with a stray capital ("43zgwcor…Axxfi…")
    elif _words_and_numbers(value):
        return False  # "release2024build7", "nightly20240117": names with dates and counters
    return entropy >= min_entropy


def _words_and_numbers(value: str) -> bool:
    """Letters in one case whose runs, three letters or more each, pair the way English words
    do, with numbers between them: a name someone built, however many digits it has."""
    if value.lower() != value and value.upper() != value:
        return False
    runs = _re(r"[A-Za-z]+").findall(value)
    return (
        bool(runs)
        and min(map(len, runs)) >= 3
        and sum(map(len, runs)) >= 6
        and _common_pair_share(runs) >= 0.7
    )


def _one_case_key(value: str, digits: int, entropy: float) -> bool:
    """A lower-case (or upper-case) key with few digits: ``g8wjz4xjtdaoswrmbl2ypcu0neq4cvr4``.

    Many providers issue keys in one case; what tells one from a name is that digits sit
    between the letters (three letter runs or more), the runs do not read as words, and the
    characters spread widely.
    """
    if digits < 2 or len(value) < 14 or entropy < min(3.8, 0.85 * math.log2(len(value))):
        return False
    if not _re(r"[A-Za-z0-9]+").fullmatch(value):
        return False  # snake_case and kebab-case identifiers
    runs = _re(r"[A-Za-z]+").findall(value)
    if len(runs) < 3:
        return False
    if len(runs) >= 4 and len(value) >= 24 and _common_pair_share(runs) < 0.7:
        # digits in three places or more between letters: a key typed by hand
        # ("wdvnousa87acfxp9ioasrea4…") has runs that pass for words one by one, but fewer
        # common pairs overall than names joined with digits ("exportservice2handler3…")
        return True
    # A long letter run is fine when it does not read as words ("agtwytrdfxxyf"): drawn
    # letters rarely pair the way English does, "exportservice" almost always does.
    wordy = sum(len(r) for r in runs if len(r) >= 5 and _reads_as_words(r))
    return wordy <= 0.4 * sum(map(len, runs))


def issued_in_one_case(value: str) -> bool:
    """A key a provider issues in one case with few digits (``oclco0nvxwkh4s``,
    ``wdvn-usa87a-fxp9ioas``, ``arjrvgzxx20sivy4rigjs``), given as a service's key.

    Too plain for :func:`random_looking`, which must also tell keys from names with no label
    in front: here the label has said "key", so what is left to rule out is a name. Ten
    characters or more, in hyphen or underscore groups at most, eight letters or more cut by
    digits or separators, and letter runs that pair the way drawn letters do (about one pair
    in six common in English) rather than the way names do (``orders-export-nightly-2026``).
    """
    if len(value) < 10 or not _re(
        r"[a-z0-9]+(?:[-_][a-z0-9]+)*|[A-Z0-9]+(?:[-_][A-Z0-9]+)*"
    ).fullmatch(value):
        return False
    runs = _re(r"[A-Za-z]+").findall(value)
    if len(runs) < 2 or sum(map(len, runs)) < 8 or not any(c.isdigit() for c in value):
        return False
    return _common_pair_share(runs) < 0.45 and not is_placeholder(value)


# The 120 most frequent letter pairs of English text: they make up most pairs of words and
# of names built from words, and about one pair in six of letters drawn at random.
_COMMON_PAIRS = frozenset(
    (
        "th", "he", "in", "er", "an", "re", "on", "at", "en", "nd", "ti", "es", "or", "te", "of",
        "ed", "is", "it", "al", "ar", "st", "to", "nt", "ng", "se", "ha", "as", "ou", "io", "le",
        "ve", "co", "me", "de", "hi", "ri", "ro", "ic", "ne", "ea", "ra", "ce", "li", "ch", "ll",
        "be", "ma", "si", "om", "ur", "ca", "el", "ta", "la", "ns", "di", "fo", "ho", "pe", "ec",
        "pr", "no", "ct", "us", "ac", "ot", "il", "tr", "ly", "nc", "et", "ut", "ss", "so", "rs",
        "un", "lo", "wa", "ge", "ie", "wh", "ee", "wi", "em", "ad", "ol", "rt", "po", "we", "na",
        "ul", "ni", "ts", "mo", "ow", "pa", "im", "mi", "ai", "sh", "ir", "su", "id", "os", "iv",
        "ia", "am", "fi", "ci", "vi", "pl", "ig", "tu", "ev", "ld", "ry", "mp", "fe", "bl", "ab",
        "gh", "ty", "op", "wo", "sa", "ay", "ex", "ke", "fr", "oo", "av", "ag", "if", "ap", "gr",
        "od", "bo", "sp", "rd", "do", "uc", "bu", "ei", "ov", "by", "rm", "ep", "tt", "oc", "fa",
        "ef", "cu", "rn", "sc", "gi", "da", "yo", "cr", "cl", "du", "ga", "qu", "ue", "ff", "ba",
        "ey", "ls", "va", "um", "pp", "ua", "up", "lu", "go", "ht", "ru", "ug", "ds", "lt", "pi",
        "rc", "rr", "eg", "au", "ck", "ew", "mu", "br", "bi", "pt", "ak", "pu",
    )
)  # fmt: skip


def _common_pair_share(runs: list[str]) -> float:
    """The share of common English letter pairs among all the pairs of ``runs``."""
    pairs = [r.lower()[i : i + 2] for r in runs for i in range(len(r) - 1)]
    return sum(p in _COMMON_PAIRS for p in pairs) / max(len(pairs), 1)


def _reads_as_words(run: str) -> bool:
    """Whether a run of letters reads like words: most of its letter pairs are common in
    English (``exportservice``), where drawn letters (``agtwytrdfxxyf``) have few."""
    r = run.lower()
    pairs = [r[i : i + 2] for i in range(len(r) - 1)]
    return sum(p in _COMMON_PAIRS for p in pairs) >= 0.5 * len(pairs)


_STOPWORDS = frozenset(
    (
        "a", "an", "the", "is", "are", "was", "be", "been", "to", "of", "in", "on", "at", "for",
        "from", "by", "with", "as", "and", "or", "not", "no", "yes", "it", "its", "this",
        "that", "these", "those", "there", "here", "same", "than", "then", "also", "only",
        "just", "must", "should", "can", "could", "will", "would", "may", "might", "need",
        "needs", "use", "used", "uses", "using", "see", "ask", "asked", "set", "sets", "stored",
        "kept", "lives", "managed", "rotate", "rotated", "rotation", "every", "each", "per",
        "via", "into", "onto", "over", "under", "below", "above", "please", "change", "changed",
        "changes", "expire", "expires", "expired", "required", "optional", "inside", "within",
        "after", "before", "when", "where", "which", "who", "what", "how", "our", "your",
        "their", "my", "we", "you", "they", "he", "she", "i"
    )
)  # fmt: skip


def passphrase(value: str) -> bool:
    """Four to eight plain words chosen at random (``correct horse battery staple``)."""
    words = _re(r"[ .\-_]").split(value)
    if not 4 <= len(words) <= 8 or len(set(_re(r"[ .\-_]").findall(value))) != 1:
        return False
    return all(_re(r"[a-z]{3,10}").fullmatch(w) is not None and w not in _STOPWORDS for w in words)


_FAKE_WORDS = frozenset(("fake", "dummy", "mock", "bogus", "invalid", "bad", "wrong", "fixture"))


def named_as_fake(before: str) -> bool:
    """Whether the name a value is assigned to says it is not real: ``fakeToken = …``,
    ``BAD_KEY=…``, ``nonMatchingToken := "…"`` (test fixtures, and notes about them).

    ``before`` is the line up to the value; only the identifier right before an assignment
    counts, so prose ("a bad idea: the key is …") does not excuse a key.
    """
    m = _re(r"([A-Za-z_][\w.-]*)[ \t]*(?::=|=|:)[ \t]*[\"'`]?$").search(before[-80:])
    if m is None:
        return False
    name = m.group(1)
    words = _re(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+").findall(name)
    lowered = [w.lower() for w in words]
    if any(w in _FAKE_WORDS for w in lowered):
        return True
    return any(a == "non" and b == "matching" for a, b in itertools.pairwise(lowered))


def typed_secret(value: str, *, strong: bool = False) -> bool:
    """A value after ``password:`` / ``api_key=``: not a placeholder, a word, or an identifier.

    People type passwords as words with digits and symbols (``Summer2024!``); a plain word,
    a capitalised word (``Vault-managed``), a number, a date or a file name is prose.
    ``strong`` (a label without ``:`` or ``is`` before the value) also asks for a digit, a
    letter and a symbol or mixed case.
    """
    if len(value) < 6 or not value.isascii() or is_placeholder(value):
        return False
    letters = sum(c.isalpha() for c in value)
    digits = sum(c.isdigit() for c in value)
    symbols = sum(not c.isalnum() for c in value)
    inner_symbol = any(not c.isalnum() and c not in "-_." for c in value)
    mixed = any(c.isupper() for c in value[1:]) and any(c.islower() for c in value)
    if not letters:
        return False
    name = r"[A-Za-z][a-z]*(?:[A-Z][a-z]+)*"
    if _re(rf"[#.@]?{name}(?:[-_./]{name})*(?::(?:true|false|null|\d+))?").fullmatch(value):
        # words and names in code: "rotated", "Vault-managed", "read_only", "before/after",
        # "ResetPasswordTokensService", "#kc-login", "grantsEnabled:false"
        return False
    if _re(r"([a-z_][\w-]*):\1").fullmatch(value):
        return False  # an owner and group of the same name: "root:root"
    if _re(r"[A-Za-z_][\w.]*\(").match(value):
        return False  # a call in code: "String(id)", "os.getenv('DB_PASSWORD')", "varchar(500"
    if strong:
        if not digits and not any(c.islower() for c in value):
            return False  # acronyms: "CORS/XSRF", "SSO/SAML"
        if _re(r"[A-Z]?[a-z]+(?:[A-Z][a-z]+)*\d*").fullmatch(value):
            return False  # an identifier: "UserForm2", "getToken3"
        return len(value) >= 8 and bool(digits or inner_symbol) and (mixed or inner_symbol)
    if digits and len(value) >= 8:
        return True
    return inner_symbol or bool(digits and symbols) or (mixed and len(value) >= 10)
