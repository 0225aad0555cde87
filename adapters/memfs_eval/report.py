"""The live check's report: k/N per scenario and per class with Wilson 95% intervals.

Written three ways from the same numbers: ``report.json`` (the pydantic model), ``report.md``
(tables a README can quote) and ``chart.png`` (pass rate with its interval per scenario, and
what every sample turned into). A rate is never shown without its k/N. A run with several arms
also gets the arms side by side: pass rate, destroyed memories, no tool call and seconds per
sample, with the difference of rates against the baseline arm and against the arm before it,
each with Newcombe's 95% interval.
"""

from __future__ import annotations

import datetime as dt
import json
from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from memfs_eval.arms import Z95, Arm, Order, newcombe, wilson
from memfs_eval.judge import CLASS_DESCRIPTIONS, OUTCOME_ORDER, REPORTED_CLASSES, Verdict
from memfs_eval.scenario import PASS_CLASS, Scenario

__all__ = ["Z95", "wilson"]


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
    api_bases: list[str] = Field(
        default_factory=list,
        description="every endpoint the samples were spread over, one worker each, when several",
    )
    completion_args: dict[str, Any] = Field(default_factory=dict)
    llm_judge: str | None = None
    scenarios: list[str] = Field(default_factory=list)
    scenario_dir: str | None = Field(
        default=None, description="where the scenario files came from (default: the packaged)"
    )
    arms: list[Arm] = Field(
        default_factory=list,
        description="the arms, in the order they run; empty: one arm from prompt and tools, "
        "default levers",
    )
    baseline: str | None = Field(default=None, description="the arm others are compared with")
    order: Order = Field(
        default="interleaved",
        description="interleaved: a round of every arm and scenario at a time; blocks: every "
        "sample of one arm and scenario together",
    )
    notes: list[str] = Field(
        default_factory=list, description="what the person running it said about the run"
    )
    run_id: str = Field(
        default="",
        description="what each sample's seed is derived from (default: the run's folder)",
    )
    arm_dirs: bool = Field(
        default=False,
        description="samples are kept under their arm's folder: set by a run of several arms "
        "and kept by every resume, so a resume with fewer arms lays its samples out the same",
    )
    command: str = ""
    started: str = ""

    def run_arms(self) -> list[Arm]:
        """The arms this run takes samples under (one, named after the prompt, when unset)."""
        if self.arms:
            return list(self.arms)
        return [Arm(name="default", prompt=self.prompt, tools=self.tools)]  # type: ignore[arg-type]

    @property
    def arm_in_path(self) -> bool:
        """Whether samples live under their arm's folder: a run that has had several arms."""
        return self.arm_dirs or len(self.run_arms()) > 1

    def sample_root(self, arm: str) -> str:
        """The folder under ``samples/`` that holds an arm's samples ('' for a one-arm run)."""
        return arm if self.arm_in_path else ""

    def baseline_arm(self) -> str:
        return self.baseline or self.run_arms()[0].name


class ScenarioSummary(BaseModel):
    id: str
    arm: str = ""
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
    arm: str = ""
    written: list[str] = Field(default_factory=list)
    destroyed: list[str] = Field(default_factory=list)


class Difference(BaseModel):
    """This arm's rate minus another's, with Newcombe's 95% interval."""

    against: str
    diff: float
    ci_low: float
    ci_high: float

    def cell(self) -> str:
        return f"{self.diff:+.0%} ({self.ci_low:+.0%} to {self.ci_high:+.0%})"


ARM_CLASSES = (
    "valid_memory_file",
    "memory_destroyed",
    "claimed_write",
    "no_answer",
    "fabrication",
    "inversion",
    "echoed_context",
    "yaml_strict_invalid",
)
"""Classes counted per arm (over the samples each was checked on), each against the baseline."""


