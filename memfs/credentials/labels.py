"""Secrets found by their label, in the languages people write memories in.

A provider format names itself (``ghp_…``); a password does not. What marks it is the label
before it, and people write that label in many ways this layer reads:

- ``password: X``, ``DB_PASSWORD=X``, ``"apiKey": "X"`` and the same in ten languages
  (``密碼：X``, ``密码 X`` with only a space, ``Passwort: X``, ``contraseña: X``,
  ``パスワードは X``, ``비밀번호는 X``, ``пароль — X`` …);
- prose: ``The staging root password is X``, ``Password for the staging DB: X``,
  ``La contraseña de la base es X``;
- the label on the line above its value (``Staging DB password:`` then ``X``);
- a markdown table whose column is headed ``password`` / ``token`` / ``密碼``;
- a ``user / password`` pair after a login word or a default user name (``admin / X``).

What follows the label must look like a secret (:mod:`.values`): ``password: stored in
Vault``, ``token budget: 6000`` and ``the key is e3b0…`` (a sha256) are prose and identifiers.
Labels are three families: password words, specific key and token names (``api key``,
``access token``, ``client secret``), and generic words (``token``, ``key``, ``secret``)
whose value must also look generated. Regexes are compiled on first use, none at import.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache

from memfs.credentials.values import (
    hook_url,
    is_placeholder,
    is_public_identifier,
    issued_in_one_case,
    passphrase,
    random_looking,
    typed_secret,
)

# Lower case; a space means "a space, '-', '_' or nothing" (``api key`` = api_key = apiKey).
PASSWORD_LABELS: tuple[str, ...] = (
    "password", "passwd", "passphrase", "passcode", "pwd", "pw", "pass", "mdp", "passwort",
    "kennwort", "contraseña", "contrasena", "senha", "пароль", "mot de passe", "clave",
    "密码", "密碼", "口令", "通行碼", "通行码", "暗証番号", "パスワード",
    "비밀번호", "패스워드", "비번", "암호",
)  # fmt: skip
KEY_LABELS: tuple[str, ...] = (
    "api key", "api token", "api secret", "secret key", "access key", "access token",
    "auth token", "refresh token", "bearer token", "session token", "client secret",
    "private key", "signing key", "encryption key", "webhook secret", "signing secret",
    "app secret", "bot token", "deploy token", "personal access token", "master key",
    "token de acceso", "jeton d'accès", "jeton d'acces", "clé d'api", "clé api", "cle api",
    "clé secrète", "cle secrete", "clave de api", "clave secreta", "chave de api",
    "chave secreta", "api-schlüssel", "api schlüssel", "zugriffstoken", "api-ключ",
    "ключ api", "секретный ключ", "токен доступа", "apiキー", "api キー", "シークレットキー",
    "アクセストークン", "api 키", "시크릿 키", "액세스 토큰", "api 金鑰", "api 密钥", "api 密鑰",
    "金鑰", "密鑰", "密钥", "秘钥", "私鑰", "私钥", "存取權杖", "访问令牌", "訪問令牌", "存取令牌",
)  # fmt: skip
GENERIC_LABELS: tuple[str, ...] = (
    "token", "secret", "key", "credential", "credentials", "creds", "auth", "jeton",
    "токен", "ключ", "секрет", "トークン", "シークレット", "토큰", "시크릿",
    "令牌", "權杖", "凭证", "憑證",
    "schlüssel", "chave", "clé", "llave",
)  # fmt: skip

# A word right after a label that makes it a compound noun, not the label of a value:
# "password manager is 1Password", "token budget: 6000", "key rotation date: …".
_HEADS = (
    "manager|managers|policy|policies|reset|rotation|rotations|hash|hashes|hashing|length|"
    "rules|rule|requirements|field|fields|prompt|budget|budgets|count|counts|limit|limits|"
    "expiry|expiration|lifetime|ttl|format|column|type|types|strength|change|changes|store|"
    "storage|vault|file|files|name|names|id|ids|usage|scope|scopes|prefix|header|endpoint|"
    "url|flow|page|link|server|service|provider|generator|complexity|history|hint|cache|"
    "mint|fingerprint|fingerprints|insight|idea|point|takeaway|question|issue|ticket|"
    "location|path|env|variable|holder|owner|owners|pair|pairs|size|index|ring|word|words"
)

_LOGIN_WORDS = (
    r"login|log in|logon|sign in|signin|credentials?|creds|account|帳號|账号|帳密|账密|登入|登录|"
    r"登錄|ログイン|로그인|계정|anmeldung|zugang|acceso|connexion|identifiants|вход|логин|acesso"
)
_DEFAULT_USERS = (
    r"admin|administrator|root|ops|sa|postgres|ubuntu|guest|pi|ec2-user|deploy|superuser|sysadmin"
)


def _trie(words: list[str]) -> str:
    """One regex for a set of literal words, factored by prefix (one branch per first letter).

    A flat alternation of ~100 words is tried word by word at every position; the trie is
    tried one character at a time, which keeps the label scan near the cost of one literal.
    """
    root: dict[str, dict] = {}
    for w in words:
        node = root
        for c in w:
            node = node.setdefault(c, {})
        node[""] = {}

    def emit(node: dict[str, dict]) -> str:
        ends = "" in node
        branches = [
            ("[-_ ]?" if c == " " else re.escape(c)) + emit(child)
            for c, child in sorted(node.items(), key=lambda kv: kv[0])
            if c != ""
        ]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        if ends:
            body = f"(?:{body})?"
        return body

    return emit(root)


@cache
def _label_regexes() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Every label as two tries, by first character: Latin/Cyrillic-led and CJK-led.

    One trie per family would try all three at each position; one trie for all labels has a
    first-character set so wide that most positions enter it. Two narrow ones cost half.
    """
    words = [*KEY_LABELS, *PASSWORD_LABELS, *GENERIC_LABELS]
    cjk = [w for w in words if _cjk(w[0])]
    return re.compile(_trie([w for w in words if not _cjk(w[0])])), re.compile(_trie(cjk))


