"""Build the peers' credential corpus: the test cases of other secret scanners, held out.

The guard's own corpus (``tests/corpus/credentials``) grew with the guard, so its figures
flatter it. This script collects what other projects wrote to test their scanners, each case
with its source file, commit and licence:

- gitleaks (MIT): every rule's true and false positives in ``cmd/generate/config/rules``,
  the samples it generates (``GenerateSampleSecrets``, ``secrets.NewSecret(regex)``)
  reproduced here from the same regexes with a fixed seed;
- detect-secrets (Apache-2.0): ``tests/plugins/*_test.py`` parametrised payloads;
- secretlint (MIT): every rule's ``test/snapshots/{ng,ok}.*`` inputs, the secret spans taken
  from the snapshot's ``output.json``;
- trufflehog (AGPL-3.0): ``pkg/detectors/**/*_test.go`` pattern tests (``input``/``want``).

None of the registries ships these tests (detect-secrets' sdist and secretlint's npm packages
hold the code only; gitleaks and trufflehog are Go), so each source is read from a git
checkout given on the command line (a bare repository works too). The MIT and Apache cases
are written to ``tests/corpus/credentials/peers.jsonl``; trufflehog's AGPL cases go to
``peers-trufflehog.jsonl`` beside it, which git ignores (only its summary is committed)::

    python -m benchmarks.build_peer_corpus --gitleaks DIR --detect-secrets DIR \\
        --secretlint DIR --trufflehog DIR

A source left out keeps its file and its entry in ``peers-summary.json``: on a fresh
checkout ``--trufflehog DIR`` alone rebuilds the git-ignored file (its cases carry the Go
test's ``name`` as ``test``; ``git diff peers-summary.json`` shows whether the counts match).

``benchmarks/bench_peer_credentials.py`` embeds every case five ways and scores the guard.
"""

from __future__ import annotations

import argparse
import ast
import json
import random
import re
import string
import subprocess
import tomllib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "corpus" / "credentials"
OPEN_FILE, AGPL_FILE, SUMMARY_FILE = "peers.jsonl", "peers-trufflehog.jsonl", "peers-summary.json"
SEED = 2025