class ArmSummary(BaseModel):
    name: str
    description: str
    passed: Rate
    destroyed: Rate
    no_tool_call: Rate
    echoed: Rate = Field(default_factory=lambda: Rate.of(0, 0))
    """``echoed_context`` over the samples that were sent a block."""
    errors: int = 0
    mean_elapsed_s: float | None = None
    echoed_vs_baseline: Difference | None = None
    passed_vs_baseline: Difference | None = None
    passed_vs_previous: Difference | None = None
    destroyed_vs_baseline: Difference | None = None
    classes: dict[str, Rate] = Field(default_factory=dict)
    """Each of :data:`ARM_CLASSES`: samples that showed it / samples it was checked on."""
    classes_vs_baseline: dict[str, Difference] = Field(default_factory=dict)


class IdenticalReplies(BaseModel):
    """Samples of one arm and scenario whose first replies were byte-identical: at a sampling
    temperature that says the draws may not be independent (a server restoring a seed)."""

    arm: str
    scenario_id: str
    samples: list[int]

    def line(self) -> str:
        arm = f"{self.arm} " if self.arm else ""
        return f"{arm}{self.scenario_id}: samples {', '.join(f'#{i}' for i in self.samples)}"


def identical_replies(replies: dict[tuple[str, str, int], str]) -> list[IdenticalReplies]:
    """Groups of two or more samples (same arm and scenario) with the same non-empty first
    reply, from ``(arm, scenario, sample) → first reply``."""
    groups: dict[tuple[str, str, str], list[int]] = {}
    for (arm, scenario_id, sample), text in sorted(replies.items()):
        if text:
            groups.setdefault((arm, scenario_id, text), []).append(sample)
    return [
        IdenticalReplies(arm=arm, scenario_id=sid, samples=samples)
        for (arm, sid, _), samples in groups.items()
        if len(samples) > 1
    ]


class EvalReport(BaseModel):
    config: RunConfig
    generated: str
    samples_done: int
    samples_planned: int
    overall: Rate
    scenarios: list[ScenarioSummary]
    classes: list[ClassSummary]
    samples: list[SampleLine]
    arms: list[ArmSummary] = Field(default_factory=list)
    identical_replies: list[IdenticalReplies] = Field(default_factory=list)


Row = tuple[Verdict, float, list[str]]


def _hit(v: Verdict, klass: str) -> bool:
    return any(c.klass == klass and c.hit for c in v.checks)


def _scenario_summary(s: Scenario, mine: list[Row], arm: str) -> ScenarioSummary:
    ok = [r for r in mine if r[0].outcome != "run_error"]
    times = [e for _, e, _ in ok]
    return ScenarioSummary(
        id=s.id,
        arm=arm,
        title=s.title,
        lang=s.lang,
        kind=s.kind,
        pass_class=s.pass_class,
        passed=Rate.of(sum(v.passed for v, _, _ in ok), len(ok)),
        errors=len(mine) - len(ok),
        outcomes=dict(Counter(v.outcome for v, _, _ in mine).most_common()),
        mean_elapsed_s=round(sum(times) / len(times), 1) if times else None,
    )


def _difference(a: Rate, b: Rate, against: str) -> Difference | None:
    if not a.n or not b.n:
        return None
    d, low, high = newcombe(a.k, a.n, b.k, b.n)
    return Difference(against=against, diff=d, ci_low=low, ci_high=high)


def _class_rate(verdicts: list[Verdict], klass: str) -> Rate:
    checked = [v for v in verdicts if any(c.klass == klass for c in v.checks)]
    return Rate.of(sum(_hit(v, klass) for v in checked), len(checked))


