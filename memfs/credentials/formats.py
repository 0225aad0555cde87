"""Provider token formats: one row per format, in :data:`PATTERNS`; extend it here.

Each row is a prefix-anchored regex from the provider's published format (prefix, alphabet,
length). Why memfs keeps this table rather than running ``detect-secrets`` is in
``docs/security/credentials.md``: on the project's corpus the engine covered 19 of the 61
formats and none the table lacks (``benchmarks/bench_credentials.py --engine`` measures its
coverage and its cost per memory file). Every row has synthetic examples in
``tests/corpus/credentials`` (a test checks that each kind is caught there).

A regex that starts with a literal is scanned for that literal at C speed; so the
"not preceded by a letter or digit" check comes after the literal as a lookbehind, not
before it as ``\\b`` (which would try the regex at every position). Patterns are compiled on
first use, none at import.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from memfs.credentials.values import is_placeholder, random_looking, typed_secret


@dataclass(frozen=True)
class CredentialPattern:
    """A named regex; ``value_group`` names the group that must pass ``accept`` (if given).

    ``lowered`` patterns are written in lower case and run over the ASCII-lowercased text (same
    length, same offsets). ``gate``: literals one of which every match contains; the regex runs
    only when one is in the text (a substring test is far cheaper than a regex that must be
    tried at every position).
    """

    kind: str
    pattern: str
    value_group: int | str = 0
    accept: Callable[[str], bool] | None = None
    lowered: bool = False
    gate: tuple[str, ...] = ()

    def could_match(self, text: str) -> bool:
        return not self.gate or any(g in text for g in self.gate)

    @cached_property
    def regex(self) -> re.Pattern[str]:
        return re.compile(self.pattern)

    def admits(self, text: str, start: int, end: int) -> bool:
        """Whether the match ``text[start:end]`` is this credential: it passes ``accept``, is
        no placeholder (``figd_aBcDeFgH…``, ``shpat_a1b2c3d4…``), and is not cut from a longer
        word by a character no token alphabet has (``xoxa-0853…?0757…``)."""
        value = text[start:end]
        if self.accept is not None and not self.accept(value):
            return False
        cut = text[end : end + 1] in _FOREIGN and text[end + 1 : end + 2].isalnum()
        if cut and "://" not in value:  # after a URL, "?" opens its query
            return False
        return not is_placeholder(value)


# Characters no token alphabet has and that do not end one in text either ("%" may start an
# escape, "\\" an escape in a quoted string, "#" a URL fragment, "*" emphasis).
_FOREIGN = frozenset("?$!^")


def _after(literal: str) -> str:
    """``literal`` not preceded by a letter or digit, checked after it (keeps the prefix fast)."""
    return re.escape(literal) + rf"(?<![A-Za-z0-9]{re.escape(literal)})"


def _real(value: str) -> bool:
    """Not a documentation placeholder (``ghp_xxxx…``, ``AKIA…EXAMPLE``, ``sntryu_aaaa…``):
    the longest part between separators must use at least eight different characters."""
    body = max(re.split(r"[_\-.]", value), key=len)
    return not is_placeholder(value) and len(set(body)) >= 8


_END = r"(?![A-Za-z0-9])"


def _words(value: str) -> bool:
    """A camelCase identifier (``requiredCharacteristicTypes``), not a random body."""
    return re.fullmatch(r"(?:[A-Z]?[a-z]{2,})+", value) is not None


def _url_password(value: str, user: str) -> bool:
    """A password in a URL, not the user name again (``postgres:postgres@``) or a stand-in."""
    return (
        not is_placeholder(value)
        and len(value) >= 4
        and len(set(value)) >= 3
        and value.lower() != user.lower()
    )


def _slack_real(value: str) -> bool:
    """Slack tokens carry numeric ids; ``xoxo-banner-image`` and ``xoxp-1-RANDOMSTRINGHERE``
    (a word where the random part goes) do not."""
    last = value.rsplit("-", 1)[-1]
    return any(c.isdigit() for c in value[5:]) and not re.fullmatch(r"[A-Za-z]+", last)


def _mailgun_body(value: str) -> bool:
    """A Mailgun key's body is hex in older keys, drawn letters and digits in newer ones; a
    word run after ``key-`` (``key-managementserviceconfiguration``) is neither."""
    body = value[4:]
    return re.fullmatch(r"[0-9a-f]{32}", body) is not None or random_looking(body, min_len=32)


def _key_block(value: str) -> bool:
    """A private-key header with a key under it, not an empty template block."""
    body = re.sub(r"-----[A-Z0-9 ]+-----|[\s\\n\"']", "", value)
    return len(body) >= 40 and not is_placeholder(body)


def _json_header(part: str) -> bool:
    """A JWT's header decodes to a JSON object; a damaged one (``…InR5cCVCJ9``) is no token."""
    import base64
    import binascii
    import json

    try:  # "eyJ" is '{"', so a header that parses is an object
        json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))
    except (binascii.Error, ValueError):
        return False
    return True


