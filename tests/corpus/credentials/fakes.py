"""Format-valid fake credentials and public identifiers, from a seeded ``random.Random``.

Every value here is random: it has the shape a provider publishes (prefix, length, alphabet,
checksum where the format carries one) and was never issued by anyone. The public identifiers
(hashes, addresses, IDs) are random too; they are what the clean half of the corpus holds.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import random
import string

B62 = string.ascii_letters + string.digits
B64 = B62 + "+/"
B64URL = B62 + "-_"
HEX = "0123456789abcdef"
UPPER_NUM = string.ascii_uppercase + string.digits
BASE32 = string.ascii_uppercase + "234567"
BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


class Fakes:
    """Generators over one ``random.Random``; each method returns one fresh value."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    # -- building blocks -------------------------------------------------------------------------

    def r(self, alphabet: str, n: int) -> str:
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    def digits(self, n: int) -> str:
        return str(self.rng.randrange(1, 10)) + self.r(string.digits, n - 1)

    def b64_bytes(self, n: int) -> str:
        return base64.b64encode(self.rng.randbytes(n)).decode()

    def b64url_json(self, obj: dict) -> str:
        raw = json.dumps(obj, separators=(",", ":")).encode()
        return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()

    @staticmethod
    def base62_crc32(body: str) -> str:
        """The 6-character checksum GitHub and npm append: CRC32 of the body in base62."""
        n = binascii.crc32(body.encode())
        out = ""
        while n:
            n, d = divmod(n, 62)
            out = (string.digits + string.ascii_letters)[d] + out
        return out.rjust(6, "0")

    # -- credentials ----------------------------------------------------------------------------

    def aws_access_key_id(self) -> str:
        return self.rng.choice(["AKIA", "ASIA"]) + self.r(BASE32, 16)

    def aws_secret_access_key(self) -> str:
        return self.r(B64, 40)

    def github_classic(self) -> str:
        body = self.r(B62, 30)
        return (
            self.rng.choice(["ghp_", "gho_", "ghu_", "ghs_", "ghr_"])
            + body
            + self.base62_crc32(body)
        )

    def github_fine_grained(self) -> str:
        return "github_pat_" + self.r(B62, 22) + "_" + self.r(B62, 59)

    def gitlab(self) -> str:
        return self.rng.choice(["glpat-", "gldt-", "glrt-"]) + self.r(B64URL, 20)

    def slack_bot(self) -> str:
        return f"xoxb-{self.digits(11)}-{self.digits(13)}-{self.r(B62, 24)}"

    def slack_user(self) -> str:
        return f"xoxp-{self.digits(11)}-{self.digits(11)}-{self.digits(13)}-{self.r(HEX, 32)}"

    def slack_app(self) -> str:
        return f"xapp-1-A{self.r(UPPER_NUM, 10)}-{self.digits(13)}-{self.r(HEX, 64)}"

    def slack_webhook(self) -> str:
        return (
            f"https://hooks.slack.com/services/T{self.r(UPPER_NUM, 10)}/"
            f"B{self.r(UPPER_NUM, 10)}/{self.r(B62, 24)}"
        )

    def stripe_secret(self) -> str:
        return self.rng.choice(["sk_live_", "sk_test_"]) + self.r(B62, self.rng.choice([24, 99]))

    def stripe_restricted(self) -> str:
        return self.rng.choice(["rk_live_", "rk_test_"]) + self.r(B62, self.rng.choice([24, 99]))

    def stripe_webhook_secret(self) -> str:
        return "whsec_" + self.r(B62, 32)

    def openai(self) -> str:
        kind = self.rng.choice(["legacy", "proj", "svcacct"])
        if kind == "legacy":
            return "sk-" + self.r(B62, 20) + "T3BlbkFJ" + self.r(B62, 20)
        return f"sk-{kind}-" + self.r(B64URL, 58) + "T3BlbkFJ" + self.r(B64URL, 58)

    def anthropic(self) -> str:
        return "sk-ant-" + self.rng.choice(["api03", "admin01"]) + "-" + self.r(B64URL, 93) + "AA"

    def google_api_key(self) -> str:
        return "AIza" + self.r(B64URL, 35)

    def google_oauth_secret(self) -> str:
        return "GOCSPX-" + self.r(B64URL, 28)

    def azure_storage_connection(self) -> str:
        account = "plant" + self.r(string.ascii_lowercase + string.digits, 8)
        return (
            f"DefaultEndpointsProtocol=https;AccountName={account};"
            f"AccountKey={self.b64_bytes(64)};EndpointSuffix=core.windows.net"
        )

    def azure_sas_url(self) -> str:
        sig = self.b64_bytes(32).replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")
        account = "plant" + self.r(string.ascii_lowercase, 6)
        return (
            f"https://{account}.blob.core.windows.net/exports?sv=2022-11-02&ss=b&srt=sco"
            f"&sp=rl&se=2026-12-31T00:00:00Z&st=2026-07-01T00:00:00Z&spr=https&sig={sig}"
        )

    def telegram_bot(self) -> str:
        return f"{self.digits(self.rng.choice([9, 10]))}:AA{self.r(B64URL, 33)}"

    def discord_bot(self) -> str:
        user_id = self.digits(18)
        head = base64.b64encode(user_id.encode()).decode().rstrip("=")
        return f"{head}.{self.r(B64URL, 6)}.{self.r(B64URL, 38)}"

    def discord_webhook(self) -> str:
        return f"https://discord.com/api/webhooks/{self.digits(19)}/{self.r(B64URL, 68)}"

    def shopify(self) -> str:
        return self.rng.choice(["shpat_", "shpca_", "shppa_", "shpss_"]) + self.r(HEX, 32)

    def digitalocean(self) -> str:
        return self.rng.choice(["dop_v1_", "doo_v1_", "dor_v1_"]) + self.r(HEX, 64)

    def databricks(self) -> str:
        return "dapi" + self.r(HEX, 32) + self.rng.choice(["", "-2", "-3"])

    def atlassian(self) -> str:
        return "ATATT3xFfGF0" + self.r(B64URL, 170) + "=" + self.r(HEX.upper(), 8)

    def notion(self) -> str:
        if self.rng.random() < 0.5:
            return "secret_" + self.r(B62, 43)
        return "ntn_" + self.digits(11) + self.r(B62, 35)

    def postman(self) -> str:
        return f"PMAK-{self.r(HEX, 24)}-{self.r(HEX, 34)}"

    def linear(self) -> str:
        return "lin_api_" + self.r(B62, 40)

    def huggingface(self) -> str:
        return "hf_" + self.r(string.ascii_letters, 34)

    def npm(self) -> str:
        body = self.r(B62, 30)
        return "npm_" + body + self.base62_crc32(body)

    def pypi(self) -> str:
        return "pypi-AgEIcHlwaS5vcmc" + self.r(B64URL, 70)

    def sendgrid(self) -> str:
        return "SG." + self.r(B64URL, 22) + "." + self.r(B64URL, 43)

    def twilio(self) -> str:
        return "SK" + self.r(HEX, 32)

    def mailgun(self) -> str:
        return "key-" + self.r(HEX, 32)

    def mailchimp(self) -> str:
        return self.r(HEX, 32) + f"-us{self.rng.randrange(1, 21)}"

    def square(self) -> str:
        return self.rng.choice(["sq0atp-" + self.r(B64URL, 22), "sq0csp-" + self.r(B64URL, 43)])

    def grafana(self) -> str:
        return f"glsa_{self.r(B62, 32)}_{self.r(HEX, 8)}"

    def vault(self) -> str:
        return "hvs." + self.r(B64URL, 90)

    def terraform(self) -> str:
        return f"{self.r(B62, 14)}.atlasv1.{self.r(B62, 67)}"

    def doppler(self) -> str:
        return "dp.st." + self.rng.choice(["prd.", "dev.", ""]) + self.r(B62, 40)

    def age(self) -> str:
        return "AGE-SECRET-KEY-1" + self.r(BECH32.upper(), 58)

    def alibaba(self) -> str:
        return "LTAI" + self.r(B62, 20)

    def tencent(self) -> str:
        return "AKID" + self.r(B62, 32)

    def dingtalk_webhook(self) -> str:
        return f"https://oapi.dingtalk.com/robot/send?access_token={self.r(HEX, 64)}"

    def wecom_webhook(self) -> str:
        return f"https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key={self.uuid()}"

    def groq(self) -> str:
        return "gsk_" + self.r(B62, 52)

    def replicate(self) -> str:
        return "r8_" + self.r(B62, 37)

    def perplexity(self) -> str:
        return "pplx-" + self.r(B62, 48)

    def xai(self) -> str:
        return "xai-" + self.r(B62, 80)

    def langsmith(self) -> str:
        return f"lsv2_{self.rng.choice(['pt', 'sk'])}_{self.r(HEX, 32)}_{self.r(HEX, 10)}"

    def sentry(self) -> str:
        if self.rng.random() < 0.5:
            return "sntryu_" + self.r(HEX, 64)
        claims = self.b64url_json({"iat": 1767225600, "url": "https://sentry.io", "org": "plant-a"})
        return f"sntrys_{claims}_{self.r(B62, 43)}"

    def supabase(self) -> str:
        return "sbp_" + self.r(HEX, 40)

    def figma(self) -> str:
        return "figd_" + self.r(B64URL, 40)

    def jwt(self) -> str:
        head = self.b64url_json({"alg": "HS256", "typ": "JWT"})
        claims = self.b64url_json({"sub": self.digits(9), "iat": 1767225600, "role": "admin"})
        return f"{head}.{claims}.{self.r(B64URL, 43)}"

    def pem(self) -> str:
        label = self.rng.choice(
            [
                "RSA PRIVATE KEY",
                "OPENSSH PRIVATE KEY",
                "EC PRIVATE KEY",
                "PRIVATE KEY",
                "ENCRYPTED PRIVATE KEY",
                "PGP PRIVATE KEY BLOCK",
            ]
        )
        body = "\n".join(self.r(B64, 64) for _ in range(4))
        return f"-----BEGIN {label}-----\n{body}\n-----END {label}-----"

    def password(self) -> str:
        """A typed password: words, digits and a symbol, as password policies make people write."""
        word = self.rng.choice(
            ["Summer", "Winter", "Tiger", "Orchid", "Falcon", "Harbor", "Maple", "Violet"]
        )
        style = self.rng.randrange(4)
        if style == 0:
            return word + self.digits(4) + self.rng.choice("!@#$%&*?")
        if style == 1:
            return self.r(B62, 6) + self.rng.choice("!@#$%&*?-_") + self.r(B62, 6)
        if style == 2:
            return self.rng.choice("!@#") + word.lower() + self.digits(3) + word[:2].upper()
        return self.r(B62 + "!@#$%^&*", 16)

    def passphrase(self) -> str:
        words = self.rng.sample(
            [
                "correct",
                "horse",
                "battery",
                "staple",
                "orbit",
                "lantern",
                "pepper",
                "canyon",
                "velvet",
                "marble",
                "thunder",
                "quartz",
                "willow",
                "saddle",
                "cobalt",
                "meadow",
            ],
            4,
        )
        return self.rng.choice([" ", "-", "."]).join(words)

    def api_key_plain(self) -> str:
        return self.rng.choice([self.r(B62, 32), self.r(HEX, 32), self.r(B64URL, 40)])

    # -- public identifiers (the clean corpus) ----------------------------------------------------

    def sha1(self) -> str:
        return hashlib.sha1(self.rng.randbytes(16)).hexdigest()

    def sha256(self) -> str:
        return hashlib.sha256(self.rng.randbytes(16)).hexdigest()

    def short_sha(self) -> str:
        return self.sha1()[: self.rng.choice([7, 8, 10, 12])]

    def md5(self) -> str:
        return hashlib.md5(self.rng.randbytes(16)).hexdigest()

    def eth_address(self) -> str:
        """``0x`` + 40 hex, mixed case like an EIP-55 checksummed address (or all lowercase)."""
        body = self.r(HEX, 40)
        if self.rng.random() < 0.6:
            body = "".join(
                c.upper() if c.isalpha() and self.rng.random() < 0.5 else c for c in body
            )
        return "0x" + body

    def tx_hash(self) -> str:
        return "0x" + self.sha256()

    def btc_address(self) -> str:
        kind = self.rng.randrange(3)
        if kind == 0:
            return "1" + self.r(BASE58, 33)
        if kind == 1:
            return "3" + self.r(BASE58, 33)
        return "bc1q" + self.r(BECH32, 38)

    def solana_address(self) -> str:
        return self.r(BASE58, self.rng.choice([43, 44]))

    def uuid(self) -> str:
        h = self.r(HEX, 32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{self.rng.choice('89ab')}{h[17:20]}-{h[20:]}"

    def ulid(self) -> str:
        return self.rng.choice("01") + self.r(CROCKFORD, 25)

    def object_id(self) -> str:
        return self.r(HEX, 24)

    def ipfs_cid(self) -> str:
        if self.rng.random() < 0.5:
            return "Qm" + self.r(BASE58, 44)
        return "bafy" + self.r("abcdefghijklmnopqrstuvwxyz234567", 55)

    def gdrive_id(self) -> str:
        return "1" + self.r(B64URL, 43)

    def youtube_id(self) -> str:
        return self.r(B64URL, 11)

    def sri(self) -> str:
        return "sha512-" + base64.b64encode(hashlib.sha512(self.rng.randbytes(8)).digest()).decode()

    def ssh_fingerprint(self) -> str:
        digest = hashlib.sha256(self.rng.randbytes(8)).digest()
        return "SHA256:" + base64.b64encode(digest).decode().rstrip("=")

    def ssh_public_key(self) -> str:
        return "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + self.r(B64, 43) + " ops@bastion-1"

    def stripe_publishable(self) -> str:
        return self.rng.choice(["pk_live_", "pk_test_"]) + self.r(B62, 24)

    def k8s_pod(self) -> str:
        name = self.rng.choice(["api", "worker", "exporter", "spc-etl"])
        tail = self.r("bcdfghjklmnpqrstvwxz2456789", 5)
        return f"{name}-{self.r(HEX, 10)}-{tail}"

    def ticket(self) -> str:
        project = self.rng.choice(["OPS", "QA", "SEC", "MES", "SPC", "PLAT"])
        return f"{project}-{self.rng.randrange(10, 9999)}"

    def version(self) -> str:
        v = f"{self.rng.randrange(0, 5)}.{self.rng.randrange(0, 30)}.{self.rng.randrange(0, 20)}"
        return v + self.rng.choice(["", "", "-rc.1", "-beta.2", "+build.7", ".post1"])

    def date(self) -> str:
        return f"2026-{self.rng.randrange(1, 13):02d}-{self.rng.randrange(1, 29):02d}"

    def datetime(self) -> str:
        return (
            f"{self.date()}T{self.rng.randrange(24):02d}:{self.rng.randrange(60):02d}:"
            f"{self.rng.randrange(60):02d}Z"
        )

    def aws_account(self) -> str:
        return self.digits(12)

    def slack_channel(self) -> str:
        return "C0" + self.r(UPPER_NUM, 9)

    def hex32(self) -> str:
        return self.r(HEX, 32)

    def ipv4(self) -> str:
        return (
            f"10.{self.rng.randrange(256)}.{self.rng.randrange(256)}.{self.rng.randrange(1, 255)}"
        )