def _arm_summaries(config: RunConfig, results: list[Row]) -> list[ArmSummary]:
    out: list[ArmSummary] = []
    for arm in config.run_arms():
        mine = [r for r in results if r[0].arm == arm.name]
        ok = [r for r in mine if r[0].outcome != "run_error"]
        times = [e for _, e, _ in ok]
        checked_calls = [v for v, _, _ in ok if any(c.klass == "no_tool_call" for c in v.checks)]
        sent_block = [v for v, _, _ in ok if any(c.klass == "echoed_context" for c in v.checks)]
        out.append(
            ArmSummary(
                name=arm.name,
                description=arm.describe(),
                passed=Rate.of(sum(v.passed for v, _, _ in ok), len(ok)),
                destroyed=Rate.of(sum(_hit(v, "memory_destroyed") for v, _, _ in ok), len(ok)),
                no_tool_call=Rate.of(
                    sum(_hit(v, "no_tool_call") for v in checked_calls), len(checked_calls)
                ),
                echoed=Rate.of(sum(_hit(v, "echoed_context") for v in sent_block), len(sent_block)),
                errors=len(mine) - len(ok),
                mean_elapsed_s=round(sum(times) / len(times), 1) if times else None,
                classes={k: _class_rate([v for v, _, _ in ok], k) for k in ARM_CLASSES},
            )
        )
    by_name = {a.name: a for a in out}
    base = by_name.get(config.baseline_arm())
    for prev, summary in zip([None, *out], out, strict=False):
        if base is not None and summary is not base:
            summary.passed_vs_baseline = _difference(summary.passed, base.passed, base.name)
            summary.destroyed_vs_baseline = _difference(
                summary.destroyed, base.destroyed, base.name
            )
            summary.echoed_vs_baseline = _difference(summary.echoed, base.echoed, base.name)
            for k, rate in summary.classes.items():
                if (d := _difference(rate, base.classes[k], base.name)) is not None:
                    summary.classes_vs_baseline[k] = d
        if prev is not None:
            summary.passed_vs_previous = _difference(summary.passed, prev.passed, prev.name)
    return out


def build_report(
    config: RunConfig,
    scenarios: list[Scenario],
    results: list[Row],
    *,
    now: dt.datetime,
    replies: dict[tuple[str, str, int], str] | None = None,
) -> EvalReport:
    """Summarise judged samples: ``(verdict, elapsed_s, tool names)`` per sample.

    Samples whose run failed (``run_error``) are counted apart and left out of every rate:
    they say nothing about the model. With several arms, every scenario is summarised per arm
    (``verdict.arm``) and the arms are compared.
    """
    by_id = {s.id: s for s in scenarios}
    judged = [r for r in results if r[0].outcome != "run_error"]
    arms = config.run_arms()
    several = len(arms) > 1
    summaries: list[ScenarioSummary] = []
    for arm in arms if several else arms[:1]:
        for s in scenarios:
            mine = [
                r
                for r in results
                if r[0].scenario_id == s.id and (not several or r[0].arm == arm.name)
            ]
            summaries.append(_scenario_summary(s, mine, arm.name if several else ""))
    classes: list[ClassSummary] = []
    for klass in [*PASS_CLASS.values(), *OUTCOME_ORDER, *REPORTED_CLASSES]:
        if klass == "run_error":
            continue
        if klass in PASS_CLASS.values():
            applicable = [v for v, _, _ in judged if by_id[v.scenario_id].pass_class == klass]
            k = sum(v.passed for v in applicable)
        else:
            applicable = [v for v, _, _ in judged if any(c.klass == klass for c in v.checks)]
            k = sum(_hit(v, klass) for v in applicable)
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
        samples_planned=config.n * len(scenarios) * len(arms),
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
                arm=v.arm,
                written=v.written,
                destroyed=v.destroyed,
            )
            for v, e, names in results
        ],
        arms=_arm_summaries(config, results) if several else [],
        identical_replies=identical_replies(replies or {}),
    )