OWN_PATTERNS: tuple[CredentialPattern, ...] = (
    CredentialPattern(
        "private key block",
        r"-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----(?:[^-]|-(?!----END)){0,200}"
        r"|PuTTY-User-Key-File-\d+:[^\n]*\n(?:[^\n]*\n){0,3}",
        accept=_key_block,
        gate=("PRIVATE KEY", "PuTTY"),
    ),
    CredentialPattern(
        "AWS access key id",
        r"A(?:KIA|SIA|BIA|CCA|GPA|IDA|ROA|IPA|NPA|NVA|KPA)(?<![A-Za-z0-9]A....)"
        r"[A-Z0-9]{16}" + _END,
        accept=_real,
    ),
    CredentialPattern(
        "AWS secret access key",
        r"aws.{0,20}?(?:secret|sk).{0,24}?(?<![a-z0-9/+])"
        r"(?P<value>[a-z0-9/+]{40})(?![a-z0-9/+=])",
        "value",
        lambda v: random_looking(v, min_len=40, min_entropy=3.5),
        lowered=True,
        gate=("aws",),
    ),
    CredentialPattern(
        "OpenAI/Anthropic-style secret key (sk-…)",
        r"(?P<value>"
        + _after("sk-")
        + r"(?:ant-(?:api|admin)\d\d-|proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,})",
        "value",
        lambda v: random_looking(v.split("-", 1)[1], min_len=20),
    ),
    CredentialPattern(
        "Stripe secret or restricted key",
        r"[sr]k_(?:live|test)_(?<![A-Za-z0-9][sr]k_...._)[A-Za-z0-9]{16,}",
        accept=_real,
        gate=("k_live_", "k_test_"),
    ),
    CredentialPattern("Stripe webhook signing secret", _after("whsec_") + r"[A-Za-z0-9+/=]{24,}"),
    CredentialPattern(
        "GitHub token",
        r"gh[pousr]_(?<![A-Za-z0-9]gh._)[A-Za-z0-9]{30,}|"
        + _after("github_pat_")
        + r"[A-Za-z0-9_]{40,}",
        accept=_real,
    ),
    CredentialPattern(
        "GitLab token",
        r"gl(?:pat|dt|rt|ptt|cbt|oas|soat|ft|imt|agent|ffct)-(?<![A-Za-z0-9]gl...-)"
        r"(?<![A-Za-z0-9]gl....-)(?<![A-Za-z0-9]gl.....-)[A-Za-z0-9_\-]{20,}",
        accept=_real,
    ),
    CredentialPattern(
        "Slack token",
        _after("xox") + r"[abposre]-(?:\d+-)?[A-Za-z0-9\-]{10,}|"
        r"xapp-(?<![A-Za-z0-9]xapp-)\d-[A-Z0-9]{6,}-\d{6,}-[A-Za-z0-9]{20,}",
        accept=lambda v: _real(v) and _slack_real(v),
    ),
    CredentialPattern(
        "Slack webhook URL",
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/]{20,}",
    ),
    CredentialPattern(
        "Discord webhook URL",
        r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_\-]{40,}",
    ),
    CredentialPattern(
        "Discord bot token",
        r"[MNO][A-Za-z0-9_\-]{23,27}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,40}" + _END,
        accept=lambda v: random_looking(v.rsplit(".", 1)[1], min_len=27),
    ),
    CredentialPattern(
        "Telegram bot token",
        r"(?<![0-9A-Za-z:])\d{8,10}:AA[A-Za-z0-9_\-]{33}(?![A-Za-z0-9_\-])",
        gate=(":AA",),
    ),
    CredentialPattern(
        "Google API key", _after("AIza") + r"[0-9A-Za-z_\-]{35}(?![\w-])", accept=_real
    ),
    CredentialPattern("Google OAuth client secret", _after("GOCSPX-") + r"[A-Za-z0-9_\-]{20,}"),
    CredentialPattern(
        "Azure storage account key",
        r"(?:AccountKey|SharedAccessKey|SharedSecret)=(?P<value>[A-Za-z0-9+/]{30,}={0,2})",
        "value",
        gate=("AccountKey=", "SharedAccessKey=", "SharedSecret="),
    ),
    CredentialPattern(
        "Azure shared access signature (sig=)",
        r"[?&;]sig=(?P<value>[A-Za-z0-9%+/=_\-]{30,})",  # base64, or base64url (Logic Apps)
        "value",
        gate=("sig=",),
    ),
    CredentialPattern(
        "credential in a URL query parameter",
        r"[?&](?:access_token|token|key|api_key|apikey|secret|signature|auth|password|sign)="
        r"(?P<value>[^&\s#\"'`)<>]{16,})",
        "value",
        lambda v: random_looking(v, min_len=16) or bool(re.fullmatch(r"[0-9a-f-]{32,}", v)),
        gate=("?",),
    ),
    CredentialPattern("Shopify token", r"shp(?:at|ca|pa|ss)_(?<![A-Za-z0-9]shp.._)[a-fA-F0-9]{32}"),
    CredentialPattern("DigitalOcean token", r"do[opr]_v1_(?<![A-Za-z0-9]do._v1_)[a-f0-9]{64}"),
    CredentialPattern("Databricks token", _after("dapi") + r"[a-f0-9]{32}(?:-\d)?" + _END),
    CredentialPattern(
        "Atlassian API token", r"AT[AC]TT3(?<![A-Za-z0-9]AT.TT3)[A-Za-z0-9_\-=]{150,}"
    ),
    CredentialPattern(
        "Notion token",
        r"(?P<value>"
        + _after("secret_")
        + r"[A-Za-z0-9]{43}"
        + _END
        + r"|"
        + _after("ntn_")
        + r"[A-Za-z0-9]{46}"
        + _END
        + ")",
        "value",
        lambda v: random_looking(v.split("_", 1)[1], min_len=40),
        gate=("secret_", "ntn_"),
    ),
    CredentialPattern("Postman API key", _after("PMAK-") + r"[a-f0-9]{24}-[a-f0-9]{34}"),
    CredentialPattern(
        "Linear API key", r"lin_(?:api|oauth)_(?<![A-Za-z0-9]lin_...._)[A-Za-z0-9]{40}"
    ),
    CredentialPattern(
        "Hugging Face token",
        r"(?:hf_(?<![A-Za-z0-9]hf_)|api_org_(?<![A-Za-z0-9]api_org_))[A-Za-z0-9]{30,}(?![\w-])",
        accept=lambda v: _real(v) and not _words(v.split("_")[-1]),
        gate=("hf_", "api_org_"),
    ),
    CredentialPattern("npm token", _after("npm_") + r"[A-Za-z0-9]{36}" + _END, accept=_real),
    CredentialPattern(
        "PyPI token",
        # a macaroon, 150 characters and more when issued (its signature comes last): one cut
        # under 70 after the prefix, detect-secrets' floor, is a fragment that opens nothing
        r"pypi-(?<![A-Za-z0-9]pypi-)(?:AgEIcHlwaS5vcmc|AgENdGVzdC5weXBpLm9yZw)[A-Za-z0-9_\-]{70,}",
    ),
    CredentialPattern(
        "SendGrid API key", _after("SG.") + r"[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}"
    ),
    CredentialPattern("Twilio API key", _after("SK") + r"[0-9a-f]{32}(?![\w-])"),
    CredentialPattern(
        "Mailgun API key",
        # 32 lower-case letters and digits, as Mailgun's own examples show them
        # ("key-3ax6xnjp29jd6fds4gc373sgvjxteol0"), not only hex
        _after("key-") + r"[0-9a-z]{32}(?![\w-])",
        accept=_mailgun_body,
        gate=("key-",),
    ),
    CredentialPattern(
        "Mailchimp API key",
        r"(?<![0-9a-f])[0-9a-f]{32}-us\d{1,2}" + _END,
        accept=_real,
        gate=("-us",),
    ),
    CredentialPattern(
        "Square token",
        r"sq0(?:atp|csp)-(?<![A-Za-z0-9]sq0...-)[0-9A-Za-z_\-]{22,43}|"
        + _after("EAAA")
        + r"[A-Za-z0-9_\-]{60}"
        + _END,
        accept=_real,
        gate=("sq0", "EAAA"),
    ),
    CredentialPattern(
        "Grafana token",
        _after("glsa_")
        + r"[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|"
        + _after("glc_")
        + r"[A-Za-z0-9+/]{32,}",
        accept=_real,
    ),
    CredentialPattern(
        "HashiCorp Vault token", r"hv[sbr]\.(?<![A-Za-z0-9]hv.\.)[A-Za-z0-9_\-]{24,}", accept=_real
    ),
    CredentialPattern(
        "Terraform Cloud token",
        r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_\-=]{60,}",
        accept=_real,
        gate=(".atlasv1.",),
    ),
    CredentialPattern(
        "Doppler token",
        r"dp\.(?<![A-Za-z0-9]dp\.)(?:st|ct|sa|scim|audit|pt)\.(?:[a-z0-9_\-]{2,35}\.)?"
        r"[A-Za-z0-9]{40,44}",
    ),
    CredentialPattern("age secret key", r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"),
    CredentialPattern(
        "Alibaba Cloud AccessKey id",
        _after("LTAI") + r"[A-Za-z0-9]{12,20}" + _END,
        accept=lambda v: random_looking(v[4:], min_len=12),
    ),
    CredentialPattern(
        "Tencent Cloud SecretId",
        _after("AKID") + r"[A-Za-z0-9]{13,40}" + _END,
        accept=lambda v: random_looking(v[4:], min_len=13),
    ),
    CredentialPattern("Groq API key", _after("gsk_") + r"[A-Za-z0-9]{48,}", accept=_real),
    CredentialPattern("Replicate API token", _after("r8_") + r"[A-Za-z0-9]{37}" + _END),
    CredentialPattern(
        "Perplexity API key", _after("pplx-") + r"[A-Za-z0-9]{48}" + _END, accept=_real
    ),
    CredentialPattern("xAI API key", _after("xai-") + r"[A-Za-z0-9]{70,}", accept=_real),
    CredentialPattern(
        "LangSmith API key", r"lsv2_(?<![A-Za-z0-9]lsv2_)(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}"
    ),
    CredentialPattern(
        "Sentry auth token",
        _after("sntrys_") + r"[A-Za-z0-9_=+/\-]{60,}|" + _after("sntryu_") + r"[a-f0-9]{64}",
        accept=_real,
    ),
    CredentialPattern("Supabase access token", _after("sbp_") + r"[a-f0-9]{40}" + _END),
    CredentialPattern("Figma token", _after("figd_") + r"[A-Za-z0-9_\-]{40,}"),
    CredentialPattern(
        "JSON Web Token",
        _after("eyJ") + r"[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
        accept=lambda v: _json_header(v.split(".", 1)[0]),
    ),
    CredentialPattern(
        "password in a connection URL",
        r"://(?P<value>[^\s:/@'\"`]+:[^\s@/'\"`]+)@[\w.\-]+",
        "value",
        lambda v: _url_password(*reversed(v.split(":", 1))),
    ),
    CredentialPattern(
        "Authorization header value",
        r"(?:bearer(?<![a-z0-9]bearer)|basic(?<![a-z0-9]basic)|token(?<![a-z0-9]token))\s+"
        r"(?P<value>[a-z0-9._~+/\-]{20,}=*)",
        "value",
        lambda v: random_looking(v, min_len=20),
        lowered=True,
        gate=("bearer", "basic", "token"),
    ),
    CredentialPattern(
        "secret given to a command-line flag",
        r"-(?<![\w-]-)-?(?:password|passwd|pass|token|api-key|secret|auth-token)"
        r"[ =][\"']?(?P<value>[^\s\"'`]+)",
        "value",
        lambda v: typed_secret(v.rstrip(".,:;)")),
        lowered=True,
        gate=("-pass", "-token", "-api-key", "-secret", "-auth"),
    ),
    CredentialPattern(
        "password in a mysql -p flag",
        r"(?:mysql|mysqldump|mysqladmin|mariadb)(?![a-z])[^\n`]*?\s-p(?P<value>[^\s\"'`]+)",
        "value",
        lambda v: typed_secret(v),
        gate=("mysql", "mariadb"),
    ),
    CredentialPattern(
        "password given to sshpass -p",
        r"sshpass\s+-p\s*[\"']?(?P<value>[^\s\"'`]+)",
        "value",
        lambda v: typed_secret(v),
        gate=("sshpass",),
    ),
    CredentialPattern(
        "password given to curl -u",
        # the user and the password may each be quoted: -u "user:pw", -u user:'pw'
        r"curl(?![a-z])[^\n`]*?\s(?:-u|--user)\s+[\"']?[^\s:\"']+[\"']?:[\"']?"
        r"(?P<value>[^\s\"'`]+)",
        "value",
        lambda v: typed_secret(v),
        gate=("curl",),
    ),
)
"""The formats whose examples are the project's own corpus (``tests/corpus/credentials``)."""

