"""Row 11b: the credential guard on other scanners' test suites, held out, embedded five ways.

The cases come from ``benchmarks/build_peer_corpus.py`` (gitleaks, detect-secrets and
secretlint in ``tests/corpus/credentials/peers.jsonl``; trufflehog's, under the AGPL, only
where that script was run here). Every secret is written into a memory file six ways and
checked with :func:`memfs.credentials.find_credentials` (the check ``MemFS``'s write path
makes before it stores a memory):

- ``line``: the peer's own test line, as the memory's body;
- ``bare``: the value alone (most cannot be told from a hash without a label: reported, no
  target);
- ``prose``: an English sentence; ``prose_intl``: the same in German, Spanish, French or
  Russian;
- ``cjk``: a Chinese or Japanese sentence;
- ``frontmatter``: the value in the ``description:`` of the memory's frontmatter.

A secret counts as caught when a finding overlaps the value (the bare form: any finding).
A non-secret case (the peer's own false-positive tests) counts as a
false positive when its line, written as a memory body, is refused. Figures are per peer and
per embedding and never merged with the project's own corpus (row 11).

    python -m benchmarks.bench_peer_credentials [--sample N] [--misses FILE]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import zlib
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from memfs.credentials import find_credentials
from memfs.credentials.values import is_placeholder

from benchmarks.harness import Row

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "corpus" / "credentials"
FILES = ("peers.jsonl", "peers-trufflehog.jsonl")
RESULTS = Path(__file__).resolve().parent / "results"
EMBEDDINGS = ("line", "bare", "prose", "prose_intl", "cjk", "frontmatter")
TARGETS = {"prose": 0.9, "prose_intl": 0.9, "cjk": 0.9, "frontmatter": 0.9}
FP_TARGET = 0.02


HALVES = ("tuning", "held-out")


def half(c: dict[str, Any]) -> str:
    """``tuning`` or ``held-out``, by a fixed hash of the case's peer and rule.

    A whole rule falls in one half, so a provider format learnt from the tuning half's misses
    says nothing about the held-out half's figures: those are for formats nobody looked at.
    """
    return HALVES[zlib.crc32(f"{c['peer']}/{c['rule']}".encode()) % 2]


def load(files: tuple[str, ...] = FILES) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for name in files:
        path = CORPUS / name
        if path.exists():
            out.extend(json.loads(line) for line in path.read_text("utf-8").splitlines())
    return out


def _service(rule: str) -> str:
    """A readable service name from a rule id (``slack-bot-token`` → ``slack``)."""
    head = rule.replace("_", "-").split("-")[0]
    return head if head not in ("generic", "private", "jwt") else "staging"


_PROSE = (
    "The {svc} token is {v}",
    "my {svc} api key: {v} (keep it out of git)",
    "Note to self: the {svc} key is {v} for the nightly job.",
    "Use this {svc} secret when deploying: {v}",
)
_INTL = (
    ("de", "Der {svc}-Schlüssel lautet {v}"),
    ("es", "La clave de {svc} es {v}"),
    ("fr", "Le jeton {svc} est {v}"),
    ("ru", "Токен {svc}: {v}"),
)
_CJK = (
    ("zh", "{svc} 的密钥是 {v}，别外传"),
    ("zh", "{svc} 令牌：{v}"),
    ("ja", "{svc} のトークンは {v} です"),
    ("ja", "{svc} の API キー：{v}"),
)


def embed(c: dict[str, Any], how: str) -> tuple[str, str]:
    """(memory file text, language) for case ``c`` written the ``how`` way.

    The sentence is drawn with a seed of the case and the way, so a case reads the same in a
    half as in the whole corpus.
    """
    rng = random.Random(f"{c['id']}/{how}")
    v, svc = c["value"], _service(c["rule"])
    head = "---\nname: {n}\ndescription: {d}\ntype: reference\n---\n\n"
    if how == "line":
        return head.format(n=f"{svc} notes", d=f"{svc} setup") + c["line"] + "\n", "code"
    if how == "bare":
        return head.format(n=f"{svc} notes", d=f"{svc} setup") + v + "\n", "none"
    if how == "frontmatter":
        return head.format(n=f"{svc} access", d=f"{svc} API key {v}") + "Ask ops first.\n", "en"
    if how == "prose":
        body, lang = rng.choice(_PROSE), "en"
    elif how == "prose_intl":
        lang, body = rng.choice(_INTL)
    else:
        lang, body = rng.choice(_CJK)
    text = head.format(n=f"{svc} access", d=f"how to reach {svc}") + body.format(svc=svc, v=v)
    return text + "\n", lang


def _refused_at(text: str, value: str | None) -> bool:
    """Whether a finding overlaps ``value``'s first occurrence (any finding if ``None``)."""
    findings = find_credentials(text)
    if value is None:
        return bool(findings)
    at = text.find(value)
    if at < 0:
        return bool(findings)
    end = at + len(value)
    return any(f.start < end and f.end > at for f in findings)