def _cjk(c: str) -> bool:
    return c >= "\u3000"


@cache
def _label_regex() -> re.Pattern[str]:
    """All labels in one regex, for short strings (a table header cell)."""
    return re.compile(_trie([*KEY_LABELS, *PASSWORD_LABELS, *GENERIC_LABELS]))


def label_of(text: str) -> str | None:
    """The first password or key label in ``text`` (lower case), if it has one."""
    lowered = text.lower()
    for m in _labels_in(text if len(text) == len(lowered) else lowered, lowered):
        if family_of(m.group()) != "generic" or m.group() in ("token", "secret", "credentials"):
            return m.group()
    return None


def _labels_in(text: str, lowered: str) -> list[re.Match[str]]:
    """Every label that stands as a word (or a camelCase part) of its own.

    A match inside a longer word (``api token`` in ``vpnapi token``) is skipped and the search
    goes on from its next character, so the label it hid (``token``) is still found.
    """
    latin, cjk = _label_regexes()
    found = _word_labels(latin, text, lowered)
    if not lowered.isascii():
        found += _word_labels(cjk, text, lowered)
        found.sort(key=lambda m: m.start())
    return found


def _word_labels(regex: re.Pattern[str], text: str, lowered: str) -> list[re.Match[str]]:
    out: list[re.Match[str]] = []
    pos = 0
    while (m := regex.search(lowered, pos)) is not None:
        start, end = m.span()
        if _word_before_ok(text, lowered, start) and _word_after_ok(lowered, end, m.group()):
            out.append(m)
            pos = end
        else:
            pos = start + 1
    return out


@cache
def _families() -> dict[str, str]:
    out: dict[str, str] = {}
    for family, words in (
        ("generic", GENERIC_LABELS),
        ("password", PASSWORD_LABELS),
        ("key", KEY_LABELS),
    ):
        out.update((_squash(w), family) for w in words)
    return out


def _squash(label: str) -> str:
    return label.replace(" ", "").replace("-", "").replace("_", "")


def family_of(label: str) -> str:
    """``password``, ``key`` or ``generic`` for a label as matched (``api_key`` → key)."""
    return _families().get(_squash(label), "generic")


