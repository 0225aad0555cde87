"""The credential guard: real-format fake secrets are refused, prose about secrets is not.

The corpus is generated here from a fixed seed in the formats the providers publish (prefixes,
lengths, alphabets); none of these values is a real credential.
"""

from __future__ import annotations

import base64
import errno
import json
import random
import string
from pathlib import Path

import pytest
from memfs import InMemoryFileStore, MemFS
from memfs.credentials import (
    PATTERNS,
    CredentialRefusedError,
    check_credentials,
    find_credentials,
)
from memfs.manifest import AgentManifest
from memfs.tools import FileToolExecutor

from tests.conftest import TODAY

_REPO = Path(__file__).resolve().parents[1]

B62 = string.ascii_letters + string.digits
B64 = B62 + "+/"
B64URL = B62 + "-_"
HEX = "0123456789abcdef"
UPPER_NUM = string.ascii_uppercase + string.digits


def _r(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _b64url_json(obj: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()


def _pem(rng: random.Random, label: str) -> str:
    body = "\n".join(_r(rng, B64, 64) for _ in range(4))
    return f"-----BEGIN {label}-----\n{body}\n-----END {label}-----"


def _jwt(rng: random.Random) -> str:
    head = _b64url_json({"alg": "HS256", "typ": "JWT"})
    claims = _b64url_json({"sub": str(rng.randrange(10**9)), "iat": 1767225600})
    return f"{head}.{claims}.{_r(rng, B64URL, 43)}"


def fake_credentials(seed: int = 20261201) -> list[tuple[str, str]]:
    """(label, memory text) pairs, each holding one fake secret in the way agents write them."""
    rng = random.Random(seed)
    r = lambda alphabet, n: _r(rng, alphabet, n)  # noqa: E731
    secrets = [
        ("RSA private key", _pem(rng, "RSA PRIVATE KEY")),
        ("OpenSSH private key", _pem(rng, "OPENSSH PRIVATE KEY")),
        ("EC private key", _pem(rng, "EC PRIVATE KEY")),
        ("PKCS8 private key", _pem(rng, "PRIVATE KEY")),
        ("encrypted private key", _pem(rng, "ENCRYPTED PRIVATE KEY")),
        ("PGP private key", _pem(rng, "PGP PRIVATE KEY BLOCK")),
        ("AWS access key id", "AKIA" + r(UPPER_NUM, 16)),
        ("AWS temporary key id", "ASIA" + r(UPPER_NUM, 16)),
        ("AWS secret (env)", "AWS_SECRET_ACCESS_KEY=" + r(B64, 40)),
        ("AWS secret (ini)", "aws_secret_access_key = " + r(B64, 40)),
        ("AWS secret (prose)", "the AWS secret key is " + r(B64, 40)),
        ("OpenAI legacy key", "sk-" + r(B62, 48)),
        ("OpenAI project key", "sk-proj-" + r(B64URL, 74)),
        ("Anthropic key", "sk-ant-api03-" + r(B64URL, 93) + "AA"),
        ("Stripe live key", "sk_live_" + r(B62, 24)),
        ("Stripe restricted key", "rk_live_" + r(B62, 24)),
        ("GitHub classic PAT", "ghp_" + r(B62, 36)),
        ("GitHub OAuth token", "gho_" + r(B62, 36)),
        ("GitHub app token", "ghs_" + r(B62, 36)),
        ("GitHub fine-grained PAT", "github_pat_" + r(B62, 22) + "_" + r(B62, 59)),
        ("GitLab PAT", "glpat-" + r(B64URL, 20)),
        ("Slack bot token", f"xoxb-{rng.randrange(10**11)}-{rng.randrange(10**12)}-{r(B62, 24)}"),
        ("Slack user token", f"xoxp-{rng.randrange(10**11)}-{rng.randrange(10**11)}-{r(B62, 32)}"),
        (
            "Slack webhook",
            f"https://hooks.slack.com/services/T{r(UPPER_NUM, 8)}/B{r(UPPER_NUM, 8)}/{r(B62, 24)}",
        ),
        ("Google API key", "AIza" + r(B64URL, 35)),
        ("Google OAuth secret", "GOCSPX-" + r(B64URL, 28)),
        ("Hugging Face token", "hf_" + r(B62, 34)),
        ("npm token", "npm_" + r(B62, 36)),
        ("PyPI token", "pypi-AgEIcHlwaS5vcmc" + r(B64URL, 70)),
        ("SendGrid key", "SG." + r(B64URL, 22) + "." + r(B64URL, 43)),
        ("Twilio API key", "SK" + r(HEX, 32)),
        ("Mailgun key", "key-" + r(HEX, 32)),
        ("JWT", _jwt(rng)),
        ("bearer header", "Authorization: Bearer " + _jwt(rng)),
        ("bearer opaque token", "Authorization: Bearer " + r(B62, 40)),
        ("password= assignment", "password=" + r(B62, 10) + "!"),
        ("PASSWORD: yaml", 'PASSWORD: "' + r(B62, 12) + '"'),
        ("DB_PASSWORD env", "DB_PASSWORD=" + r(B62, 16)),
        ("api_key hex", "api_key: " + r(HEX, 32)),
        ("apiKey json", '{"apiKey": "' + r(B62, 32) + '"}'),
        ("client_secret", "client_secret = " + r(B64URL, 40)),
        ("postgres URL", f"postgres://app:{r(B62, 14)}@db.internal:5432/prod"),
        ("mongodb URL", f"mongodb+srv://admin:{r(B62, 18)}@cluster0.ab1cd.mongodb.net/app"),
        ("token: value", "token: " + r(B62, 40)),
        ("secret = value", "secret = " + r(B64, 32)),
        ("CLI flag", "run `deploy --password " + r(B62, 12) + "` to push"),
        ("high-entropy near word", "the staging key is " + r(B62, 32) + " (rotated monthly)"),
        ("Chinese password", "資料庫密碼：" + r(B62, 10) + "9!"),
        ("Chinese token", "API 令牌是 " + r(B62, 32)),
    ]
    out = []
    for label, secret in secrets:
        text = (
            "---\nname: deploy-notes\ndescription: How deploys reach the staging cluster\n"
            f"metadata:\n  type: project\n  recorded: {TODAY.isoformat()}\n---\n"
            "Deploys go through the staging cluster first.\n"
            f"{secret}\n"
            "**Why:** the user asked to keep this handy.\n"
        )
        out.append((label, text))
    return out


CORPUS = fake_credentials()
SECRET_NOTE = dict(CORPUS)["GitHub classic PAT"]

HARMLESS = [
    "The DB password is in 1Password, vault 'Prod', item 'orders-db'.",
    "password: stored in Vault at secret/data/prod/db — ask the user to fetch it",
    "api_key: kept in the ORDERS_API_KEY environment variable, never in files",
    "Use `export OPENAI_API_KEY=$(op read op://dev/openai/key)` before running.",
    "password: ${DB_PASSWORD}",
    "api_key = <your key here>",
    "token: ****",
    "The index costs about 5,860 tokens per turn (token budget: 6000).",
    "Primary key: (plant_id, line_id, day); the cache key is the sha256 of the query.",
    "cache key e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "Secret rotation is monthly; the fix is commit 3f9a2c1d4e5b6a7980f1e2d3c4b5a69788776655.",
    "Project key 123e4567-e89b-12d3-a456-426614174000 is the Jira board for line 3.",
    "The key insight: getUserCredentialsFromVault2 wraps the vault client.",
    "auth: handled by the SSO proxy; tokens expire after 8h",
    "The task-runner uses sk-learn style pipelines (scikit-learn), see memory/ml-setup.md",
    "Keys live in memory/feedback_index_not_column_2024.md and memory/user-role.md",
    "不要在記憶裡存 API key、密碼或 token；密碼放在公司的 Vault。",
    "密碼：請向 IT 申請，不要寫在這裡",
    "Connection: postgres://app:${PGPASSWORD}@db.internal:5432/prod",
    "docs at https://user@example.com/path and ssh git@github.com:org/repo.git",
]


def test_pattern_list_is_one_tuple_with_distinct_kinds():
    kinds = [p.kind for p in PATTERNS]
    assert len(kinds) == len(set(kinds)) >= 15


def test_corpus_is_large_and_varied():
    assert len(CORPUS) >= 40
    assert len({label for label, _ in CORPUS}) == len(CORPUS)


def test_at_least_95_percent_of_fake_credentials_are_refused():
    refused = [label for label, text in CORPUS if find_credentials(text)]
    missed = sorted({label for label, _ in CORPUS} - set(refused))
    assert len(refused) / len(CORPUS) >= 0.95, f"missed: {missed}"


@pytest.mark.parametrize(("label", "text"), CORPUS, ids=[label for label, _ in CORPUS])
def test_each_fake_credential_is_found_on_its_own_line(label, text):
    findings = find_credentials(text)
    assert findings, label
    assert {f.line for f in findings} <= {9, 10, 11, 12, 13, 14}


@pytest.mark.parametrize("text", HARMLESS)
def test_prose_about_secrets_is_not_refused(text):
    assert find_credentials(text) == []
    check_credentials("memory/x.md", text)  # does not raise


def test_no_false_positive_on_the_memory_prompt():
    """The prompt tells the agent never to store credentials, API keys or tokens."""
    from memfs import AgentManifest, memory_prompt

    text = memory_prompt(AgentManifest())
    assert "API key" in text or "token" in text
    assert find_credentials(text) == []


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_no_false_positive_on_the_generated_store(seed):
    from memfs.generator import generate_workspace

    unguarded = MemFS(InMemoryFileStore(), clock=lambda: TODAY, credential_guard=False)
    generate_workspace(unguarded, seed=seed)
    paths = unguarded.find("")
    assert len(paths) >= 262
    flagged = {p: find_credentials(unguarded.raw.cat_file(p).decode()) for p in paths}
    assert {p: f for p, f in flagged.items() if f} == {}
    # and the same store writes cleanly through the guarded filesystem
    guarded = MemFS(InMemoryFileStore(), clock=lambda: TODAY)
    generate_workspace(guarded, seed=seed)
    assert guarded.find("") == paths


def test_findings_never_echo_the_secret():
    text = SECRET_NOTE
    token = next(w for w in text.split() if w.startswith("ghp_"))
    (finding,) = find_credentials(text)
    assert token not in finding.preview and finding.preview.startswith("ghp_")
    assert text[finding.start : finding.end] == token
    with pytest.raises(CredentialRefusedError) as info:
        check_credentials("memory/deploy-notes.md", text)
    assert token not in str(info.value)


# -- the guard in the filesystem's write path ---------------------------------------------------


@pytest.fixture
def fs(memfs: MemFS) -> MemFS:
    return memfs


def test_memory_write_with_a_secret_is_refused_and_nothing_is_stored(fs):
    with pytest.raises(CredentialRefusedError) as info:
        fs.pipe_file("memory/deploy-notes.md", SECRET_NOTE.encode())
    err = info.value
    assert isinstance(err, PermissionError) and err.errno == errno.EACCES
    assert err.filename == "memory/deploy-notes.md"
    msg = str(err)
    assert "'memory/deploy-notes.md'" in msg
    assert "GitHub token" in msg and "line 9" in msg
    assert "store where it lives instead" in msg
    assert not fs.exists("memory/deploy-notes.md")


def test_refusal_leaves_the_previous_version_intact(fs):
    fs.pipe_file("memory/deploy-notes.md", b"---\nname: deploy-notes\n---\nuse the vault\n")
    before = fs.raw.cat_file("memory/deploy-notes.md")
    with pytest.raises(CredentialRefusedError):
        fs.pipe_file("memory/deploy-notes.md", SECRET_NOTE.encode())
    with pytest.raises(CredentialRefusedError), fs.open("memory/deploy-notes.md", "wb") as f:
        f.write(SECRET_NOTE.encode())
    assert fs.raw.cat_file("memory/deploy-notes.md") == before


@pytest.mark.parametrize(
    "path", ["MEMORY.md", "/MEMORY.md", "memory/deploy-notes.md", "memory/sub/deep.md"]
)
def test_every_memory_path_and_the_index_are_guarded(fs, path):
    with pytest.raises(CredentialRefusedError):
        fs.pipe_file(path, SECRET_NOTE.encode())


def test_copy_move_and_upload_into_memory_are_guarded(fs, tmp_path):
    fs.pipe_file("notes/deploy.txt", SECRET_NOTE.encode())  # not memory: allowed
    with pytest.raises(CredentialRefusedError):
        fs.cp_file("notes/deploy.txt", "memory/deploy.md")
    with pytest.raises(CredentialRefusedError):
        fs.mv("notes/deploy.txt", "memory/deploy.md")
    local = tmp_path / "upload.md"
    local.write_text(SECRET_NOTE)
    with pytest.raises(CredentialRefusedError):
        fs.put_file(str(local), "MEMORY.md")
    assert not fs.exists("memory/deploy.md") and not fs.exists("MEMORY.md")
    assert fs.exists("notes/deploy.txt")


@pytest.mark.parametrize("path", ["notes/deploy.md", "memoryX/deploy.md", "docs/MEMORY.md"])
def test_files_that_are_not_memory_are_not_guarded(fs, path):
    fs.pipe_file(path, SECRET_NOTE.encode())
    assert fs.raw.cat_file(path) == SECRET_NOTE.encode()


def test_guard_can_be_turned_off_and_views_keep_the_setting(store):
    off = MemFS(store, clock=lambda: TODAY, credential_guard=False)
    off.pipe_file("memory/deploy-notes.md", SECRET_NOTE.encode())
    assert off.raw.credential_guard is False
    assert off.raw.cat_file("memory/deploy-notes.md") == SECRET_NOTE.encode()
    on = MemFS(store, clock=lambda: TODAY)
    assert on.credential_guard is True
    assert on.raw.credential_guard is True and on.read_only().credential_guard is True
    with pytest.raises(CredentialRefusedError):
        on.raw.pipe_file("memory/other.md", SECRET_NOTE.encode())


def test_agent_write_tools_return_the_refusal_as_text(fs):
    from memfs.tools import FileToolExecutor

    tools = FileToolExecutor(fs)
    out = tools.execute("write_file", {"path": "memory/deploy-notes.md", "content": SECRET_NOTE})
    assert out.startswith("Error:") and "store where it lives instead" in out
    assert not fs.exists("memory/deploy-notes.md")
    fs.pipe_file("memory/deploy-notes.md", b"---\nname: deploy-notes\n---\ntoken: see vault\n")
    token = next(line for line in SECRET_NOTE.splitlines() if line.startswith("ghp_"))
    out = tools.execute(
        "edit_file",
        {"path": "memory/deploy-notes.md", "old_string": "see vault", "new_string": token},
    )
    assert out.startswith("Error:") and "credential" in out
    assert b"ghp_" not in fs.raw.cat_file("memory/deploy-notes.md")


def test_a_memory_path_next_to_a_credential_word_is_not_a_secret() -> None:
    """An index line of the 10,000-file generated store: a title about API keys, then its link."""
    line = "- [不要把憑證或 API key 寫進](memory/line3_prompt_9536.md) — The dashboard lives here"
    assert find_credentials(line) == []
    assert find_credentials("api key: aK9fQ2xL7mN4pR8sT1vW3yZ6") != []


# -- the guard's scope: the memory area (any extension), the index, context files, names ------


@pytest.mark.parametrize("path", ["memory/deploy.txt", "memory/progress.xml", "memory/a/b.json"])
def test_every_file_in_the_memory_area_is_guarded(fs, path):
    with pytest.raises(CredentialRefusedError):
        fs.pipe_file(path, SECRET_NOTE.encode())
    assert not fs.exists(path)


def test_is_guarded_names_the_memory_area_the_index_and_the_paths_given():
    fs = MemFS(InMemoryFileStore()).guarding(["notes/brief.md"])
    guarded = ["memory/a.md", "memory/deploy.txt", "MEMORY.md", "notes/brief.md"]
    assert [fs.is_guarded(p) for p in guarded] == [True] * 4
    assert not fs.is_guarded("notes/other.md") and not fs.is_guarded("src/app.py")
    off = MemFS(InMemoryFileStore(), credential_guard=False)
    assert not any(off.is_guarded(p) for p in guarded)


def test_a_secret_in_a_file_name_is_refused(fs):
    token = next(w for w in SECRET_NOTE.split() if w.startswith("ghp_"))
    with pytest.raises(CredentialRefusedError):
        fs.pipe_file(f"memory/{token}.md", b"---\nname: x\n---\nharmless\n")
    with pytest.raises(CredentialRefusedError):
        fs.makedirs(f"memory/{token}", exist_ok=True)
    assert fs.find("memory") == []


def test_manifest_context_files_get_the_guard_through_the_tools(fs):
    manifest = AgentManifest(context_files=["notes/brief.md"])
    ex = FileToolExecutor(fs, manifest)
    out = ex.execute("write_file", {"path": "notes/brief.md", "content": SECRET_NOTE})
    assert out.startswith("Error: Refused to write 'notes/brief.md'"), out
    assert not fs.exists("notes/brief.md")
    # a file no turn is shown stays unguarded
    assert ex.execute("write_file", {"path": "notes/other.md", "content": SECRET_NOTE}).startswith(
        "Created"
    )
