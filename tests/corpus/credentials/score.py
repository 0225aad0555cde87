"""Score a credential detector on the corpus: recall per format/language, false positives.

A secret counts as caught only when a finding overlaps its span (in the text, or in the path
for the file-name variant): refusing the file for some other reason is not credit. A clean
text counts as a false positive when any finding is reported for it or its path.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from tests.corpus.credentials.generate import CLEAN_FILE, SECRETS_FILE, load

Span = tuple[str, int, int]  # ("text" | "path", start, end)
Detector = Callable[[str, str], Iterable[Span]]
"""(path, text) → the spans it flags."""


def load_corpus() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    return load(SECRETS_FILE), load(CLEAN_FILE)


@dataclass
class Rate:
    hits: int = 0
    total: int = 0

    def add(self, hit: bool) -> None:
        self.hits += hit
        self.total += 1

    @property
    def rate(self) -> float:
        return self.hits / self.total if self.total else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"hits": self.hits, "total": self.total, "rate": round(self.rate, 4)}


@dataclass
class Score:
    recall: Rate = field(default_factory=Rate)
    fp: Rate = field(default_factory=Rate)
    by_format: dict[str, Rate] = field(default_factory=lambda: defaultdict(Rate))
    by_language: dict[str, Rate] = field(default_factory=lambda: defaultdict(Rate))
    by_variant: dict[str, Rate] = field(default_factory=lambda: defaultdict(Rate))
    by_shape: dict[str, Rate] = field(default_factory=lambda: defaultdict(Rate))
    fp_by_language: dict[str, Rate] = field(default_factory=lambda: defaultdict(Rate))
    missed: list[str] = field(default_factory=list)
    false_positives: list[str] = field(default_factory=list)

    def worst(self, table: dict[str, Rate], n: int = 3, *, high: bool = False) -> list[str]:
        ranked = sorted(table.items(), key=lambda kv: kv[1].rate if not high else -kv[1].rate)
        return [f"{k} {v.rate:.0%} ({v.hits}/{v.total})" for k, v in ranked[:n]]

    def as_dict(self) -> dict[str, Any]:
        def tab(t: dict[str, Rate]) -> dict[str, Any]:
            return {k: v.as_dict() for k, v in sorted(t.items())}

        return {
            "recall": self.recall.as_dict(),
            "false_positive_rate": self.fp.as_dict(),
            "recall_by_format": tab(self.by_format),
            "recall_by_language": tab(self.by_language),
            "recall_by_variant": tab(self.by_variant),
            "recall_by_shape": tab(self.by_shape),
            "false_positive_rate_by_language": tab(self.fp_by_language),
            "missed": self.missed,
            "false_positives": self.false_positives,
        }


def _overlaps(spans: Iterable[Span], where: str, start: int, end: int) -> bool:
    return any(w == where and s < end and e > start for w, s, e in spans)


def score(detect: Detector) -> Score:
    secrets, clean = load_corpus()
    out = Score()
    for r in secrets:
        spans = list(detect(r["path"], r["text"]))
        hit = _overlaps(spans, r["where"], *r["span"])
        out.recall.add(hit)
        out.by_format[r["format"]].add(hit)
        out.by_language[r["language"]].add(hit)
        out.by_variant[r["variant"]].add(hit)
        out.by_shape[r["shape"]].add(hit)
        if not hit:
            out.missed.append(r["id"])
    for r in clean:
        flagged = bool(list(detect(r["path"], r["text"])))
        out.fp.add(flagged)
        out.fp_by_language[r["language"]].add(flagged)
        if flagged:
            out.false_positives.append(r["id"])
    return out