_MARK_WORDS = r"is now|is|are|was|ist|lautet|es|est|é|это|será|sera"
_MARK = (  # [ \t], never \s: a value is on the label's line (the line below is _eol_tail's)
    r"(?P<mark>[ \t]*(?::=|=>|->|→|:(?!//)|=|—|–)[ \t]*"
    r"|[ \t]+(?:was |is |has been |got )?(?:reset|changed|set|updated|rotated) to[ \t]+"
    rf"|[ \t]+(?:{_MARK_WORDS})[ \t]+"
    r"|[ \t]*(?:是|為|为|改成|改為|改为|換成|换成|設為|设为|は|는|은|이|가|を|를|을)[ \t]*)"
)
# Words between a label and its marker ("password for the staging DB: X"): not a compound
# head ("password manager is …") and never a marker itself, so the first marker wins.
_QUALIFIER = (
    rf"(?:[ \t]+|(?=[^\x00-\x7f]))(?!(?:{_HEADS})(?![a-z]))"
    rf"(?:(?![ \t](?:{_MARK_WORDS})[ \t]|[:=—–是為为は는은를을])[^\n.。!?]){{1,40}}?"
)
_CLOSE = r"s?[\"'\])]{0,2}(?:[ \t]*\([^)\n]{1,40}\))?"
_OPEN = r"[\"'`「『(*]*"
# A ")" closes the value only where no more of it follows: "u@D7GXt)t>8d(…" is one password.
_VALUE = r"(?P<value>[^\s\"'`,;|「」『』)]+(?:\)+[^\s\"'`,;|「」『』)]+)*)"


@cache
def _tail() -> re.Pattern[str]:
    """Right after a label: plural, a closing quote, a marker, then the value."""
    return re.compile(rf"{_CLOSE}{_MARK}{_OPEN}{_VALUE}")


@cache
def _qualified_tail() -> re.Pattern[str]:
    """After a label and a few words: ``password for the staging DB: X``."""
    return re.compile(rf"{_CLOSE}{_QUALIFIER}{_MARK}{_OPEN}{_VALUE}")


@cache
def _weak_tail() -> re.Pattern[str]:
    """After a label, only a space before the value (``密码 X``, ``Новый пароль X``)."""
    return re.compile(rf"s?[ \t]+{_OPEN}{_VALUE}")


@cache
def _eol_tail() -> re.Pattern[str]:
    """A label that ends its line with a colon (or is the whole line): the value is below."""
    return re.compile(rf"{_CLOSE}(?:(?:{_QUALIFIER})?[ \t]*[:：][ \t*]*|[ \t]*)(?=\n)")


@cache
def _token_after() -> re.Pattern[str]:
    """Printable-ASCII runs on the rest of a line (for ``пароль от сервера X``)."""
    return re.compile(r"(?<![^\s(「『`])[!#-&(-+\--:<-_a-~]+(?=[\s,.;:)」』`]|$)")


@cache
def _near_run() -> re.Pattern[str]:
    """A long generated-looking run shortly after a label (``the staging key is <32 chars>``).

    The run is a whole word: a piece of a longer one (``…tuy?cvonk5577…``, ``x.md``) is not
    a key of its own; the word it is part of is judged by the other rules. A short dotted
    prefix is part of it: providers name a key's kind that way (``s.…``, ``pat.…``, ``dp.st.…``).
    """
    return re.compile(
        r"[^\n]{0,40}?(?<![^\s\"'`:(\[<>,{|])"
        r"(?P<value>(?:[a-z]{1,4}\.){0,3}[a-z0-9+/_\-]{24,}={0,2})"
        r"(?=$|[\s\"'`)\]>},;|&]|[.!?:](?:\s|$)|\.[a-z0-9_\-]{8})"
    )


@cache
def _table_header() -> re.Pattern[str]:
    return re.compile(r"(?m)^[ \t]*\|(?P<cells>[^\n]+)\|[ \t]*\n[ \t]*\|?[ \t]*:?-{3,}[^\n]*\n")


@cache
def _slash() -> re.Pattern[str]:
    return re.compile(r"/(?P<sp>[ \t]*)(?P<value>[^\s/\"'`,;|]+)")