class Source:
    """A git checkout or bare repository, read at HEAD through ``git``."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.commit = self._git("rev-parse", "HEAD").strip()

    def _git(self, *args: str) -> str:
        out = subprocess.run(["git", "-C", self.root, *args], check=True, capture_output=True)
        return out.stdout.decode("utf-8", errors="replace")

    def files(self, pattern: str) -> list[str]:
        rx = re.compile(pattern)
        names = self._git("ls-tree", "-r", "--name-only", "HEAD").splitlines()
        return [n for n in names if rx.search(n)]

    def read(self, path: str) -> str:
        return self._git("show", f"HEAD:{path}")

    def where(self, path: str) -> str:
        return f"{path}@{self.commit[:12]}"


def case(
    peer: str, licence: str, source: str, rule: str, line: str, value: str | None
) -> dict[str, Any]:
    return {
        "peer": peer,
        "licence": licence,
        "source": source,
        "rule": rule,
        "secret": value is not None,
        "line": line,
        "value": value,
    }


# -- a regex-to-sample generator (gitleaks' secrets.NewSecret, reggen) -------------------------


def sample(regex: str, rng: random.Random) -> str:
    """One string the regex matches, drawn with ``rng`` (what gitleaks' reggen does)."""
    import re._parser as sre  # type: ignore[import-not-found]  # the stdlib regex parser

    return _emit(sre.parse(regex), rng)


_CATEGORY = {
    "CATEGORY_DIGIT": string.digits,
    "CATEGORY_WORD": string.ascii_letters + string.digits + "_",
    "CATEGORY_SPACE": " ",
    "CATEGORY_NOT_SPACE": string.ascii_letters + string.digits,
}


def _emit(parsed: Any, rng: random.Random) -> str:
    out = []
    for op, arg in parsed:
        name = str(op)
        if name == "LITERAL":
            out.append(chr(arg))
        elif name == "IN":
            out.append(rng.choice(_charset(arg)))
        elif name == "ANY":
            out.append(rng.choice(string.ascii_letters + string.digits))
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            lo, hi, sub = arg
            n = rng.randint(lo, min(hi, lo + 8)) if hi > lo else lo
            out.extend(_emit(sub, rng) for _ in range(n))
        elif name == "SUBPATTERN":
            out.append(_emit(arg[-1], rng))
        elif name == "BRANCH":
            out.append(_emit(rng.choice(arg[1]), rng))
        elif name == "CATEGORY":
            out.append(rng.choice(_CATEGORY.get(str(arg), string.ascii_letters)))
    return "".join(out)


def _charset(items: Any) -> str:
    chars: list[str] = []
    negate = False
    for op, arg in items:
        name = str(op)
        if name == "NEGATE":
            negate = True
        elif name == "LITERAL":
            chars.append(chr(arg))
        elif name == "RANGE":
            chars.extend(chr(c) for c in range(arg[0], arg[1] + 1))
        elif name == "CATEGORY":
            chars.extend(_CATEGORY.get(str(arg), string.ascii_letters))
    if negate:
        return "".join(c for c in string.ascii_letters + string.digits if c not in chars)
    return "".join(chars) or string.ascii_letters


# -- Go source: string expressions as gitleaks' and trufflehog's tests write them --------------

_GO_UTILS = {
    "Numeric": "[0-9]{%s}",
    "Hex": "[a-f0-9]{%s}",
    "AlphaNumeric": "[a-z0-9]{%s}",
    "AlphaNumericExtendedShort": "[a-z0-9_-]{%s}",
    "AlphaNumericExtended": "[a-z0-9=_\\-]{%s}",
    "AlphaNumericExtendedLong": "[a-z0-9\\/=_\\+\\-]{%s}",
}


class GoExpr:
    """Evaluate the string expressions Go tests build: literals, ``+``, ``fmt.Sprintf``,
    ``secrets.NewSecret(regex)``, gitleaks' ``utils`` character classes, known variables."""

    def __init__(self, text: str, pos: int, rng: random.Random, names: dict[str, str]) -> None:
        self.s, self.i, self.rng, self.names = text, pos, rng, names

    def _ws(self) -> None:
        while self.i < len(self.s) and self.s[self.i] in " \t\r\n":
            self.i += 1

    def expr(self) -> str:
        out = self.term()
        self._ws()
        while self.s.startswith("+", self.i):
            self.i += 1
            out += self.term()
            self._ws()
        return out

    def _args(self) -> list[str]:
        args: list[str] = []
        self._ws()
        while not self.s.startswith(")", self.i):
            args.append(self.expr())
            self._ws()
            if self.s.startswith(",", self.i):
                self.i += 1
                self._ws()
        self.i += 1
        return args

    def term(self) -> str:
        self._ws()
        s, i = self.s, self.i
        if s.startswith("`", i):
            end = s.index("`", i + 1)
            self.i = end + 1
            return s[i + 1 : end]
        if s.startswith('"', i):
            m = re.compile(r'"(?:[^"\\\n]|\\.)*"').match(s, i)
            if m is None:
                raise ValueError("unterminated string")
            self.i = m.end()
            return str(ast.literal_eval(m.group()))
        m = re.compile(r"[A-Za-z_][\w.]*").match(s, i)
        if m is None:
            raise ValueError(f"unsupported expression at {s[i : i + 30]!r}")
        name = m.group()
        self.i = m.end()
        if not s.startswith("(", self.i):
            if name in self.names:
                return self.names[name]
            raise ValueError(f"unknown name {name}")
        self.i += 1
        args = self._args()
        short = name.rsplit(".", 1)[-1]
        if short == "NewSecret":
            return sample(args[0], self.rng)
        if short in _GO_UTILS:
            return _GO_UTILS[short] % args[0]
        if short == "Hex8_4_4_4_12":
            return "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
        if short == "Sprintf":
            return args[0].replace("%%", "\0") % tuple(args[1:]) if len(args) > 1 else args[0]
        if short == "ToUpper":
            return args[0].upper()
        if short == "Repeat":
            return args[0] * int(args[1]) if args[1].isdigit() else args[0]
        raise ValueError(f"unsupported call {name}")


def _go_list(text: str, start: int) -> tuple[list[str], int]:
    """The raw element texts of a Go ``{…}`` literal starting at ``start`` (at ``{``)."""
    depth, i, items, cur = 0, start, [], start + 1
    while i < len(text):
        c = text[i]
        if c == "`":
            i = text.index("`", i + 1)
        elif c == '"':
            i = re.compile(r'"(?:[^"\\\n]|\\.)*"').match(text, i).end() - 1  # type: ignore[union-attr]
        elif c == "/" and text.startswith("//", i):
            i = text.find("\n", i)
        elif c in "({[":
            depth += 1
        elif c in ")}]":
            depth -= 1
            if depth == 0:
                items.append(text[cur:i])
                return [x for x in items if x.strip()], i + 1
        elif c == "," and depth == 1:
            items.append(text[cur:i])
            cur = i + 1
        i += 1
    return items, i


# -- gitleaks ------------------------------------------------------------------------------------


def _go_regex(pattern: str) -> re.Pattern[str] | None:
    """gitleaks' RE2 pattern in Python's dialect, or None where it cannot be translated."""
    p = pattern.replace(r"\z", r"\Z").replace("[[:alnum:]]", "[A-Za-z0-9]")
    p = p.replace("[:alnum:]", "A-Za-z0-9").replace("(?-i:", "(?-i:")
    flags = 0
    if p.startswith("(?i)"):
        p, flags = p[4:], re.IGNORECASE
    p = p.replace("(?i)", "")
    try:
        return re.compile(p, flags)
    except re.error:
        return None


def _secret_span(rx: re.Pattern[str] | None, group: int, line: str) -> tuple[int, int] | None:
    if rx is None:
        return None
    m = rx.search(line)
    if m is None:
        return None
    if group and group <= (rx.groups or 0) and m.group(group):
        return m.span(group)
    for g in range(1, (rx.groups or 0) + 1):
        if m.group(g):
            return m.span(g)
    return m.span()


def gitleaks(src: Source) -> Iterator[dict[str, Any]]:
    rules = {
        r["id"]: (_go_regex(r.get("regex", "")), int(r.get("secretGroup", 0)))
        for r in tomllib.loads(src.read("config/gitleaks.toml"))["rules"]
    }
    rng = random.Random(SEED)
    for path in src.files(r"^cmd/generate/config/rules/[^/]+\.go$"):
        text = src.read(path)
        for func in re.split(r"\nfunc ", text)[1:]:
            rid = re.search(r'RuleID:\s*"([^"]+)"', func)
            if rid is None or rid.group(1) not in rules:
                continue
            rule = rid.group(1)
            rx, group = rules[rule]
            for line, value in _gitleaks_cases(func, rx, group, rng):
                yield case("gitleaks", "MIT", src.where(path), rule, line, value)


def _gitleaks_cases(
    func: str, rx: re.Pattern[str] | None, group: int, rng: random.Random
) -> Iterator[tuple[str, str | None]]:
    names: dict[str, str] = {}
    for m in re.finditer(r'\n\s*(\w+)\s*:?=\s*(?=[`"])', func):
        try:
            names[m.group(1)] = GoExpr(func, m.end(), rng, names).expr()
        except (ValueError, IndexError):
            continue
    n = 0
    for m in re.finditer(r"Generate(?:Sample)?Secrets?\(", func):
        try:
            g = GoExpr(func, m.end(), rng, names)
            ident = g.expr()
            g._ws()
            g.i += 1  # the comma
            secret = g.expr()
        except (ValueError, IndexError):
            continue
        variants = _SAMPLE_FORMS
        line = variants[n % len(variants)].format(i=ident, I=ident.upper(), s=secret)
        n += 1
        yield line, secret
    for kind, at in _lists(func):
        items, _ = _go_list(func, at)
        for raw in items:
            try:
                line = GoExpr(raw, 0, rng, names).expr()
            except (ValueError, IndexError):
                continue
            if kind == "fps":
                yield line, None
                continue
            span = _secret_span(rx, group, line)
            if span is not None:
                yield line, line[span[0] : span[1]]


def _lists(func: str) -> Iterator[tuple[str, int]]:
    """``tps``/``fps`` lists: ``[]string{…}`` literals and ``append(tps, …)`` calls, by the
    offset of their opening bracket (an ``append``'s first element, the list, is skipped as
    a name :class:`GoExpr` does not know)."""
    for m in re.finditer(r"\b(tps|fps)\s*(?::=|=)\s*(?:append\(|\[\]string\{)", func):
        yield m.group(1), m.end() - 1


# Eight of the forms gitleaks' GenerateSampleSecrets writes each secret in, used in turn.
_SAMPLE_FORMS = (
    '{i}Token = "{s}"',
    "{i}_token: {s}",
    '{{\n    "{i}_token": "{s}"\n}}',
    'String {i}Token = "{s}";',
    "{i}Token := `{s}`",
    "{i}Token = '{s}'",
    '{I}_TOKEN := "{s}"',
    'System.setProperty("{I}_TOKEN", "{s}")',
)


# -- detect-secrets ------------------------------------------------------------------------------


def detect_secrets(src: Source) -> Iterator[dict[str, Any]]:
    for path in src.files(r"^tests/plugins/[^/]+_test\.py$"):
        tree = ast.parse(src.read(path))
        rule = path.rsplit("/", 1)[-1].removesuffix("_test.py")
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "parametrize"):
                continue
            if len(node.args) < 2 or not isinstance(node.args[1], ast.List | ast.Tuple):
                continue
            params = [p.strip() for p in ast.literal_eval(node.args[0]).split(",")]
            if "should_flag" not in params:
                continue
            payload = next(
                (params.index(p) for p in ("payload", "line", "token") if p in params), 0
            )
            for elt in node.args[1].elts:
                try:
                    values = ast.literal_eval(elt)
                except ValueError:
                    continue
                if not isinstance(values, tuple) or not isinstance(values[payload], str):
                    continue
                line, flag = values[payload], values[params.index("should_flag")]
                value = _longest_token(line) if flag else None
                if flag and not value:
                    continue
                yield case("detect-secrets", "Apache-2.0", src.where(path), rule, line, value)


