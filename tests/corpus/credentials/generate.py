"""Generate the labelled credential corpus: ``secrets.jsonl`` and ``clean.jsonl`` beside this file.

    uv run python -m tests.corpus.credentials.generate        # rewrite both files
    uv run python -m tests.corpus.credentials.generate --check  # exit 1 if they are stale

Every secret is a synthetic, format-valid fake from :mod:`.fakes` (random bodies with the
provider's prefix, length, alphabet and checksum); none was ever issued. Each secret record is
one memory file as an agent would write it: a language, a shape (how the secret sits in the
text: after a label, in a sentence, on the line under its label, in a table column, ...), and a
variant (plain, split by a zero-width character, written in fullwidth forms, or in the file
name). ``span`` is where the secret is, in ``text`` or, for the file-name variant, in ``path``.
Clean records are memories shaped like real ones (Chinese and English project notes with
hashes, addresses, IDs, tickets and dates), which the guard must store.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.corpus.credentials import clean_templates as ct
from tests.corpus.credentials.fakes import Fakes
from tests.corpus.credentials.languages import LANGUAGES, ORDER, Language

HERE = Path(__file__).resolve().parent
SECRETS_FILE = HERE / "secrets.jsonl"
CLEAN_FILE = HERE / "clean.jsonl"
SEED = 20261201
PER_FORMAT = 8
CLEAN_COUNT = 360

# Zero-width and other format characters (Unicode category Cf) an agent or a paste can leave
# inside a value; the guard must see through them.
FORMAT_CHARS = ("\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad")

PROVIDER = ("labelled", "bare", "env", "json", "table")
TYPED = ("inline", "prose", "prev_line", "table", "env")


@dataclass(frozen=True)
class Format:
    name: str
    make: Callable[[Fakes], str]
    shapes: tuple[str, ...]
    env: str = "API_TOKEN"
    label: str = "token"  # which label family the language uses: token, api_key, password
    file_safe: bool = False
    count: int = PER_FORMAT


FORMATS: tuple[Format, ...] = (
    Format("aws_access_key_id", Fakes.aws_access_key_id, PROVIDER, "AWS_ACCESS_KEY_ID", "api_key"),
    Format(
        "aws_secret_access_key",
        Fakes.aws_secret_access_key,
        ("aws_ini", "aws_env", "aws_prose"),
        "AWS_SECRET_ACCESS_KEY",
        "api_key",
    ),
    Format("github_token", Fakes.github_classic, PROVIDER, "GITHUB_TOKEN", file_safe=True),
    Format("github_fine_grained_pat", Fakes.github_fine_grained, PROVIDER, "GH_TOKEN"),
    Format("gitlab_token", Fakes.gitlab, PROVIDER, "GITLAB_TOKEN", file_safe=True),
    Format("slack_bot_token", Fakes.slack_bot, PROVIDER, "SLACK_BOT_TOKEN", file_safe=True),
    Format("slack_user_token", Fakes.slack_user, PROVIDER, "SLACK_USER_TOKEN"),
    Format("slack_app_token", Fakes.slack_app, PROVIDER, "SLACK_APP_TOKEN"),
    Format("slack_webhook", Fakes.slack_webhook, ("labelled", "bare", "env"), "SLACK_WEBHOOK_URL"),
    Format("stripe_secret_key", Fakes.stripe_secret, PROVIDER, "STRIPE_SECRET_KEY", "api_key"),
    Format("stripe_restricted_key", Fakes.stripe_restricted, PROVIDER, "STRIPE_KEY", "api_key"),
    Format("stripe_webhook_secret", Fakes.stripe_webhook_secret, PROVIDER, "STRIPE_WEBHOOK_SECRET"),
    Format("openai_api_key", Fakes.openai, PROVIDER, "OPENAI_API_KEY", "api_key"),
    Format("anthropic_api_key", Fakes.anthropic, PROVIDER, "ANTHROPIC_API_KEY", "api_key"),
    Format("google_api_key", Fakes.google_api_key, PROVIDER, "GOOGLE_API_KEY", "api_key", True),
    Format(
        "google_oauth_client_secret", Fakes.google_oauth_secret, PROVIDER, "GOOGLE_CLIENT_SECRET"
    ),
    Format(
        "azure_storage_account_key",
        Fakes.azure_storage_connection,
        ("labelled", "bare", "env"),
        "AZURE_STORAGE_CONNECTION_STRING",
        "api_key",
    ),
    Format("azure_sas_token", Fakes.azure_sas_url, ("labelled", "bare", "env"), "AZURE_SAS_URL"),
    Format("telegram_bot_token", Fakes.telegram_bot, PROVIDER, "TELEGRAM_BOT_TOKEN"),
    Format("discord_bot_token", Fakes.discord_bot, PROVIDER, "DISCORD_TOKEN"),
    Format(
        "discord_webhook", Fakes.discord_webhook, ("labelled", "bare", "env"), "DISCORD_WEBHOOK"
    ),
    Format("shopify_token", Fakes.shopify, PROVIDER, "SHOPIFY_ACCESS_TOKEN", file_safe=True),
    Format(
        "digitalocean_token", Fakes.digitalocean, PROVIDER, "DIGITALOCEAN_TOKEN", file_safe=True
    ),
    Format("databricks_token", Fakes.databricks, PROVIDER, "DATABRICKS_TOKEN", file_safe=True),
    Format("atlassian_api_token", Fakes.atlassian, PROVIDER, "JIRA_API_TOKEN"),
    Format("notion_token", Fakes.notion, PROVIDER, "NOTION_TOKEN", file_safe=True),
    Format("postman_api_key", Fakes.postman, PROVIDER, "POSTMAN_API_KEY", "api_key", True),
    Format("linear_api_key", Fakes.linear, PROVIDER, "LINEAR_API_KEY", "api_key", True),
    Format("huggingface_token", Fakes.huggingface, PROVIDER, "HF_TOKEN", file_safe=True),
    Format("npm_token", Fakes.npm, PROVIDER, "NPM_TOKEN", file_safe=True),
    Format("pypi_token", Fakes.pypi, PROVIDER, "PYPI_TOKEN"),
    Format("sendgrid_api_key", Fakes.sendgrid, PROVIDER, "SENDGRID_API_KEY", "api_key"),
    Format("twilio_api_key", Fakes.twilio, PROVIDER, "TWILIO_API_KEY", "api_key"),
    Format("mailgun_api_key", Fakes.mailgun, PROVIDER, "MAILGUN_API_KEY", "api_key"),
    Format("mailchimp_api_key", Fakes.mailchimp, PROVIDER, "MAILCHIMP_API_KEY", "api_key"),
    Format("square_token", Fakes.square, PROVIDER, "SQUARE_ACCESS_TOKEN"),
    Format("grafana_service_account_token", Fakes.grafana, PROVIDER, "GRAFANA_TOKEN"),
    Format("hashicorp_vault_token", Fakes.vault, PROVIDER, "VAULT_TOKEN"),
    Format("terraform_cloud_token", Fakes.terraform, PROVIDER, "TFE_TOKEN"),
    Format("doppler_token", Fakes.doppler, PROVIDER, "DOPPLER_TOKEN"),
    Format("age_secret_key", Fakes.age, ("labelled", "bare", "env"), "SOPS_AGE_KEY", "api_key"),
    Format(
        "alibaba_access_key_id", Fakes.alibaba, PROVIDER, "ALIBABA_CLOUD_ACCESS_KEY_ID", "api_key"
    ),
    Format("tencent_secret_id", Fakes.tencent, PROVIDER, "TENCENTCLOUD_SECRET_ID", "api_key"),
    Format("dingtalk_webhook", Fakes.dingtalk_webhook, ("labelled", "bare", "env"), "DINGTALK_URL"),
    Format("wecom_webhook", Fakes.wecom_webhook, ("labelled", "bare", "env"), "WECOM_WEBHOOK"),
    Format("groq_api_key", Fakes.groq, PROVIDER, "GROQ_API_KEY", "api_key", True),
    Format("replicate_api_token", Fakes.replicate, PROVIDER, "REPLICATE_API_TOKEN", file_safe=True),
    Format("perplexity_api_key", Fakes.perplexity, PROVIDER, "PERPLEXITY_API_KEY", "api_key", True),
    Format("xai_api_key", Fakes.xai, PROVIDER, "XAI_API_KEY", "api_key", True),
    Format("langsmith_api_key", Fakes.langsmith, PROVIDER, "LANGSMITH_API_KEY", "api_key", True),
    Format("sentry_auth_token", Fakes.sentry, PROVIDER, "SENTRY_AUTH_TOKEN"),
    Format(
        "supabase_access_token", Fakes.supabase, PROVIDER, "SUPABASE_ACCESS_TOKEN", file_safe=True
    ),
    Format("figma_token", Fakes.figma, PROVIDER, "FIGMA_TOKEN"),
    Format("jwt", Fakes.jwt, PROVIDER, "ACCESS_TOKEN"),
    Format("private_key", Fakes.pem, ("pem_bare", "pem_json"), "PRIVATE_KEY", "api_key"),
    # Labels are most of what held-out text showed missing: every shape in every language.
    Format("password", Fakes.password, (*TYPED, "slash"), "DB_PASSWORD", "password", count=60),
    Format(
        "passphrase", Fakes.passphrase, ("inline", "prose", "prev_line"), "", "password", count=20
    ),
    Format("generic_api_key", Fakes.api_key_plain, TYPED, "DD_API_KEY", "api_key", count=30),
    Format("connection_url_password", Fakes.password, ("url",), "DATABASE_URL", "password"),
    Format("authorization_header", Fakes.api_key_plain, ("bearer", "basic"), "", "token"),
    Format("cli_password_flag", Fakes.password, ("cli",), "", "password", count=15),
)


def _fullwidth(s: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in s)


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


class _Builder:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.fakes = Fakes(self.rng)
        self.index = 0  # the record's number within its format

    def pick(self, options: tuple[str, ...]) -> str:
        return self.rng.choice(options)

    def label(self, lang: Language, family: str) -> str:
        return self.pick(getattr(lang, family))

    def fill(self, template: str, lang: Language, family: str, v: str) -> str:
        label = self.label(lang, family)
        return template.format(label=label, Label=_cap(label), v=v)

    def placed(self, fmt: Format, lang: Language, shape: str, v: str) -> str:
        """The line(s) holding ``v`` in the given shape and language."""
        f = self.fakes
        if shape in ("inline", "prose", "prev_line", "slash", "labelled", "bare"):
            return self.fill(self.pick(getattr(lang, shape)), lang, fmt.label, v)
        if shape == "table":
            first, col = lang.table
            label = self.label(lang, fmt.label)
            col = col.format(label=label, Label=_cap(label))
            return (
                f"| {first} | {col} |\n| --- | --- |\n| staging | {v} |\n"
                if self.rng.random() < 0.5
                else f"| {first} | user | {col} | note |\n| --- | --- | --- | --- |\n"
                f"| staging | app | `{v}` | {f.date()} |\n"
            )
        if shape == "env":
            name = fmt.env or "SECRET"
            return self.pick(
                (
                    f"```bash\nexport {name}={v}\n```",
                    f"```\n{name}={v}\n```",
                    f'```yaml\n{name.lower()}: "{v}"\n```',
                )
            )
        if shape == "json":
            key = self.pick(("token", "apiKey", "access_token", "secret"))
            return f'```json\n{{"service": "export", "{key}": "{v}"}}\n```'
        if shape == "aws_ini":
            key_id = f.aws_access_key_id()
            return f"[default]\naws_access_key_id = {key_id}\naws_secret_access_key = {v}"
        if shape == "aws_env":
            return f"AWS_SECRET_ACCESS_KEY={v}"
        if shape == "aws_prose":
            return self.fill("AWS secret key ({label}): {v}", lang, "api_key", v)
        if shape == "pem_bare":
            return self.pick(lang.context) + "\n" + v
        if shape == "pem_json":
            body = v.replace("\n", "\\n")
            return (
                '```json\n{"type": "service_account", "project_id": "plant-a", '
                f'"private_key": "{body}\\n"}}\n```'
            )
        if shape == "url":
            scheme, host = self.rng.choice(
                (
                    ("postgres", "db.internal:5432/prod"),
                    ("mysql", "mysql.internal:3306/mes"),
                    ("mongodb+srv", "cluster0.ab1cd.mongodb.net/app"),
                    ("redis", "cache.internal:6379/0"),
                    ("amqp", "mq.internal:5672/%2F"),
                )
            )
            user = self.pick(("app", "admin", "spc_ro", "ops"))
            return self.pick(lang.context) + f" `{scheme}://{user}:{v}@{host}`"
        if shape == "bearer":
            return (
                f"```\ncurl -H 'Authorization: Bearer {v}' https://api.example.com/v1/export\n```"
            )
        if shape == "basic":
            return f"Authorization: Basic {v}"
        if shape == "cli":  # every tool in turn, so each has examples
            return (
                f"Run `deploy --password {v}` to push.",
                f"`mysql -u root -p{v} mes`",
                f"`sshpass -p '{v}' ssh ops@bastion`",
                f"`curl -u admin:{v} https://grafana.internal/api/health`",
                f"`psql --password={v} -h db.internal`",
            )[self.index % 5]
        raise ValueError(shape)

    def memory(self, lang: Language, body: str) -> str:
        f = self.fakes
        name = self.pick(("deploy-notes", "staging_access", "export-bot", "line3_ops", "ci-setup"))
        head = (
            f"---\nname: {name}\ndescription: {self.pick(lang.context)}\n"
            f"metadata:\n  type: {self.pick(('project', 'reference'))}\n"
            f"  recorded: {f.date()}\n---\n"
        )
        before = self.pick(lang.context)
        after = self.pick(lang.context)
        return f"{head}{before}\n\n{body}\n\n**Why:** {after}\n"

    def secret_record(self, i: int, fmt: Format, lang: Language, shape: str) -> dict[str, Any]:
        value = fmt.make(self.fakes)
        variant = "plain"
        roll = self.rng.random()
        if fmt.file_safe and roll < 0.15:
            variant = "file_name"
        elif roll < 0.25:
            variant = "zero_width"
        elif roll < 0.33 and shape not in ("pem_json",):
            variant = "fullwidth"
        shown = value
        if variant == "zero_width":
            chars = list(value)
            for _ in range(self.rng.choice((1, 1, 2))):
                chars.insert(self.rng.randrange(1, len(chars)), self.pick(FORMAT_CHARS))
            shown = "".join(chars)
        elif variant == "fullwidth":
            shown = _fullwidth(value)
        path = f"memory/{self.pick(('deploy-notes', 'staging', 'export-bot'))}.md"
        if variant == "file_name":
            path = f"memory/{self.pick(('token', 'deploy', 'ci'))}-{value}.md"
            body = self.pick(lang.context)
            text = self.memory(lang, body)
            start = path.index(value)
            return {
                "id": f"s{i:04d}",
                "format": fmt.name,
                "language": lang.code,
                "shape": "file_name",
                "variant": variant,
                "path": path,
                "text": text,
                "where": "path",
                "span": [start, start + len(value)],
            }
        body = self.placed(fmt, lang, shape, shown)
        text = self.memory(lang, body)
        if shape == "pem_json":
            shown = shown.replace("\n", "\\n")  # the key sits JSON-escaped on one line
        start = text.index(shown)
        return {
            "id": f"s{i:04d}",
            "format": fmt.name,
            "language": lang.code,
            "shape": shape,
            "variant": variant,
            "path": path,
            "text": text,
            "where": "text",
            "span": [start, start + len(shown)],
        }

    def secrets(self) -> list[dict[str, Any]]:
        out = []
        i = 0
        for n, fmt in enumerate(FORMATS):
            for k in range(fmt.count):
                self.index = k
                lang = LANGUAGES[ORDER[(n + k) % len(ORDER)]]
                shape = fmt.shapes[(k // len(ORDER) + k) % len(fmt.shapes)]
                out.append(self.secret_record(i, fmt, lang, shape))
                i += 1
        return out

    # -- clean -------------------------------------------------------------------------------------

    def slots(self) -> dict[str, Callable[[], str]]:
        f = self.fakes
        return {
            "sha40": f.sha1,
            "sha7": f.short_sha,
            "sha256": f.sha256,
            "md5": f.md5,
            "eth": f.eth_address,
            "tx": f.tx_hash,
            "btc": f.btc_address,
            "sol": f.solana_address,
            "uuid": f.uuid,
            "ulid": f.ulid,
            "oid": f.object_id,
            "cid": f.ipfs_cid,
            "gdrive": f.gdrive_id,
            "yt": f.youtube_id,
            "sri": f.sri,
            "ssh_fp": f.ssh_fingerprint,
            "ssh_pub": f.ssh_public_key,
            "pk": f.stripe_publishable,
            "pod": f.k8s_pod,
            "ticket": f.ticket,
            "version": f.version,
            "date": f.date,
            "datetime": f.datetime,
            "acct": f.aws_account,
            "chan": f.slack_channel,
            "hex32": f.hex32,
            "ip": f.ipv4,
            "n": lambda: str(self.rng.randrange(10, 9999)),
        }

    def render(self, template: str) -> str:
        slots = self.slots()

        class _Fresh(dict):
            def __missing__(self, key: str) -> str:
                return slots[key]()

        return template.format_map(_Fresh())

    def clean_record(self, i: int) -> dict[str, Any]:
        pool: tuple[str, ...]
        tables: tuple[str, ...]
        roll = self.rng.random()
        if roll < 0.38:
            lang, pool, tables = "en", ct.EN, ct.TABLES["en"]
        elif roll < 0.62:
            lang, pool, tables = "zh-Hant", ct.ZH_HANT, ct.TABLES["zh"]
        elif roll < 0.76:
            lang, pool, tables = "zh-Hans", ct.ZH_HANS, ct.TABLES["zh"]
        else:
            lang = self.pick(tuple(ct.OTHER))
            pool, tables = ct.OTHER[lang], ()
        f = self.fakes
        shape = "index" if self.rng.random() < 0.08 else "note"
        if shape == "index":
            lines = [
                self.render(self.pick(ct.INDEX_LINES)) for _ in range(self.rng.randrange(5, 15))
            ]
            return {
                "id": f"c{i:04d}",
                "language": lang,
                "shape": shape,
                "path": "MEMORY.md",
                "text": "\n".join(lines) + "\n",
            }
        k = self.rng.randrange(6, 14)
        parts = [self.render(t) for t in self.rng.sample(pool, min(k, len(pool)))]
        if tables and self.rng.random() < 0.3:
            parts.insert(self.rng.randrange(len(parts) + 1), self.render(self.pick(tables)))
        bullet = self.rng.random() < 0.4
        body = "\n".join(f"- {p}" if bullet and "\n" not in p else p for p in parts)
        session = f"originSessionId: {f.hex32()}\n" if self.rng.random() < 0.5 else ""
        text = (
            f"---\nname: note-{i}\ndescription: {parts[0][:80]}\nmetadata:\n"
            f"  type: {self.pick(('project', 'reference', 'feedback'))}\n  recorded: {f.date()}\n"
            f"{session}---\n{body}\n"
        )
        return {
            "id": f"c{i:04d}",
            "language": lang,
            "shape": shape,
            "path": f"memory/note-{i}.md",
            "text": text,
        }

    def clean(self) -> list[dict[str, Any]]:
        return [self.clean_record(i) for i in range(CLEAN_COUNT)]


def build(seed: int = SEED) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(secret records, clean records), the same for the same seed."""
    b = _Builder(seed)
    return b.secrets(), b.clean()


def dumps(records: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in records)


def load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if the files are stale")
    args = ap.parse_args(argv)
    secrets, clean = build()
    want = {SECRETS_FILE: dumps(secrets), CLEAN_FILE: dumps(clean)}
    if args.check:
        stale = [p.name for p, s in want.items() if not p.exists() or p.read_text("utf-8") != s]
        if stale:
            print(f"stale: {', '.join(stale)}; rerun without --check", file=sys.stderr)
            return 1
        return 0
    for path, text in want.items():
        path.write_text(text, encoding="utf-8")
    print(f"{len(secrets)} secrets in {len(FORMATS)} formats, {len(clean)} clean texts")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