@cache
def _colon_pair() -> re.Pattern[str]:
    """``jenkins:Secret1!`` (one token) after a login word on the same line."""
    return re.compile(r"(?<![\w/@:.-])[a-z][\w.\-]{1,30}:(?P<value>[^\s/\"'`,;|]{6,})")


@cache
def _user_before() -> re.Pattern[str]:
    return re.compile(r"(?<![\w./@-])(?P<user>[a-z][\w.\-]{0,30})(?P<sp>[ \t]*)$")


@cache
def _login_word() -> re.Pattern[str]:
    return re.compile(_LOGIN_WORDS)


def _ascii_prefix(value: str) -> str:
    """``value`` up to its first non-ASCII character ("X12ab!上週" → "X12ab!")."""
    for i, c in enumerate(value):
        if not c.isascii():
            return value[:i]
    return value


@cache
def _public_kind() -> re.Pattern[str]:
    """A word right before a label that names a token meant to be seen: a CSRF token sits in
    every page's HTML, a public or publishable key in every client."""
    return re.compile(r"(?:csrf|xsrf|anti[-_ ]?forgery|public|publishable)[-_ ]?$")


def _trim(value: str) -> str:
    """The value without quotes, emphasis or closing punctuation; empty when a long value is
    elided (``ops_eyJzaWduSW5BZGRy…``): a key cut short is an example, not the secret."""
    if value.endswith(("...", "…")) and len(value.rstrip(".…")) >= 16:
        return ""
    value = _ascii_prefix(value)
    link = value.find("](")  # "[API key rotation](memory/…)": a markdown link, not a value
    if link >= 0:
        value = value[:link]
    return value.strip("*_~").rstrip(".:)]}>*")


# A generic word that names a key the value of which is an identifier: "primary key is <uuid>".
_ID_KEY_BEFORE = (
    r"(?:primary|foreign|partition|sort|cache|idempotency|object|lookup|dedup|row|composite|"
    r"unique|map|dict|hash|redis|s3|json|config|yaml|registry|project|request|trace|gpg|pgp|"
    r"ssh|host|快取|缓存|キャッシュ|캐시)"
    r"[ \t_-]*(?:key|token|secret)"
)
_DIGESTS = (40, 64, 128)  # sha1, sha256, sha512: the lengths of hex digests
_ARTICLES = frozenset(
    (
        "a", "an", "the", "my", "your", "our", "their", "this", "that", "its", "his", "her", "le",
        "la", "les", "un", "une", "der", "die", "das", "den", "dem", "ein", "eine", "el", "los",
        "las", "una", "o", "os", "um", "uma", "это",
    )
)  # fmt: skip


def _names_a_service(before: str) -> bool:
    """Whether a name stands right before a generic label (``heroku token``, ``hubspot の
    トークン``, ``hubspot-Schlüssel``): a credential word that says whose it is."""
    m = re.search(r"(?<![\w.-])([A-Za-z][\w.-]{1,30})[-_ ]?(?:[ \t]?[の的][ \t]?)?$", before)
    return m is not None and m.group(1).lower() not in _ARTICLES


def _accept(
    family: str,
    value: str,
    context: str,
    *,
    weak: bool,
    labelled: bool | None = None,
    named: bool = False,
) -> bool:
    """Whether ``value`` after a label of ``family`` is a secret; ``named``: a service name
    qualifies the label (``the heroku token is …``, ``Токен npm: …``)."""
    if not value or is_placeholder(value):
        return False
    if hook_url(value):
        return True
    if labelled is None:
        # "the sentry token is <32+ hex>": a token word with a marker before long hex names a
        # key; "primary key is <hex>" does not. A UUID or a digest-length hex after a bare
        # "token:" is an identifier; after a service's token ("the heroku key is <uuid>"),
        # where providers issue keys in those shapes, it is the key.
        hexed = re.fullmatch(r"[0-9a-fA-F]{32,}", value) is not None or (
            named and _short_hex_key(value)
        )
        uuid = re.fullmatch(r"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}", value)
        labelled = family != "generic" or (
            not weak
            and (hexed or (named and uuid is not None))
            and (named or len(value) not in _DIGESTS)
            and re.search(_ID_KEY_BEFORE, context.lower()) is None
        )
    if is_public_identifier(value, context, labelled=labelled):
        return False
    if labelled and (family != "generic" or named) and _short_hex_key(value):
        return True
    if family == "generic":
        # After "token is" / "key:" a short key (12+) counts; after a bare space only a long one.
        # A service's key word ("the databox key is …") also takes a key issued in one case.
        return (
            _generated(value, min_len=20 if weak else 12, min_entropy=3.5 if weak else 3.3)
            or (not weak and _user_and_password(value))
            or (
                named
                and not weak
                and issued_in_one_case(value)
                and re.search(_ID_KEY_BEFORE, context.lower()) is None
            )
        )
    if family == "key" and (
        _generated(value, min_len=12) or _user_and_password(value) or issued_in_one_case(value)
    ):
        return True
    return typed_secret(value, strong=weak)