def arm_table(report: EvalReport) -> str:
    """The arms side by side; differences are of pass rates unless the column says otherwise."""
    base = report.config.baseline_arm()
    rows = [
        f"| arm | what it ran | pass k/N (Wilson 95%) | vs {base} (Newcombe 95%) | vs previous arm "
        f"| memory_destroyed k/N | destroyed vs {base} | no_tool_call k/N "
        f"| echoed_context k/N | echoed vs {base} | s/sample | errors |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]

    def cell(d: Difference | None, *, name: bool = False) -> str:
        if d is None:
            return "—"
        return f"{d.cell()} vs {d.against}" if name else d.cell()

    for a in report.arms:
        rows.append(
            f"| {a.name} | {a.description} | {a.passed.cell()} | {cell(a.passed_vs_baseline)} | "
            f"{cell(a.passed_vs_previous, name=True)} | {a.destroyed.k}/{a.destroyed.n} | "
            f"{cell(a.destroyed_vs_baseline)} | {a.no_tool_call.k}/{a.no_tool_call.n} | "
            f"{a.echoed.k}/{a.echoed.n} | {cell(a.echoed_vs_baseline)} | "
            f"{a.mean_elapsed_s if a.mean_elapsed_s is not None else '—'} | {a.errors} |"
        )
    return "\n".join(rows)


def arm_class_table(report: EvalReport) -> str:
    """One row per class of :data:`ARM_CLASSES`, one column per arm: k/N, and against the
    baseline the difference with Newcombe's 95% interval."""
    base = report.config.baseline_arm()
    rows = [
        "| class | " + " | ".join(a.name for a in report.arms) + " |",
        "|---" * (len(report.arms) + 1) + "|",
    ]
    for klass in ARM_CLASSES:
        cells = []
        for a in report.arms:
            rate = a.classes.get(klass, Rate.of(0, 0))
            vs = a.classes_vs_baseline.get(klass)
            cells.append(f"{rate.k}/{rate.n}" + (f" ({vs.cell()} vs {base})" if vs else ""))
        rows.append(f"| {klass} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def scenario_table(report: EvalReport) -> str:
    arm_col = any(s.arm for s in report.scenarios)
    head = "| arm | scenario |" if arm_col else "| scenario |"
    rows = [
        f"{head} kind | pass k/N | rate | Wilson 95% | outcomes |",
        "|---" * (6 + arm_col) + "|",
    ]
    for s in report.scenarios:
        r = s.passed
        rate = f"{r.rate:.0%}" if r.rate is not None else "—"
        outcomes = ", ".join(f"{k} {v}" for k, v in s.outcomes.items()) or "—"
        lead = f"| {s.arm} | {s.id} |" if arm_col else f"| {s.id} |"
        rows.append(
            f"{lead} {s.kind} | {r.k}/{r.n} | {rate} | {r.ci_low:.0%}–{r.ci_high:.0%} | "
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
    setting = (  # an arm's own tools and prompt are the ones its samples ran under
        "arms: " + "; ".join(f"{a.name} ({a.describe()})" for a in c.arms)
        if c.arms
        else f"tools: {c.tools}; prompt: {c.prompt}"
    )
    lines = [
        f"# memfs eval — {c.model}{partial}",
        "",
        f"- model: `{c.model}`" + (f" — {c.model_note}" if c.model_note else ""),
        f"- generated: {report.generated}; run started: {c.started or '?'}",
        f"- command: `{c.command}`" if c.command else "- command: (not recorded)",
        f"- N per scenario: {c.n}; {setting}; max_steps: {c.max_steps}; max_tokens: "
        f"{c.max_tokens}; temperature: "
        f"{c.temperature if c.temperature is not None else 'endpoint default'}; "
        f"context window: {c.context_window or 'not set'}"
        + (f"; completion args: {c.completion_args}" if c.completion_args else ""),
        *(
            [f"- endpoints: {len(c.api_bases)}, a worker each ({', '.join(c.api_bases)})"]
            if len(c.api_bases) > 1
            else []
        ),
        *(f"- note: {note}" for note in c.notes),
        f"- overall: {o.cell()} samples passed",
        "",
        "Each sample is judged by deterministic rules over the resulting files and the "
        "transcript; its outcome is the most severe failure class it showed, or the "
        "scenario's pass class. `memory_destroyed` (a file that existed before the turn lost "
        "all its content, unasked) is judged from the files and reported beside the outcome; "
        "it never decides it. Run errors (endpoint failures) are listed but left out of "
        "every rate.",
        "",
    ]
    if report.identical_replies:
        lines += [
            "**Identical first replies** (byte for byte, within one arm and scenario; each "
            "sample was sent its own seed, so these draws may not be independent):",
            "",
            *(f"- {g.line()}" for g in report.identical_replies),
            "",
        ]
    if report.arms:
        lines += [
            "## Arms",
            "",
            (
                "Samples were interleaved across the arms (each round runs every arm once per "
                "scenario, in the order listed). "
                if c.order == "interleaved"
                else "Samples were taken in blocks (every sample of one arm and scenario "
                "together, the arms in the order listed). "
            )
            + "Differences are this arm's rate minus the other's, "
            f"with Newcombe's 95% interval (hybrid score); the baseline is `{c.baseline_arm()}`.",
            "",
            arm_table(report),
            "",
            "Per arm and class (samples that showed it / samples it was checked on):",
            "",
            arm_class_table(report),
            "",
            "![pass rate and memory_destroyed per arm](arms.png)",
            "",
        ]
    lines += [
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
        "| arm | scenario | # | outcome | flags | tool calls | written | destroyed | s | notes |"
        if report.arms
        else "| scenario | # | outcome | flags | tool calls | written | destroyed | s | notes |",
        "|---" * (10 if report.arms else 9) + "|",
    ]
    for s in report.samples:
        lead = f"| {s.arm} | " if report.arms else "| "
        lines.append(
            f"{lead}{s.scenario_id} | {s.sample} | {s.outcome} | {', '.join(s.flags) or '—'} | "
            f"{', '.join(s.tool_calls) or '—'} | {', '.join(s.written) or '—'} | "
            f"{', '.join(s.destroyed) or '—'} | {s.elapsed_s:.0f} | {'; '.join(s.notes)} |"
        )
    where = (
        "samples/<arm>/<scenario>/<n>/" if report.config.arm_in_path else "samples/<scenario>/<n>/"
    )
    lines += ["", f"Transcripts, files and verdicts per sample: `{where}`.", ""]
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
    labels = [f"{s.arm + ' · ' if s.arm else ''}{s.id}  {s.passed.k}/{s.passed.n}" for s in rows]
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
    what = f"{len(report.arms)} arms" if report.arms else f"tools={c.tools} · prompt={c.prompt}"
    fig.suptitle(
        f"memfs eval · {c.model} · {what} · {report.samples_done}/{report.samples_planned} samples",
        fontsize=11,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def render_arms_chart(report: EvalReport, path: Path) -> None:
    """Per arm: pass rate and memory_destroyed rate, each with its Wilson 95% interval."""
    import matplotlib
    import matplotlib.ticker

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    arms = report.arms
    fig, axes = plt.subplots(
        1, 2, figsize=(12, max(2.5, 0.5 * len(arms) + 1.5)), sharey=True, squeeze=False
    )
    ys = list(range(len(arms)))
    panels = (
        ("pass rate", "passed", _PASS_COLOUR),
        ("memory_destroyed rate", "destroyed", "#c62828"),
    )
    for ax, (title, field, colour) in zip(axes[0], panels, strict=True):
        for y, arm in zip(ys, arms, strict=True):
            r: Rate = getattr(arm, field)
            if r.n and r.rate is not None:
                ax.errorbar(
                    r.rate,
                    y,
                    xerr=[[r.rate - r.ci_low], [r.ci_high - r.rate]],
                    fmt="o",
                    color=colour,
                    ecolor="#555555",
                    capsize=4,
                )
                ax.annotate(f"{r.k}/{r.n}", (r.rate, y), xytext=(6, 6), textcoords="offset points")
        ax.set_xlim(-0.02, 1.02)
        ax.xaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
        ax.set_title(f"{title} per arm (Wilson 95%)")
        ax.grid(axis="x", alpha=0.3)
    axes[0][0].set_yticks(ys, [f"{a.name}: {a.description}" for a in arms], fontsize=8)
    axes[0][0].invert_yaxis()
    fig.suptitle(
        f"memfs eval · {report.config.model} · {report.samples_done}/{report.samples_planned} "
        f"samples · baseline {report.config.baseline_arm()}",
        fontsize=11,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_report(report: EvalReport, directory: Path) -> dict[str, Path]:
    """Write report.json, report.md and chart.png (and arms.png with arms) into ``directory``."""
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
    if report.arms:
        paths["arms_chart"] = directory / "arms.png"
        render_arms_chart(report, paths["arms_chart"])
    return paths
