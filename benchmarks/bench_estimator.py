"""How far ``memfs.tokens.estimate_tokens`` is from real tokenizers, on memory-like text.

Corpus, all of it in this repository: the live check's scenarios (``adapters/memfs_eval/
scenarios/``, Chinese and English user messages), the documentation pages (``docs/**.md``,
English with code), each whole and by paragraph; the generated store (its ``MEMORY.md`` and all
261 memory files); the demo's memories. All of it was written for this project, so the figures
say how the estimator does on the project's own text, not on text from elsewhere.
Samples are grouped as *chinese* (CJK is at least half of the non-space characters),
*english* (no CJK) and *mixed*.

Reference tokenizers that work offline here: tiktoken's ``cl100k_base`` and ``o200k_base``
(from the cache litellm ships) and the DeepSeek-V3 BPE (``tokenizers`` JSON litellm ships; the
closest to Qwen's CJK-heavy vocabulary that installs offline). Errors are
``(estimate - real) / real``: positive means the estimate is safe for budgeting.

    .venv/bin/python benchmarks/bench_estimator.py [--fit]

writes ``benchmarks/results/estimator-<date>.json`` and prints the table. ``--fit`` also prints
least-squares weights per tokenizer (what ``memfs/tokens.py`` was calibrated from).
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.util
import json
import math
import os
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from memfs import InMemoryFileStore, MemFS  # noqa: E402
from memfs.generator import generate_workspace  # noqa: E402
from memfs.tokens import (  # noqa: E402
    DEFAULT_MARGIN_RATIO,
    char_classes,
    estimate_tokens,
)

Encoder = Callable[[str], int]
CLOCK_DATE = dt.date(2026, 12, 1)  # fixes the generated store's bytes


def litellm_tokenizer_dir() -> Path | None:
    """The tokenizer files litellm bundles, found without importing litellm (it goes online)."""
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return None
    d = Path(next(iter(spec.submodule_search_locations))) / "litellm_core_utils" / "tokenizers"
    return d if d.is_dir() else None


def _tiktoken_counter(enc: Any) -> Encoder:
    return lambda t: len(enc.encode(t, disallowed_special=()))


def reference_tokenizers() -> dict[str, Encoder]:
    found: dict[str, Encoder] = {}
    tokdir = litellm_tokenizer_dir()
    if tokdir is not None:
        os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(tokdir))
    try:
        import tiktoken

        for name in ("cl100k_base", "o200k_base"):
            try:
                enc = tiktoken.get_encoding(name)
            except Exception as e:  # not cached here and no network: skip, say so
                print(f"skip {name}: {type(e).__name__}", file=sys.stderr)
                continue
            found[name] = _tiktoken_counter(enc)
    except ImportError:
        print("skip tiktoken: not installed (uv sync --extra litellm)", file=sys.stderr)
    if tokdir is not None and (tokdir / "deepseek_tokenizer.json").is_file():
        try:
            from tokenizers import Tokenizer

            tk = Tokenizer.from_file(str(tokdir / "deepseek_tokenizer.json"))
            found["deepseek-v3"] = lambda t: len(tk.encode(t, add_special_tokens=False).ids)
        except ImportError:
            pass
    return found


def corpus() -> list[tuple[str, str]]:
    """(label, text) samples."""
    out: list[tuple[str, str]] = []
    texts = sorted((REPO / "adapters" / "memfs_eval" / "scenarios").glob("*.yaml"))
    texts += sorted((REPO / "docs").rglob("*.md"))
    for path in texts:
        doc = path.read_text(encoding="utf-8")
        name = path.relative_to(REPO).as_posix()
        out.append((f"doc:{name}", doc))
        for i, para in enumerate(re.split(r"\n\s*\n", doc)):
            if len(para.strip()) >= 80:
                out.append((f"doc-para:{name}:{i}", para))
    fs = MemFS(InMemoryFileStore(), clock=lambda: CLOCK_DATE)
    gen = generate_workspace(fs)
    out.append(("generated:MEMORY.md", fs.raw.cat_file("MEMORY.md").decode()))
    out += [(f"generated:{p}", fs.raw.cat_file(p).decode()) for p in gen.memory_paths]
    from memfs.commands.demo import INDEX, MEMORIES

    out += [(f"demo:{p}", t.replace("{old}", "2026-09-28")) for p, t in MEMORIES.items()]
    out.append(("demo:MEMORY.md", INDEX))
    return out


def naive_estimate(text: str) -> int:
    """Baseline: four characters a token, no CJK awareness."""
    return math.ceil(len(text) / 4)


def first_estimate(text: str) -> int:
    """Baseline: the first memfs estimate (one token per CJK character, four chars otherwise)."""
    cjk = char_classes(text)[0]
    return cjk + math.ceil((len(text) - cjk) / 4)


BASELINES: dict[str, Callable[[str], int]] = {
    "estimate_tokens": estimate_tokens,
    "first (cjk + chars/4)": first_estimate,
    "naive (chars/4)": naive_estimate,
}


def category(text: str) -> str:
    cjk, alnum, punct, _space, other = char_classes(text)
    visible = cjk + alnum + punct + other
    if cjk <= 0.01 * visible:
        return "english"
    return "chinese" if cjk >= 0.35 * visible else "mixed"


def summarise(est: list[int], real: list[int]) -> dict[str, float | int]:
    errs = [(e - r) / r for e, r in zip(est, real, strict=True) if r]
    abs_errs = sorted(abs(x) for x in errs)
    return {
        "samples": len(errs),
        "real_tokens": sum(real),
        "estimated_tokens": sum(est),
        "corpus_error": round((sum(est) - sum(real)) / sum(real), 4) if sum(real) else 0.0,
        "mean_abs_error": round(statistics.fmean(abs_errs), 4) if abs_errs else 0.0,
        "p90_abs_error": round(abs_errs[int(0.9 * (len(abs_errs) - 1))], 4) if abs_errs else 0.0,
        "within_margin_share": round(
            sum(x <= DEFAULT_MARGIN_RATIO for x in abs_errs) / len(abs_errs), 4
        )
        if abs_errs
        else 0.0,
    }


def fit(samples: list[tuple[str, str]], tokenizers: dict[str, Encoder]) -> dict[str, object]:
    """Least-squares class weights: non-CJK on English samples, then the CJK weight."""
    import numpy as np

    feats = np.array([char_classes(t) for _, t in samples], dtype=float)
    english = feats[:, 0] <= 0.01 * feats[:, [0, 1, 2, 4]].sum(axis=1)
    out: dict[str, object] = {}
    for name, enc in tokenizers.items():
        y = np.array([enc(t) for _, t in samples], dtype=float)
        w, *_ = np.linalg.lstsq(feats[english][:, 1:], y[english], rcond=None)
        cjk = feats[~english]
        rest = y[~english] - cjk[:, 1:] @ w
        cjk_w = float(rest @ cjk[:, 0] / (cjk[:, 0] @ cjk[:, 0]))
        out[name] = {
            "cjk_tokens_per_char": round(cjk_w, 3),
            "alnum_chars_per_token": round(1 / w[0], 2) if w[0] else None,
            "punct_tokens_per_char": round(float(w[1]), 3),
            "space_tokens_per_char": round(float(w[2]), 3),
            "other_tokens_per_char": round(float(w[3]), 3),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fit", action="store_true", help="print fitted weights per tokenizer")
    ap.add_argument("--out", default=str(REPO / "benchmarks" / "results"))
    args = ap.parse_args(argv)

    tokenizers = reference_tokenizers()
    if not tokenizers:
        print("No offline reference tokenizer found; install the litellm extra.", file=sys.stderr)
        return 2
    samples = corpus()
    estimates = [estimate_tokens(t) for _, t in samples]
    cats = [category(t) for _, t in samples]

    results: dict[str, dict[str, object]] = {}
    for name, enc in tokenizers.items():
        real = [enc(t) for _, t in samples]
        per: dict[str, object] = {"all": summarise(estimates, real)}
        for c in ("chinese", "mixed", "english"):
            idx = [i for i, k in enumerate(cats) if k == c]
            per[c] = summarise([estimates[i] for i in idx], [real[i] for i in idx])
        per["documents"] = {
            label: {"real": r, "estimate": e, "error": round((e - r) / r, 4)}
            for (label, _), e, r in zip(samples, estimates, real, strict=True)
            if label.startswith(("seed:", "doc:")) or label == "generated:MEMORY.md"
        }
        per["baselines"] = {
            b: summarise([f(t) for _, t in samples], real) for b, f in BASELINES.items()
        }
        results[name] = per

    # Speed: the estimator against the fastest reference, same texts, same run.
    texts = [t for _, t in samples]
    t0 = time.perf_counter()
    for t in texts:
        estimate_tokens(t)
    t_est = time.perf_counter() - t0
    speed: dict[str, float] = {}
    for name, enc in tokenizers.items():
        t0 = time.perf_counter()
        for t in texts:
            enc(t)
        speed[name] = round((time.perf_counter() - t0) / t_est, 2) if t_est else 0.0

    report: dict[str, object] = {
        "command": "python benchmarks/bench_estimator.py" + (" --fit" if args.fit else ""),
        "date": dt.date.today().isoformat(),
        "margin_ratio": DEFAULT_MARGIN_RATIO,
        "corpus": {
            "samples": len(samples),
            "characters": sum(len(t) for t in texts),
            "by_category": {c: cats.count(c) for c in ("chinese", "mixed", "english")},
        },
        "results": results,
        "tokenizer_time_over_estimator_time": speed,
    }
    if args.fit:
        report["fit"] = fit(samples, tokenizers)

    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"estimator-{report['date']}.json"
    path.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")

    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"estimate_tokens vs real tokenizers ({len(samples)} samples)")
    for col in ("tokenizer", "category", "n", "real", "estimate", "corpus err", "mean |err|",
                "p90 |err|", f"|err|≤{DEFAULT_MARGIN_RATIO:.0%}"):  # fmt: skip
        table.add_column(col, justify="right" if col not in ("tokenizer", "category") else "left")
    for name, per in results.items():
        for c in ("all", "chinese", "mixed", "english"):
            s = per[c]
            assert isinstance(s, dict)
            if not s["samples"]:
                continue
            table.add_row(
                name,
                c,
                str(s["samples"]),
                f"{s['real_tokens']:,}",
                f"{s['estimated_tokens']:,}",
                f"{s['corpus_error']:+.1%}",
                f"{s['mean_abs_error']:.1%}",
                f"{s['p90_abs_error']:.1%}",
                f"{s['within_margin_share']:.0%}",
            )
    console = Console(width=150)
    console.print(table)
    base = Table(title="against baselines, all samples (mean |err| ratio to estimate_tokens)")
    for col in ("tokenizer", "estimator", "corpus err", "mean |err|", "p90 |err|", "ratio"):
        base.add_column(col)
    for name, per in results.items():
        bl = per["baselines"]
        assert isinstance(bl, dict)
        ours = bl["estimate_tokens"]["mean_abs_error"] or 1e-9
        for b, s in bl.items():
            base.add_row(
                name,
                b,
                f"{s['corpus_error']:+.1%}",
                f"{s['mean_abs_error']:.1%}",
                f"{s['p90_abs_error']:.1%}",
                f"{s['mean_abs_error'] / ours:.2f}x",
            )
    console.print(base)
    docs = Table(title="whole documents")
    for col in ("document", *tokenizers):
        docs.add_column(col)
    first = next(iter(results.values()))["documents"]
    assert isinstance(first, dict)
    for label in first:
        row = [label]
        for name in tokenizers:
            d = results[name]["documents"]
            assert isinstance(d, dict)
            row.append(f"{d[label]['real']:,} real, est {d[label]['error']:+.1%}")
        docs.add_row(*row)
    console.print(docs)
    console.print(f"tokenizer time / estimator time: {speed}")
    if args.fit:
        console.print_json(data=report["fit"])
    console.print(f"wrote {path.relative_to(REPO) if path.is_relative_to(REPO) else path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