def _short_hex_key(value: str) -> bool:
    """24 to 31 hex digits given as a service's key (``the sendbird key is fd3d…``): shorter
    than the digests and UUIDs the rules above weigh, and no MongoDB ObjectId, whose first
    eight digits are a time since 2009 (a drawn key's are one time in five)."""
    if not re.fullmatch(r"[0-9a-f]{24,31}|[0-9A-F]{24,31}", value):
        return False
    if not (re.search(r"[0-9]", value) and re.search(r"[a-fA-F]", value)):
        return False
    return len(value) != 24 or not 0x495C_0780 <= int(value[:8], 16) < 0x8000_0000


def _drawn_hex(part: str) -> bool:
    """Eight hex digits or more, letters and digits mixed (not "cafebabe", not "12345678")."""
    return re.fullmatch(r"[0-9a-f]{8,}", part) is not None and not (
        part.isdigit() or part.isalpha()
    )


def _user_and_password(value: str) -> bool:
    """A ``user:password`` pair given as the credential (``roger23@gmail.com:pQ9wTxu4Fg``,
    curl's ``-u``): a user name or address, then a typed password."""
    halves = value.split(":")
    if len(halves) == 2 and all(_drawn_hex(h) for h in halves):
        return True  # two drawn hex halves: Sidekiq's "462529ae:e5674296"
    m = re.fullmatch(r"([A-Za-z_][\w.+-]*(?:@[\w-]+(?:\.[\w-]+)+)?):([^:\s]+)", value)
    return m is not None and typed_secret(m.group(2), strong=True)


@cache
def _re_token() -> re.Pattern[str]:
    return re.compile(r"[A-Za-z0-9]+(?:[-_][A-Za-z0-9]*)+")


def _serial_name(value: str) -> bool:
    """A resource named by short words and a number (``cmp2-qat-1208358310``, ``db_eu_20240117``):
    a vault, a project or a build, whose digits come from a counter or a clock, not a
    generator. Only the number may be long; a drawn part ("pu1gf8…") makes it a key."""
    parts = re.split(r"[-_]", value)
    return (
        len(parts) >= 2
        and any(p.isdigit() and len(p) >= 4 for p in parts)
        and all(p.isdigit() or (len(p) <= 5 and p == p.lower()) for p in parts)
    )


def _generated(value: str, *, min_len: int, min_entropy: float = 3.0) -> bool:
    """Random-looking as a whole, or a random body behind a short prefix or between words
    (``tk-us-pu1gf8…``, ``web_akqaeqq…``, ``sk_prod_mrolzn3…``): providers name a key's
    kind in front of it, and the body is what a generator drew."""
    if _serial_name(value):
        return False
    if random_looking(value, min_len=min_len, min_entropy=min_entropy):
        return True
    cookie = re.fullmatch(r"[A-Za-z_][\w.-]*=([^=&\s]+)", value)
    if cookie is not None:  # a cookie or setting as the value: "_gitlab_session=1udnwtg85…"
        return _generated(cookie.group(1), min_len=min_len, min_entropy=min_entropy)
    if not _re_token().fullmatch(value):
        return False  # no prefix to split off: one word, or not one token ("a=1&b=2-3")
    parts = re.split(r"[-_]", value)
    body = max(parts, key=len)
    if len(body) >= 16:
        return random_looking(body, min_len=16, min_entropy=min_entropy)
    # A key in groups ("sccqe60k-nsak-h1m1-…"): every group drawn, so the groups joined read
    # as one drawn key; words and numbers ("read-only-v2") do not.
    joined = "".join(parts)
    return (
        len(joined) >= 20
        and min(map(len, parts)) >= 4
        and random_looking(joined, min_len=20, min_entropy=min_entropy)
    )


