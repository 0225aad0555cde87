"""The live check's report: k/N per scenario and per class with Wilson 95% intervals.

Written three ways from the same numbers: ``report.json`` (the pydantic model), ``report.md``
(tables a README can quote) and ``chart.png`` (pass rate with its interval per scenario, and
what every sample turned into). A rate is never shown without its k/N.
"""

from __future__ import annotations

import datetime as dt
import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from memfs_eval.judge import CLASS_DESCRIPTIONS, OUTCOME_ORDER, Verdict
from memfs_eval.scenario import PASS_CLASS, Scenario

Z95 = 1.959963984540054


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for k successes in n trials; (0, 1) when n is 0."""
    if n < 0 or not 0 <= k <= n:
        raise ValueError(f"wilson() needs 0 <= k <= n, got k={k}, n={n}.")
    if n == 0:
        return 0.0, 1.0
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    low = 0.0 if k == 0 else max(0.0, centre - half)
    high = 1.0 if k == n else min(1.0, centre + half)
    return low, high


class Rate(BaseModel):
    k: int
    n: int
    rate: float | None
    ci_low: float
    ci_high: float

    @classmethod
    def of(cls, k: int, n: int) -> Rate:
        low, high = wilson(k, n)
        return cls(k=k, n=n, rate=(k / n if n else None), ci_low=low, ci_high=high)

    def cell(self) -> str:
        if not self.n:
            return "0/0"
        return f"{self.k}/{self.n} ({self.rate:.0%}, CI {self.ci_low:.0%}–{self.ci_high:.0%})"


class RunConfig(BaseModel):
    """How a run was made: enough to repeat it."""

    model: str
    model_note: str = Field(default="", description="what is behind the model string")
    n: int
    tools: str = "platform"
    prompt: str = "full"
    max_steps: int = 4
    max_tokens: int | None = 300
    temperature: float | None = None
    context_window: int | None = None
    api_base: str | None = None
    completion_args: dict[str, Any] = Field(default_factory=dict)
    llm_judge: str | None = None
    scenarios: list[str] = Field(default_factory=list)
    command: str = ""
    started: str = ""


class ScenarioSummary(BaseModel):
    id: str
    title: str
    lang: str
    kind: str
    pass_class: str
    passed: Rate
    errors: int = 0
    outcomes: dict[str, int] = Field(default_factory=dict)
    mean_elapsed_s: float | None = None


class ClassSummary(BaseModel):
    klass: str
    description: str
    hits: Rate = Field(description="samples that showed this class / samples it was checked on")
    primary: int = Field(description="samples whose outcome (most severe class) was this one")


class SampleLine(BaseModel):
    scenario_id: str
    sample: int
    outcome: str
    passed: bool
    flags: list[str]
    elapsed_s: float = 0.0
    tool_calls: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)


class EvalReport(BaseModel):
    config: RunConfig
    generated: str
    samples_done: int
    samples_planned: int
    overall: Rate
    scenarios: list[ScenarioSummary]
    classes: list[ClassSummary]
    samples: list[SampleLine]


def build_report(
    config: RunConfig,
    scenarios: list[Scenario],
    results: list[tuple[Verdict, float, list[str]]],
    *,
    now: dt.datetime,
) -> EvalReport:
    """Summarise judged samples: ``(verdict, elapsed_s, tool names)`` per sample.

    Samples whose run failed (``run_error``) are counted apart and left out of every rate:
    they say nothing about the model.
    """
    by_id = {s.id: s for s in scenarios}
    judged = [r for r in results if r[0].outcome != "run_error"]
    summaries: list[ScenarioSummary] = []
    for s in scenarios:
        mine = [r for r in results if r[0].scenario_id == s.id]
        ok = [r for r in mine if r[0].outcome != "run_error"]
        times = [e for _, e, _ in ok]
        summaries.append(
            ScenarioSummary(
                id=s.id,
                title=s.title,
                lang=s.lang,
                kind=s.kind,
                pass_class=s.pass_class,
                passed=Rate.of(sum(v.passed for v, _, _ in ok), len(ok)),
                errors=len(mine) - len(ok),
                outcomes=dict(Counter(v.outcome for v, _, _ in mine).most_common()),
                mean_elapsed_s=round(sum(times) / len(times), 1) if times else None,
            )
        )
    classes: list[ClassSummary] = []
    for klass in [*PASS_CLASS.values(), *OUTCOME_ORDER]:
        if klass == "run_error":
            continue
        if klass in PASS_CLASS.values():
            applicable = [v for v, _, _ in judged if by_id[v.scenario_id].pass_class == klass]
            k = sum(v.passed for v in applicable)
        else:
            applicable = [v for v, _, _ in judged if any(c.klass == klass for c in v.checks)]
            k = sum(klass in v.flags for v in applicable)
        if not applicable:
            continue
        classes.append(
            ClassSummary(
                klass=klass,
                description=CLASS_DESCRIPTIONS[klass],
                hits=Rate.of(k, len(applicable)),
                primary=sum(v.outcome == klass for v in applicable),
            )
        )
    return EvalReport(
        config=config,
        generated=now.isoformat(timespec="seconds"),
        samples_done=len(results),
        samples_planned=config.n * len(scenarios),
        overall=Rate.of(sum(v.passed for v, _, _ in judged), len(judged)),
        scenarios=summaries,
        classes=classes,
        samples=[
            SampleLine(
                scenario_id=v.scenario_id,
                sample=v.sample,
                outcome=v.outcome,
                passed=v.passed,
                flags=v.flags,
                elapsed_s=round(e, 1),
                tool_calls=names,
                notes=v.notes,
            )
            for v, e, names in results
        ],
    )


def scenario_table(report: EvalReport) -> str:
    rows = [
        "| scenario | kind | pass k/N | rate | Wilson 95% | outcomes |",
        "|---|---|---|---|---|---|",
    ]
    for s in report.scenarios:
        r = s.passed
        rate = f"{r.rate:.0%}" if r.rate is not None else "—"
        outcomes = ", ".join(f"{k} {v}" for k, v in s.outcomes.items()) or "—"
        rows.append(
            f"| {s.id} | {s.kind} | {r.k}/{r.n} | {rate} | {r.ci_low:.0%}–{r.ci_high:.0%} | "
            f"{outcomes} |"
        )
    return "\n".join(rows)


def class_table(report: EvalReport) -> str:
    rows = [
        "| class | meaning | samples showing it k/N | rate | Wilson 95% | as outcome |",
        "|---|---|---|---|---|---|",
    ]
    for c in report.classes:
        r = c.hits
        rate = f"{r.rate:.0%}" if r.rate is not None else "—"
        rows.append(
            f"| {c.klass} | {c.description} | {r.k}/{r.n} | {rate} | "
            f"{r.ci_low:.0%}–{r.ci_high:.0%} | {c.primary} |"
        )
    return "\n".join(rows)


def render_markdown(report: EvalReport) -> str:
    c = report.config
    partial = (
        f" — **partial: {report.samples_done} of {report.samples_planned} samples**"
        if report.samples_done < report.samples_planned
        else ""
    )
    o = report.overall
    lines = [
        f"# memfs eval — {c.model}{partial}",
        "",
        f"- model: `{c.model}`" + (f" — {c.model_note}" if c.model_note else ""),
        f"- generated: {report.generated}; run started: {c.started or '?'}",
        f"- command: `{c.command}`" if c.command else "- command: (not recorded)",
        f"- N per scenario: {c.n}; tools: {c.tools}; prompt: {c.prompt}; "
        f"max_steps: {c.max_steps}; max_tokens: {c.max_tokens}; temperature: "
        f"{c.temperature if c.temperature is not None else 'endpoint default'}; "
        f"context window: {c.context_window or 'not set'}"
        + (f"; completion args: {c.completion_args}" if c.completion_args else ""),
        f"- overall: {o.cell()} samples passed",
        "",
        "Each sample is judged by deterministic rules over the resulting files and the "
        "transcript; its outcome is the most severe failure class it showed, or the "
        "scenario's pass class. Run errors (endpoint failures) are listed but left out of "
        "every rate.",
        "",
        "## Per scenario",
        "",
        scenario_table(report),
        "",
        "## Per class",
        "",
        "*samples showing it* counts every sample the class was checked on and how many "
        "showed it (a sample can show several); *as outcome* counts the samples it was the "
        "most severe class of. For pass classes k is the passes.",
        "",
        class_table(report),
        "",
        "## Samples",
        "",
        "| scenario | # | outcome | flags | tool calls | s | notes |",
        "|---|---|---|---|---|---|---|",
    ]
    for s in report.samples:
        lines.append(
            f"| {s.scenario_id} | {s.sample} | {s.outcome} | {', '.join(s.flags) or '—'} | "
            f"{', '.join(s.tool_calls) or '—'} | {s.elapsed_s:.0f} | {'; '.join(s.notes)} |"
        )
    lines += ["", "Transcripts, files and verdicts per sample: `samples/<scenario>/<n>/`.", ""]
    return "\n".join(lines)


_PASS_COLOUR = "#2e7d32"


def render_chart(report: EvalReport, path: Path) -> None:
    """Two panels: pass rate with its Wilson interval per scenario; outcome mix per scenario."""
    import matplotlib
    import matplotlib.ticker

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [s for s in report.scenarios if s.passed.n or s.errors]
    if not rows:
        rows = report.scenarios
    labels = [f"{s.id}  {s.passed.k}/{s.passed.n}" for s in rows]
    height = max(2.5, 0.45 * len(rows) + 1.5)
    fig, (left, right) = plt.subplots(
        1, 2, figsize=(13, height), sharey=True, gridspec_kw={"width_ratios": [1, 1.3]}
    )
    ys = list(range(len(rows)))
    for y, s in zip(ys, rows, strict=True):
        r = s.passed
        if r.n:
            assert r.rate is not None
            left.errorbar(
                r.rate,
                y,
                xerr=[[r.rate - r.ci_low], [r.ci_high - r.rate]],
                fmt="o",
                color=_PASS_COLOUR,
                ecolor="#555555",
                capsize=4,
            )
        else:
            left.annotate("no samples", (0.02, y), va="center", fontsize=9, color="#999999")
    left.set_xlim(-0.02, 1.02)
    left.xaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
    left.set_yticks(ys, labels)
    left.invert_yaxis()
    left.set_xlabel("pass rate (dot), Wilson 95% interval (bar); label: passed/N")
    left.set_title("Pass rate per scenario")
    left.grid(axis="x", alpha=0.3)

    classes = [k for k in [*PASS_CLASS.values(), *OUTCOME_ORDER]]
    present = [k for k in classes if any(k in s.outcomes for s in rows)]
    cmap = plt.get_cmap("tab20")
    fails = [k for k in present if k not in PASS_CLASS.values()]
    colour = {
        k: (_PASS_COLOUR if k in PASS_CLASS.values() else cmap(fails.index(k) % 20))
        for k in present
    }
    lefts = [0] * len(rows)
    for k in present:
        counts = [s.outcomes.get(k, 0) for s in rows]
        right.barh(ys, counts, left=lefts, color=colour[k], label=k, edgecolor="white")
        lefts = [a + b for a, b in zip(lefts, counts, strict=True)]
    right.set_xlabel("samples")
    right.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    right.set_title("Outcome of every sample (most severe class)")
    if present:
        right.legend(loc="lower right", fontsize=8, framealpha=0.9)
    c = report.config
    fig.suptitle(
        f"memfs eval · {c.model} · tools={c.tools} · prompt={c.prompt} · "
        f"{report.samples_done}/{report.samples_planned} samples",
        fontsize=11,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_report(report: EvalReport, directory: Path) -> dict[str, Path]:
    """Write report.json, report.md and chart.png into ``directory``; return their paths."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = {
        "json": directory / "report.json",
        "markdown": directory / "report.md",
        "chart": directory / "chart.png",
    }
    paths["json"].write_text(
        json.dumps(report.model_dump(mode="json"), ensure_ascii=False, indent=2) + "\n",
        encoding="utf-8",
    )
    paths["markdown"].write_text(render_markdown(report), encoding="utf-8")
    render_chart(report, paths["chart"])
    return paths