def score(
    cases: list[dict[str, Any]], check: Callable[[str, str | None], bool] = _refused_at
) -> dict[str, Any]:
    recall: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    # The same, leaving out secrets whose value is a placeholder by the guard's own rule
    # (``sk_live_AAAA…``, ``AP6xxxxxxxxxx``, ``…fake…``): stored on purpose, so this shows
    # what the raw figure would be if the peers agreed; it never replaces the raw figure.
    real: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    by_lang: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    fp: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    # trufflehog's negatives its tests name "invalid pattern": mostly a key of the wrong
    # length, case or alphabet in a credential line, refused on purpose (its own figure)
    invalid_pattern = {True: [0, 0], False: [0, 0]}
    misses: list[dict[str, Any]] = []
    for c in cases:
        peer = c["peer"]
        if not c["secret"]:
            text = "---\nname: notes\ndescription: setup notes\ntype: reference\n---\n\n"
            flagged = _refused_at(text + c["line"] + "\n", None)
            for key in (peer, "all"):
                fp[key][0] += flagged
                fp[key][1] += 1
            klass = invalid_pattern[c.get("test", "").startswith("invalid pattern")]
            klass[0] += flagged
            klass[1] += 1
            if flagged:
                misses.append({"fp": c["id"], "line": c["line"][:300]})
            continue
        for how in EMBEDDINGS:
            text, lang = embed(c, how)
            hit = check(text, c["value"] if how != "bare" else None)
            for key in (peer, "all"):
                recall[key][how][0] += hit
                recall[key][how][1] += 1
            if not is_placeholder(c["value"]):
                real[how][0] += hit
                real[how][1] += 1
            if how in ("prose", "prose_intl", "cjk"):
                by_lang[lang][0] += hit
                by_lang[lang][1] += 1
            if not hit:
                misses.append({"miss": c["id"], "how": how, "text": text[-300:]})
    return {
        "recall": {p: {h: _rate(r) for h, r in t.items()} for p, t in sorted(recall.items())},
        "recall_by_language": {k: _rate(v) for k, v in sorted(by_lang.items())},
        "recall_without_placeholders": {h: _rate(real[h]) for h in EMBEDDINGS if h in real},
        "false_positives": {p: _rate(v) for p, v in sorted(fp.items())},
        "false_positives_invalid_pattern": _rate(invalid_pattern[True]),
        "false_positives_without_invalid_pattern": _rate(invalid_pattern[False]),
        "misses": misses,
    }


def _rate(hits_total: list[int]) -> dict[str, Any]:
    h, t = hits_total
    return {"hits": h, "total": t, "rate": round(h / t, 4) if t else 0.0}


def table(report: dict[str, Any]) -> Iterator[str]:
    yield "| peer | " + " | ".join(EMBEDDINGS) + " | false positives |"
    yield "|---|" + "---|" * (len(EMBEDDINGS) + 1)
    for peer, row in report["recall"].items():
        cells = [
            f"{row[h]['rate']:.1%} ({row[h]['total']})" if h in row else "—" for h in EMBEDDINGS
        ]
        f = report["false_positives"].get(peer, {"rate": 0.0, "hits": 0, "total": 0})
        yield (
            f"| {peer} | " + " | ".join(cells) + f" | {f['rate']:.1%} ({f['hits']}/{f['total']}) |"
        )