def _word_before_ok(text: str, lowered: str, start: int) -> bool:
    if not start:
        return True
    prev = lowered[start - 1]
    if not (prev.isascii() and prev.isalnum()):
        return True
    # camelCase: "dbPassword", "clientSecret", and after an acronym: "DBPassword", "APIToken"
    return text[start].isupper() and (
        text[start - 1].islower() or text[start + 1 : start + 2].islower()
    )


def _word_after_ok(lowered: str, end: int, label: str) -> bool:
    if not label[-1].isascii():
        return True
    nxt = lowered[end : end + 1]
    if nxt == "s":
        nxt = lowered[end + 1 : end + 2]
    elif nxt == "_" or nxt.isdigit():
        after = _numbered(lowered, end)
        nxt = lowered[after : after + 1]
    return not (nxt.isascii() and nxt.isalnum())


def _numbered(lowered: str, end: int) -> int:
    """The end of a label with its number: the second of two keys is ``sumoKey2``, ``token_2``."""
    m = _re_number().match(lowered, end)
    return end if m is None else m.end()


@cache
def _re_number() -> re.Pattern[str]:
    return re.compile(r"_?\d{1,2}(?![\w])")


Hit = tuple[int, int, str]


def find_labelled(text: str, lowered: str) -> Iterator[Hit]:
    """(start, end, kind) for every labelled secret; offsets index ``text``."""
    tail, qualified = _tail(), _qualified_tail()
    weak_tail, eol_tail, near = _weak_tail(), _eol_tail(), _near_run()
    for m in _labels_in(text, lowered):
        label = m.group()
        family = family_of(label)
        start, end = m.start(), _numbered(lowered, m.end())
        if lowered[end : end + 1] in (".", "(", "[") and lowered[end + 1 : end + 2].isalpha():
            continue  # a variable in code: password.encode(), token[0], pw(…)
        if lowered[end : end + 1] in (",", ")"):
            continue  # a name in a list or a call: "(token, password, deviceInfo)", "(no password)"
        if _public_kind().search(lowered, max(0, start - 16), start):
            continue  # "csrf-token=…", "publicToken = …": meant to be seen
        plural = lowered[end : end + 1] == "s" and not lowered[end + 1 : end + 2].isalnum()
        line_start = lowered.rfind("\n", 0, start) + 1
        hit: Hit | None = None
        kind = _KINDS[family]
        t = tail.match(lowered, end) or qualified.match(lowered, end)
        if label == "pass" and t is not None and t.re is qualified:
            t = None  # "Pass `viewKey: String(id)`": the verb, not a label
        if t and (label != "pass" or t.group("mark").strip() in (":", "=")):
            value = _trim(text[t.start("value") : t.end("value")])
            context = text[line_start : t.start("value")]
            named = t.re is qualified or _names_a_service(text[line_start:start])
            if _accept(family, value, context, weak=False, named=named) or (
                family == "password" and passphrase(value)
            ):
                hit = (t.start("value"), t.start("value") + len(value), kind)
            elif family == "password":
                rest = re.split(r"[,;。，\n(]| \(", text[t.start("value") : t.start("value") + 90])[
                    0
                ]
                rest = rest.strip().rstrip(".")
                if passphrase(rest):
                    hit = (t.start("value"), t.start("value") + len(rest), kind)
        if hit is None and family != "generic" and label != "pass" and not plural:
            w = weak_tail.match(lowered, end)
            if w:
                value = _trim(text[w.start("value") : w.end("value")])
                if _accept(family, value, text[line_start : w.start("value")], weak=True):
                    hit = (w.start("value"), w.start("value") + len(value), kind)
        if hit is None and family == "password" and label != "pass" and not plural:
            hit = _strong_token_after(text, end, line_start, kind)
        if hit is None and label != "pass" and _label_line(lowered[line_start:start]):
            e = eol_tail.match(lowered, end)
            if e:
                hit = _next_line_value(text, e.end() + 1, family)
                kind = PREV_LINE_KIND
        if hit is None and label != "pass":
            n = near.match(lowered, end)
            if n:
                value = text[n.start("value") : n.end("value")]
                context = text[line_start : n.start("value")]
                if (
                    random_looking(value, min_len=24, min_entropy=3.8)
                    and not is_public_identifier(value, context)
                    and "://" not in text[line_start : n.start("value")]
                ):
                    hit = (*n.span("value"), kind)
        if hit is not None:
            yield hit[0], hit[1], kind


