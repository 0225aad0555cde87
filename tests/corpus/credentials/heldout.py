"""A held-out check: sentences written after the guard was tuned, in phrasings the corpus lacks.

The corpus templates and the guard grew together, so the corpus figures flatter the guard.
These were written afterwards, from how people phrase things in chat, and scored once before
any change to the guard (the first-run figures are in docs/security/credentials.md). Values
come from :class:`~tests.corpus.credentials.fakes.Fakes`, so none is a real secret.
"""

from __future__ import annotations

import random

from tests.corpus.credentials.fakes import Fakes

SEED = 4242


def heldout() -> tuple[list[tuple[str, str]], list[str]]:
    """(secret sentences as (text, secret)), clean sentences."""
    f = Fakes(random.Random(SEED))
    pw = f.password
    secrets = [
        (f"ok so the wifi pw for the lab is {(v := pw())} fyi", v),
        (f"Remember: prod db creds → user spc_app, password {(v := pw())}", v),
        (f"Jenkins login is jenkins:{(v := pw())} (don't share)", v),
        (f"new root pass = {(v := pw())}", v),
        (f"The VPN passphrase: {(v := f.passphrase())}", v),
        (f"mysql root password was reset to {(v := pw())} yesterday", v),
        (f"SMTP:\n  user: alerts@plant-a.example\n  password: {(v := pw())}", v),
        (f"| system | login | pw |\n|---|---|---|\n| MES | ops | {(v := pw())} |", v),
        (f"Here's the OpenAI key the user pasted: {(v := f.openai())}", v),
        (f"stripe webhook: {(v := f.stripe_webhook_secret())}", v),
        (f"bot: {(v := f.telegram_bot())}", v),
        (f"Slack socket mode token {(v := f.slack_app())}", v),
        (
            "export DATABRICKS_HOST=https://adb-1.azuredatabricks.net "
            f"DATABRICKS_TOKEN={(v := f.databricks())}",
            v,
        ),
        (f"{(v := f.azure_storage_connection())}", v.split("AccountKey=")[1].split(";")[0]),
        (f"SAS link for the vendor: {(v := f.azure_sas_url())}", v.split("sig=")[1]),
        (f"use `{(v := f.github_classic())}` as GH_TOKEN in the action", v),
        (f"Notion integration secret is {(v := f.notion())}", v),
        (f"Linear: {(v := f.linear())}", v),
        (f"postman {(v := f.postman())}", v),
        (f"atlassian token for jira cloud {(v := f.atlassian())}", v),
        (f"DO token {(v := f.digitalocean())}", v),
        (f"shopify admin api: {(v := f.shopify())}", v),
        (f"discord bot {(v := f.discord_bot())}", v),
        (f"數據庫密碼是{(v := pw())}，別外傳", v),
        (f"帳號 admin 密碼 {(v := pw())}", v),
        (f"资料库的登录密码 {(v := pw())}", v),
        (f"Das WLAN-Passwort lautet {(v := pw())}", v),
        (f"Mi contraseña del servidor es {(v := pw())}", v),
        (f"mot de passe du NAS : {(v := pw())}", v),
        (f"サーバーのパスワード：{(v := pw())}", v),
        (f"서버 비밀번호: {(v := pw())}", v),
        (f"пароль от сервера {(v := pw())}", v),
        (f"senha do servidor: {(v := pw())}", v),
        (f"API key (staging)\n\n`{(v := f.api_key_plain())}`", v),
        (f"token\u200b: ghp_{(v := f.github_classic()[4:])}", v),
        (f"密碼：{(v := pw())}".replace(v, "".join(chr(ord(c) + 0xFEE0) for c in v)), ""),
        (f"Authorization: token {(v := f.api_key_plain())}", v),
        (f"curl -H 'X-API-Key: {(v := f.api_key_plain())}' https://api.vendor.example/v2", v),
        (f"DSN postgresql://report:{(v := pw())}@10.2.0.14/yield", v),
        (f"age key for sops: {(v := f.age())}", v),
    ]
    clean = [
        f"Deploy note: rolled back to {f.short_sha()} after the {f.date()} incident "
        f"(ticket {f.ticket()}).",
        f"The vesting contract lives at {f.eth_address()}; treasury multisig is {f.eth_address()}.",
        f"tx {f.tx_hash()} confirmed in block 19,204,117.",
        f"USDC mint on Solana: {f.solana_address()} (public).",
        f"Their BTC donation address: {f.btc_address()}",
        f"Artifact sha256 {f.sha256()}, signed with key id {f.uuid()}.",
        f"Container image ghcr.io/plant-a/spc@sha256:{f.sha256()}",
        f"Session {f.hex32()} crashed at {f.datetime()}.",
        "The password must be rotated every 90 days and stored in 1Password.",
        "Ask the user for the staging password; never write it down here.",
        "Tokens are minted by the SSO proxy and expire after 8h.",
        "API key: see the ORDERS_API_KEY secret in GitHub Actions.",
        "secret: use the value in Vault at kv/prod/orders (path only).",
        "password: (in the team vault, item 'MES read-only')",
        "The key takeaway is that Cpk must be computed per shift.",
        "Primary key is batch_id; foreign key line_id references lines(id).",
        "Key dates: 2026-07-01 freeze, 2026-07-15 release.",
        "token count went from 5,860 to 6,120 after the index grew.",
        f"Release v{f.version()} tagged at {f.sha1()}.",
        f"Mongo doc {f.object_id()} holds the golden batch.",
        f"Job id {f.ulid()} retried 3 times.",
        "The dashboard is https://grafana.plant-a.example/d/spc-overview?orgId=1&refresh=30s",
        "Use https://docs.google.com/document/d/1aB2cD3eF4gH5iJ6kL7mN8oP9qR0sT1uV2wX3yZ4aB5c/edit "
        "for the spec.",
        "Example from the docs: AKIAIOSFODNN7EXAMPLE / wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "Template: `export GITHUB_TOKEN=<token>` then run the script.",
        "OPENAI_API_KEY=sk-... goes in .env (never commit .env).",
        "密碼請到 1Password 的 Plant A 保險庫找，不要寫在記憶裡。",
        "金鑰每季輪替一次，負責人是資安組。",
        f"合約地址 {f.eth_address()}，部署在主網。",
        f"工單 {f.ticket()}：修正 token 計數，commit {f.short_sha()}。",
        "令牌過期時間是 8 小時。",
        "密钥放在 KMS 里，应用通过 IAM 角色读取。",
        "Passwort-Reset läuft über das Self-Service-Portal.",
        "La clave de API se pide al equipo de plataforma.",
        "Le jeton est renouvelé automatiquement chaque nuit.",
        "パスワードは管理者に確認してください。",
        "비밀번호는 관리자에게 문의하세요.",
        "Пароль спросите у дежурного админа.",
        f"SSH host key fingerprint {f.ssh_fingerprint()}",
        f"Public key for the deploy user: {f.ssh_public_key()}",
    ]
    return secrets, clean