def _longest_token(line: str) -> str:
    """The secret in a detect-secrets payload: its most random-looking run."""
    runs = re.findall(r"[^\s'\"`=:,;<>()\[\]{}]{8,}", line)
    if not runs:
        return line.strip()
    return max(runs, key=lambda r: (len(set(r)), len(r)))


# -- secretlint ----------------------------------------------------------------------------------


def secretlint(src: Source) -> Iterator[dict[str, Any]]:
    inputs = src.files(r"^packages/@secretlint/secretlint-rule-[^/]+/test/snapshots/[^/]+/input")
    for path in inputs:
        rule_dir, snap = path.split("/test/snapshots/")
        rule = rule_dir.rsplit("secretlint-rule-", 1)[-1]
        if rule.startswith(("preset-", "filter-", "pattern", "no-")):
            continue  # presets repeat the rules; no-dotenv / no-homedir / pattern are not secrets
        name = snap.split("/")[0]
        text = src.read(path)
        if name.startswith("ok."):
            for line in text.splitlines():
                if line.strip() and not line.lstrip().startswith(("#", "//")):
                    yield case("secretlint", "MIT", src.where(path), rule, line, None)
            continue
        if not name.startswith("ng."):
            continue
        out = json.loads(src.read(path.rsplit("/", 1)[0] + "/output.json"))
        for msg in out.get("messages", []):
            start, end = msg["range"]
            value = text[start:end]
            ls = text.rfind("\n", 0, start) + 1
            le = text.find("\n", end)
            line = text[ls : len(text) if le < 0 else le]
            yield case("secretlint", "MIT", src.where(path), rule, line, value)