_KINDS = {
    "password": "password after a password label",
    "key": "key or token after a credential label",
    "generic": "high-entropy value after a credential word",
}
PREV_LINE_KIND = "secret on the line under its label"
TABLE_KIND = "secret in a table column headed as a credential"
SLASH_KIND = "password in a user / password pair"


def _strong_token_after(text: str, end: int, line_start: int, kind: str) -> Hit | None:
    """A typed-password-looking token among the next few words on the label's line."""
    nl = text.find("\n", end)
    line_end = len(text) if nl < 0 else nl
    # The window bounds where a token may start, not where it ends: a path cut at the
    # window's edge ("/etc/juicefs/alphalib") would read as a token of its own.
    for n, m in enumerate(_token_after().finditer(text, end, line_end)):
        if n >= 6 or m.start() > end + 48:
            break
        value = _trim(m.group())
        if _accept("password", value, text[line_start : m.start()], weak=True):
            return m.start(), m.start() + len(value), kind
    return None


def _label_line(before: str) -> bool:
    """Whether the text before a label reads as a heading, not code (``if api_key:``)."""
    return not _re_code().search(before)


@cache
def _re_code() -> re.Pattern[str]:
    return re.compile(r"[(=\[{]|^\s*(?:if|elif|else|for|while|def|with|class|return|try)\b")


def _next_line_value(text: str, pos: int, family: str) -> Hit | None:
    """The value on the first non-blank line at ``pos`` (skipping a code-fence line)."""
    for _ in range(3):
        if pos >= len(text):
            return None
        nl = text.find("\n", pos)
        line_end = len(text) if nl < 0 else nl
        line = text[pos:line_end]
        stripped = line.strip().strip("`").strip()
        if stripped and not line.lstrip().startswith("```"):
            offset = pos + line.index(stripped[0])
            value = _trim(stripped)
            code = any(c in value for c in "()[]{}=\"'")
            if " " not in value and not code and _accept(family, value, "", weak=False):
                return offset, offset + len(value), PREV_LINE_KIND
            if family == "password" and passphrase(stripped.rstrip(".")):
                return offset, offset + len(stripped.rstrip(".")), PREV_LINE_KIND
            return None
        pos = line_end + 1
    return None


def find_in_tables(text: str, lowered: str) -> Iterator[Hit]:
    """Cells under a column headed ``password`` / ``token`` / ``密碼`` / … in a markdown table."""
    if "|" not in text or "---" not in text:
        return
    labels = _label_regex()
    for m in _table_header().finditer(lowered):
        cells = m.group("cells").split("|")
        families: dict[int, tuple[str, bool]] = {}
        for i, cell in enumerate(cells):
            c = cell.strip().strip("`*_").strip()
            lm = labels.fullmatch(c) or labels.fullmatch(c.rstrip("s"))
            if lm is None:
                lm = labels.search(c)
                if lm is None or len(c) > len(lm.group()) + 12:
                    continue
            family = family_of(lm.group())
            if family == "generic" and lm.group() in ("key", "schlüssel", "chave", "clé", "llave"):
                continue  # a config table's "key" column holds names, not keys
            # A column headed "secret" or "token" holds secrets, typed ones too; but a hash
            # or an ID there is still an identifier.
            families[i] = ("key", False) if family == "generic" else (family, True)
        if not families:
            continue
        pos = m.end()
        while pos < len(text) and text[pos:].lstrip(" \t").startswith("|"):
            nl = text.find("\n", pos)
            row_end = len(text) if nl < 0 else nl
            cell_start = text.index("|", pos) + 1
            for i, part in enumerate(text[cell_start:row_end].split("|")):
                column = families.get(i)
                value = part.strip().strip("`").strip()
                if column and value and " " not in value:
                    offset = text.index(value, cell_start)
                    value = _trim(value)
                    if _accept(column[0], value, "", weak=False, labelled=column[1]):
                        yield offset, offset + len(value), TABLE_KIND
                cell_start += len(part) + 1
            pos = row_end + 1