GITLEAKS_PATTERNS: tuple[CredentialPattern, ...] = (
    CredentialPattern(
        "Anthropic API key",
        _after("sk-ant-") + r"(?:api|admin)\d\d-[A-Za-z0-9_\-]{80,100}AA" + _END,
        accept=_real,
    ),
    CredentialPattern(
        "Artifactory API key", _after("AKCp") + r"[A-Za-z0-9]{69}" + _END, accept=_real
    ),
    CredentialPattern(
        "Clojars token",
        _after("clojars_") + r"[a-z0-9]{60}" + _END,
        lowered=True,
        gate=("clojars_",),
    ),
    CredentialPattern(
        "PlanetScale token",
        _after("pscale_") + r"(?:pw|oauth|tkn)_[A-Za-z0-9=._\-]{32,64}" + _END,
        accept=_real,
    ),
    CredentialPattern(
        "SettleMint token", _after("sm_") + r"(?:aat|pat|sat)_[A-Za-z0-9]{16}" + _END, accept=_real
    ),
    CredentialPattern(
        "Flutterwave key",
        _after("FLWSEC") + r"K(?:_TEST)?-[a-hA-H0-9]{12,32}(?:-X)?" + _END,
        accept=_real,
    ),
    CredentialPattern(
        "Amazon Bedrock API key",
        _after("ABSKQmVkcm9ja0FQSUtleS")
        + r"[A-Za-z0-9+/]{20,}={0,2}"
        + r"|"
        + _after("bedrock-api-key-")
        + r"[A-Za-z0-9+/]{20,}={0,2}",
        gate=("ABSKQmVkcm9ja0FQSUtleS", "bedrock-api-key-"),
    ),
    CredentialPattern(
        "Grafana API key (legacy)", _after("eyJrIjoi") + r"[A-Za-z0-9]{70,400}={0,3}", accept=_real
    ),
    CredentialPattern(
        "Microsoft Teams webhook URL",
        # the ids are UUIDs in issued URLs; any 36 characters of their alphabet in test ones
        r"https://[a-z0-9\-]+\.webhook\.office\.com/webhookb2/"
        r"[a-z0-9\-]{36}@[a-z0-9\-]{36}/incomingwebhook/[a-z0-9]{32}/[a-z0-9\-]{36}",
        lowered=True,
        gate=(".webhook.office.com/",),
    ),
    CredentialPattern(
        "Slack webhook URL (http or no scheme)",
        r"(?<![\w/])(?:https?://)?hooks\.slack\.com/(?:services|workflows|triggers)/"
        r"[A-Za-z0-9+/_]{30,}",
        accept=lambda v: "https://hooks" not in v,  # the https form is the row above
        gate=("hooks.slack.com",),
    ),
)
"""Provider prefixes taken from gitleaks' rule table (MIT licence), for keys whose body alone
does not look random enough to the label layer (one case, few digits). Their examples are the
peers' corpus (``tests/corpus/credentials/peers.jsonl``), not the project's own."""

PATTERNS: tuple[CredentialPattern, ...] = OWN_PATTERNS + GITLEAKS_PATTERNS
"""Every provider format and fixed-shape credential the guard knows, in one place."""