# -- trufflehog ----------------------------------------------------------------------------------


def trufflehog(src: Source) -> Iterator[dict[str, Any]]:
    rng = random.Random(SEED)
    for path in src.files(r"^pkg/detectors/.+_test\.go$"):
        if "integration" in path:
            continue
        text = src.read(path)
        rule = path.split("/")[2]
        names: dict[str, str] = {}
        for m in re.finditer(r"(?m)^\s*(\w+)\s*(?::=|=)\s*(?=[`\"]|fmt\.Sprintf)", text):
            try:
                names[m.group(1)] = GoExpr(text, m.end(), rng, names).expr()
            except (ValueError, IndexError):
                continue
        for m in re.finditer(r"\binput:\s*", text):
            try:
                line = GoExpr(text, m.end(), rng, names).expr()
            except (ValueError, IndexError):
                continue
            nxt = re.compile(r"[^{}]*?\bwant:\s*").match(text, m.end())
            if nxt is None:
                continue
            tail = text[nxt.end() : nxt.end() + 12]
            test = _test_name(text, m.start())
            if tail.startswith(("nil", "[]string{}")):
                if _KEY_WITHOUT_CONTEXT.search(test):
                    # trufflehog's own words: a valid key its detector leaves out for want of
                    # context (its keyword too far away, its id missing); to a reader of a
                    # memory that is still the key, not a non-secret
                    continue
                yield case("trufflehog", "AGPL-3.0", src.where(path), rule, line, None) | {
                    "test": test
                }
                continue
            if not tail.startswith("[]string{"):
                continue
            items, _ = _go_list(text, text.index("{", nxt.end()))
            for raw in items:
                try:
                    want = GoExpr(raw, 0, rng, names).expr()
                except (ValueError, IndexError):
                    continue
                value = _in_input(want, line)
                if value:
                    yield case("trufflehog", "AGPL-3.0", src.where(path), rule, line, value) | {
                        "test": test
                    }