def find_pairs(text: str, lowered: str) -> Iterator[Hit]:
    """``admin / X`` after a login word, or after a default user name, with spaces around."""
    user_before, login = _user_before(), _login_word()
    for m in _slash().finditer(lowered) if "/" in text else ():
        line_start = lowered.rfind("\n", 0, m.start()) + 1
        before = lowered[max(line_start, m.start() - 40) : m.start()]
        u = user_before.search(before)
        if u is None or not (u.group("sp") or m.group("sp")):
            continue
        known = re.fullmatch(_DEFAULT_USERS, u.group("user")) is not None
        if not known and not login.search(lowered, line_start, m.start() - len(u.group())):
            continue
        value = _trim(text[m.start("value") : m.end("value")])
        if any(c in value for c in "()[]{}=") or "." in value[:2]:
            continue  # code: "(ROOT / t).exists()"
        if _accept("password", value, "", weak=True):
            yield m.start("value"), m.start("value") + len(value), SLASH_KIND
    for m in _login_word().finditer(lowered):
        nl = lowered.find("\n", m.end())
        c = _colon_pair().search(lowered, m.end(), len(lowered) if nl < 0 else nl)
        if c is None:
            continue
        value = _trim(text[c.start("value") : c.end("value")])
        if is_public_identifier(c.group()):
            continue  # "arn:aws:iam::…:root" after "aws login": a resource name, not a pair
        if not any(ch in value for ch in "()[]{}=") and _accept("password", value, "", weak=True):
            yield c.start("value"), c.start("value") + len(value), SLASH_KIND


UNLOCK_KIND = "secret named by what it opens"
_UNLOCK_NOUNS = ("code", "combination", "pin", "phrase", "word", "string")
_UNLOCK_RELS = (" that", " which", " to", " for")


def _may_name_an_unlock(lowered: str) -> bool:
    """Whether a noun of :func:`_unlock_phrase` stands before one of its relative words: the
    regex (no literal of its own to start from) runs only on the few texts where one does.
    Six substring scans, where one scan per noun and word pair would be 48."""
    for noun in _UNLOCK_NOUNS:
        at = lowered.find(noun)
        while at >= 0:
            after = at + len(noun)
            after += lowered.startswith("s", after)
            if lowered.startswith(_UNLOCK_RELS, after):
                return True
            at = lowered.find(noun, after)
    return False


@cache
def _unlock_phrase() -> re.Pattern[str]:
    """``the code that opens the prod vault is X``: no label word, the secret named by its use."""
    return re.compile(
        r"(?:code|combination|pin|phrase|word|string)s?[ \t]+(?:that|which|to|for)[ \t]+"
        r"(?:opens?|unlocks?|gets? into|logs? (?:in|into)|accesses)[^\n:=]{0,40}?"
        r"(?:[ \t]+is|[ \t]*[:=])[ \t]+[\"'`]?(?P<value>[^\s\"'`,;]+)"
    )


def find_unlock_phrases(text: str, lowered: str) -> Iterator[Hit]:
    """Secrets named by what they open (``the code that unlocks the safe is X``)."""
    if not _may_name_an_unlock(lowered):
        return
    for m in _unlock_phrase().finditer(lowered):
        value = _trim(text[m.start("value") : m.end("value")]).rstrip("!")
        if typed_secret(value) or passphrase(value):
            yield m.start("value"), m.start("value") + len(value), UNLOCK_KIND