def peer_row() -> Row:
    """Row 11b for ``benchmarks/bench_credentials.py``: the peers' corpus, per embedding."""
    report = score(load())
    every = report["recall"].get("all", {})
    fp = report["false_positives"].get("all", {"rate": 0.0, "hits": 0, "total": 0})
    met = all(every.get(h, {"rate": 0})["rate"] >= t for h, t in TARGETS.items())
    return Row(
        id="11b",
        what="credential guard on other scanners' test suites (held out), per embedding",
        baseline="—",
        target="recall ≥ 90% in prose, CJK and frontmatter; FP ≤ 2%; bare values reported",
        measured="; ".join(f"{h} {every[h]['rate']:.1%}" for h in EMBEDDINGS if h in every)
        + f"; FP {fp['rate']:.1%} ({fp['hits']}/{fp['total']})",
        met=met and fp["rate"] <= FP_TARGET,
        note="Per peer: " + " ".join(table(report)),
        figures={k: v for k, v in report.items() if k != "misses"},
    )


def _met(report: dict[str, Any]) -> bool:
    every = report["recall"].get("all", {})
    fp = report["false_positives"].get("all", {"rate": 1.0})["rate"]
    return all(every.get(h, {"rate": 0})["rate"] >= t for h, t in TARGETS.items()) and (
        fp <= FP_TARGET
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--sample", type=int, default=0, help="score N cases drawn at random")
    ap.add_argument(
        "--misses", help="write every miss and false positive of the tuning half to this file"
    )
    ap.add_argument("--out", default=str(RESULTS))
    args = ap.parse_args(argv)
    cases = load()
    if args.sample:
        cases = random.Random(5).sample(cases, min(args.sample, len(cases)))
    reports = {"all": score(cases)}
    for name in HALVES:
        reports[name] = score([c for c in cases if half(c) == name])
    for name, report in reports.items():
        print(f"\n{name} ({sum(1 for c in cases if name == 'all' or half(c) == name)} cases)")
        for line in table(report):
            print(line)
        print(
            "recall by language (prose, prose_intl, cjk):",
            {k: v["rate"] for k, v in report["recall_by_language"].items()},
        )
        kept = report["recall_without_placeholders"]
        print(
            "recall leaving out the peers' placeholder secrets (all peers):",
            {h: f"{r['rate']:.1%} ({r['total']})" for h, r in kept.items()},
        )
        inv, rest = (
            report["false_positives_invalid_pattern"],
            report["false_positives_without_invalid_pattern"],
        )
        print(
            f"false positives on trufflehog's 'invalid pattern' cases {inv['rate']:.1%} "
            f"({inv['hits']}/{inv['total']}); on the rest {rest['rate']:.1%} "
            f"({rest['hits']}/{rest['total']})"
        )
        print("targets", "met" if _met(report) else "MISSED")
    if args.misses:
        Path(args.misses).write_text(
            "\n".join(json.dumps(m, ensure_ascii=False) for m in reports["tuning"]["misses"])
            + "\n",
            "utf-8",
        )
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stamp = dt.datetime.now(dt.UTC).date().isoformat()
    path = out / f"credentials-peers-{stamp}.json"
    written: dict[str, Any] = {
        "command": "python -m benchmarks.bench_peer_credentials"
        + (f" --sample {args.sample}" if args.sample else ""),
        "load_average": os.getloadavg()[0],
        "corpus": json.loads((CORPUS / "peers-summary.json").read_text("utf-8")),
    }
    written |= {
        name: {k: v for k, v in report.items() if k != "misses"} for name, report in reports.items()
    }
    path.write_text(json.dumps(written, indent=2) + "\n", "utf-8")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