_KEY_WITHOUT_CONTEXT = re.compile(
    r"^valid pattern - (?:.*out of prefix range|only (?:api)?(?:key|secret)\b)"
)


def _test_name(text: str, at: int) -> str:
    """The ``name:`` of the Go test case whose ``input:`` is at ``at`` ("" when it has none)."""
    start = text.rfind("{", 0, at)
    m = re.compile(r'\bname:\s*"((?:[^"\\\n]|\\.)*)"').search(text, start, at)
    return m.group(1).lower() if m else ""


def _in_input(want: str, line: str) -> str | None:
    """The part of a trufflehog result found in the input (results join id and secret, with a
    separator or without one: ``<key><id>``)."""
    if want in line:
        return want
    parts = [p for p in re.split(r"[:;|,@\s]+", want) if len(p) >= 8 and p in line]
    if not parts:
        ends = [want[:n] for n in range(len(want) - 1, 7, -1) if want[:n] in line][:1]
        ends += [want[-n:] for n in range(len(want) - 1, 7, -1) if want[-n:] in line][:1]
        parts = ends
    return max(parts, key=len) if parts else None


# -- output --------------------------------------------------------------------------------------


def _dedupe(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each case once; a negative that holds a value its own suite calls a secret is dropped.

    trufflehog's negatives are mostly a valid key in a context its regex does not accept
    (``Used API_KEY=<the key from the positive case>``): to a reader that is still the key.
    """
    seen: set[tuple[str, str, str | None]] = set()
    secrets: dict[str, list[str]] = {}
    for c in cases:
        if c["secret"]:
            secrets.setdefault(c["source"], []).append(c["value"])
    out = []
    for c in cases:
        key = (c["peer"], c["line"], c["value"])
        if key in seen or not c["line"].strip() or len(c["line"]) > 4000:
            continue
        if not c["secret"] and any(v in c["line"] for v in secrets.get(c["source"], ())):
            continue
        seen.add(key)
        out.append(c)
    for n, c in enumerate(out):
        c["id"] = f"{c['peer']}/{c['rule']}/{n}"
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    for peer in ("gitleaks", "detect-secrets", "secretlint", "trufflehog"):
        ap.add_argument(f"--{peer}", metavar="DIR", help=f"a git checkout of {peer}")
    ap.add_argument("--out", default=str(CORPUS))
    args = ap.parse_args(argv)
    readers = {
        "gitleaks": gitleaks,
        "detect-secrets": detect_secrets,
        "secretlint": secretlint,
        "trufflehog": trufflehog,
    }
    open_cases: list[dict[str, Any]] = []
    agpl_cases: list[dict[str, Any]] = []
    sources: dict[str, str] = {}
    for peer, read in readers.items():
        root = getattr(args, peer.replace("-", "_"))
        if not root:
            continue
        src = Source(root)
        sources[peer] = src.commit
        (agpl_cases if peer == "trufflehog" else open_cases).extend(read(src))
    out = Path(args.out)
    # The peers not read this time keep their entries: trufflehog's file is git-ignored, so a
    # fresh checkout rebuilds it alone ("--trufflehog DIR") and the summary stays whole.
    old = out / SUMMARY_FILE
    kept = json.loads(old.read_text("utf-8")) if old.exists() else {"sources": {}, "peers": {}}
    summary: dict[str, Any] = {
        "sources": {k: v for k, v in kept["sources"].items() if k not in sources} | sources,
        "peers": {k: v for k, v in kept["peers"].items() if k not in sources},
    }
    for name, cases in ((OPEN_FILE, _dedupe(open_cases)), (AGPL_FILE, _dedupe(agpl_cases))):
        if not cases:
            continue
        with open(out / name, "w", encoding="utf-8") as f:
            for c in cases:
                f.write(json.dumps(c, ensure_ascii=False) + "\n")
        for (who, secret), n in Counter((c["peer"], c["secret"]) for c in cases).items():
            entry = summary["peers"].setdefault(who, {"secrets": 0, "non_secrets": 0})
            entry["secrets" if secret else "non_secrets"] += n
            entry["rules"] = len({c["rule"] for c in cases if c["peer"] == who})
            entry["licence"] = (
                cases[0]["licence"]
                if who == cases[0]["peer"]
                else entry.get("licence", next(c["licence"] for c in cases if c["peer"] == who))
            )
    (out / SUMMARY_FILE).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
