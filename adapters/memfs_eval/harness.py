"""Run scenarios N times against a model, judge each sample, and keep everything on disk.

Each sample gets a fresh workspace seeded from its scenario on a local store under
``<out>/samples/<scenario>/<n>/workspace`` and one agent turn through
:func:`memfs_litellm.run_turn`. The files before and after, the turn's transcript and the verdict
are written as soon as the sample ends, and ``samples.jsonl`` grows by one line, so a run that is
stopped halfway still has a report (``memfs eval --report DIR``) and can be resumed.

Samples are taken round-robin (sample 0 of every scenario, then sample 1, …) so a run cut short
covers every scenario about equally. A run with several arms (prompt variant, tool set, levers;
:mod:`memfs_eval.arms`) interleaves them within each round, or takes each arm and scenario's
samples together (``order="blocks"``), and keeps each arm's samples under
``<out>/samples/<arm>/<scenario>/<n>``. Given several endpoints of one model, a worker per
endpoint takes the samples side by side.
"""

from __future__ import annotations

import collections
import datetime as dt
import hashlib
import json
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from memfs import History, LocalFileStore, MemFS
from pydantic import BaseModel, Field

from memfs_eval.arms import Arm, work_units
from memfs_eval.judge import SampleRecord, ToolCallRecord, Verdict, judge
from memfs_eval.opinion import OpinionFn
from memfs_eval.report import EvalReport, RunConfig, build_report, write_report
from memfs_eval.scenario import Scenario

SAMPLES_FILE = "samples.jsonl"
CONFIG_FILE = "config.json"


DEFAULT_MAX_CONSECUTIVE_ERRORS = 3


class EndpointFailedError(RuntimeError):
    """Several samples in a row failed to run: the endpoint is down, so the run stopped."""

    def __init__(self, out_dir: Path, errors: list[str]) -> None:
        self.out_dir, self.errors = out_dir, errors
        super().__init__(
            f"{len(errors)} samples in a row failed to run, the last with: {errors[-1]}. The run "
            f"stopped with its samples so far in {str(out_dir)!r}; check the endpoint (for the "
            "local model: `memfs model status`), then run the same command with --resume, "
            "which also takes the failed samples again."
        )


TurnRunner = Callable[..., Any]
"""An agent loop taking ``memfs_litellm.run_turn``'s keywords and returning its TurnResult."""


class SampleResult(BaseModel):
    """One line of ``samples.jsonl``."""

    record: SampleRecord
    verdict: Verdict
    usage: dict[str, Any] | None = None
    restorable: dict[str, bool] = Field(
        default_factory=dict,
        description="per destroyed file: whether its content before the turn can be restored "
        "from the workspace's version history",
    )


def restorable_from_history(
    fs: MemFS, before: dict[str, str], destroyed: list[str]
) -> dict[str, bool]:
    """Whether each destroyed file's content before the turn is a version ``memfs restore``
    can put back (:meth:`memfs.history.History.restorable`)."""
    history = History(fs)
    return {p: p in before and history.restorable(p, before[p].encode("utf-8")) for p in destroyed}


def restore_note(restorable: dict[str, bool]) -> str:
    """The sample's note on its destroyed memories; empty when none was destroyed."""
    if not restorable:
        return ""
    yes = [p for p, ok in restorable.items() if ok]
    no = [p for p, ok in restorable.items() if not ok]
    parts = [f"restorable from history: {', '.join(yes)}"] if yes else []
    parts += [f"NOT restorable from history: {', '.join(no)}"] if no else []
    return "; ".join(parts)


def date_line(today: dt.date) -> str:
    """The platform tells its agent the date; relative dates cannot be resolved without it."""
    return f"Today's date is {today.isoformat()} ({today.strftime('%A')})."


def snapshot(fs: MemFS) -> dict[str, str]:
    """Every file of the workspace as stored (raw bytes, decoded; undecodable bytes replaced)."""
    return {p: fs.raw.cat_file(p).decode("utf-8", "replace") for p in sorted(fs.raw.find(""))}


def seed_workspace(fs: MemFS, scenario: Scenario) -> None:
    fs.makedirs("memory", exist_ok=True)
    for path, text in scenario.seed_files.items():
        # The scenario's memory was written before the chat: seeded with the dates it holds.
        fs.migrating().pipe_file(path, text.encode("utf-8"))


SEED_BITS = 31
"""Seeds fit a signed 32-bit int: what llama.cpp, vLLM and the OpenAI API all take."""


def sample_seed(run_id: str, arm: str, scenario_id: str, index: int, base: Any = None) -> int:
    """The seed of one sample: the same run, arm, scenario and index give the same seed, any
    other sample another. Sent with every completion of the sample (litellm's ``seed``) so
    samples are independent draws even where a server would restore a cached seed; a
    ``seed`` the run was given is mixed in, never sent to every sample alike."""
    key = "\0".join([run_id, arm, scenario_id, str(index), json.dumps(base)])
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "big") & ((1 << SEED_BITS) - 1)


def first_reply(result: Any) -> str:
    """The model's first reply of the turn as sent back (text and calls), for the report's
    check that samples of one arm are not byte-identical; ``""`` when there was none."""
    for m in getattr(result, "transcript", None) or []:
        if isinstance(m, dict) and m.get("role") == "assistant":
            calls = m.get("tool_calls")
            return json.dumps([m.get("content"), calls], ensure_ascii=False, sort_keys=True)
    return ""


def plan(scenarios: list[Scenario], n: int) -> Iterator[tuple[Scenario, int]]:
    for i in range(n):
        for s in scenarios:
            yield s, i


def _tool_calls(result: Any) -> list[ToolCallRecord]:
    return [
        ToolCallRecord(
            name=c.name,
            arguments=c.arguments,
            result=c.result,
            source=getattr(c, "source", "native"),
            step=getattr(c, "step", 0),
        )
        for c in getattr(result, "tool_calls", [])
    ]


def sample_dir(out_dir: Path, config: RunConfig, arm: str, scenario_id: str, index: int) -> Path:
    """Where one sample's files live; a run that has only ever had one arm keeps the arm out of
    the path (:meth:`RunConfig.sample_root`)."""
    return out_dir / "samples" / config.sample_root(arm) / scenario_id / f"{index:02d}"


def run_sample(
    scenario: Scenario,
    index: int,
    config: RunConfig,
    out_dir: Path,
    *,
    turn_runner: TurnRunner,
    system_prompt: str,
    completion_kwargs: dict[str, Any],
    opinion: OpinionFn | None = None,
    arm: Arm | None = None,
) -> SampleResult:
    """Seed, run one turn, snapshot, judge, and write the sample's files."""
    arm = arm or config.run_arms()[0]
    kwargs = dict(completion_kwargs)
    seed = sample_seed(
        config.run_id or out_dir.name, arm.name, scenario.id, index, kwargs.get("seed")
    )
    kwargs["seed"] = seed
    here = sample_dir(out_dir, config, arm.name, scenario.id, index)
    if here.exists():  # a sample stopped before it was recorded: never run in its workspace
        shutil.rmtree(here)
    here.mkdir(parents=True)
    fs = MemFS(LocalFileStore(here / "workspace"), clock=lambda: scenario.today)
    seed_workspace(fs, scenario)
    before = snapshot(fs)
    started = time.perf_counter()
    error: str | None = None
    result: Any = None
    try:
        result = turn_runner(
            model=config.model,
            fs=fs,
            manifest=arm.manifest(),
            user_message=scenario.user_message,
            transcript=[dict(m) for m in scenario.transcript],
            mode=scenario.mode,
            tools=arm.tools,
            prompt_variant=arm.prompt,
            placement=arm.placement,
            framing=arm.framing,
            system_prompt=f"{system_prompt}\n\n{date_line(scenario.today)}",
            max_steps=config.max_steps,
            loop_guard=arm.loop_guard,
            memory_tools=arm.memory_tools,
            first_tool=arm.first_tool(scenario.user_message),
            completion_kwargs=kwargs,
            context_window=config.context_window,
        )
    except Exception as e:  # the endpoint or the loop failed: a run error, not a verdict
        error = f"{type(e).__name__}: {e}"
    elapsed = time.perf_counter() - started
    record = SampleRecord(
        scenario_id=scenario.id,
        sample=index,
        before=before,
        after=snapshot(fs),
        tool_calls=_tool_calls(result),
        final_text=getattr(result, "final_text", "") or "",
        context_block=getattr(result, "context_block", "") or "",
        offered_tools=list(getattr(result, "offered_tools", []) or []),
        error=error,
        truncated=bool(getattr(result, "truncated", False)),
        cut_by_max_tokens=any(
            getattr(step, "finish_reason", None) == "length"
            for step in getattr(result, "steps", [])
        ),
        elapsed_s=round(elapsed, 2),
        arm=arm.name,
        seed=seed,
        first_reply=first_reply(result),
    )
    verdict = judge(scenario, record)
    restorable = restorable_from_history(fs, before, verdict.destroyed)
    if note := restore_note(restorable):
        verdict.notes.append(note)
    if opinion is not None and record.error is None:
        verdict.llm_opinion = opinion(scenario, record, verdict)
    usage = getattr(result, "usage", None)
    out = SampleResult(
        record=record,
        verdict=verdict,
        usage=usage.model_dump() if isinstance(usage, BaseModel) else None,
        restorable=restorable,
    )
    if isinstance(result, BaseModel):
        _write_json(here / "transcript.json", result.model_dump(mode="json"))
    _write_json(here / "verdict.json", verdict.model_dump(mode="json"))
    _write_json(here / "record.json", record.model_dump(mode="json"))
    return out


def _write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def load_results(out_dir: Path) -> list[SampleResult]:
    path = out_dir / SAMPLES_FILE
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    return [SampleResult.model_validate_json(line) for line in lines if line.strip()]


def rejudge(out_dir: Path, scenarios: list[Scenario], config: RunConfig | None = None) -> int:
    """Judge every saved sample again with the current rules; return how many outcomes changed.

    The records (files before/after, transcript) are kept as they are; ``cut_by_max_tokens`` is
    recovered from each sample's ``transcript.json`` when it was saved without it. LLM opinions
    are kept.
    """
    by_id = {s.id: s for s in scenarios}
    results = load_results(out_dir)
    changed = 0
    for r in results:
        scenario = by_id.get(r.record.scenario_id)
        if scenario is None:
            continue
        where = sample_dir(
            out_dir, config or RunConfig(model="", n=0), r.record.arm, scenario.id, r.record.sample
        )
        transcript = where / "transcript.json"
        if transcript.exists():
            steps = json.loads(transcript.read_text(encoding="utf-8")).get("steps", [])
            r.record.cut_by_max_tokens = any(st.get("finish_reason") == "length" for st in steps)
        verdict = judge(scenario, r.record)
        verdict.llm_opinion = r.verdict.llm_opinion
        if note := restore_note({p: r.restorable.get(p, False) for p in verdict.destroyed}):
            verdict.notes.append(note)
        changed += verdict.outcome != r.verdict.outcome
        r.verdict = verdict
        if where.exists():
            _write_json(where / "verdict.json", verdict.model_dump(mode="json"))
    (out_dir / SAMPLES_FILE).write_text(
        "".join(r.model_dump_json() + "\n" for r in results), encoding="utf-8"
    )
    return changed


def _with_arm(r: SampleResult) -> Verdict:
    # Verdicts saved before arms existed carry none; the record knows which arm ran.
    return (
        r.verdict
        if r.verdict.arm == r.record.arm
        else r.verdict.model_copy(update={"arm": r.record.arm})
    )


def report_from(
    out_dir: Path, scenarios: list[Scenario], config: RunConfig, *, now: dt.datetime
) -> EvalReport:
    results = load_results(out_dir)
    known = {s.id for s in scenarios}
    rows = [
        (_with_arm(r), r.record.elapsed_s, [c.name for c in r.record.tool_calls])
        for r in results
        if r.record.scenario_id in known
    ]
    replies = {
        (r.record.arm, r.record.scenario_id, r.record.sample): r.record.first_reply
        for r in results
        if r.record.scenario_id in known and r.record.error is None
    }
    report = build_report(config, scenarios, rows, now=now, replies=replies)
    write_report(report, out_dir)
    return report


def run_eval(
    config: RunConfig,
    scenarios: list[Scenario],
    out_dir: Path,
    *,
    turn_runner: TurnRunner,
    system_prompt: str,
    completion_kwargs: dict[str, Any] | None = None,
    resume: bool = False,
    now: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.UTC),
    on_sample: Callable[[SampleResult], None] | None = None,
    opinion: OpinionFn | None = None,
    max_consecutive_errors: int | None = DEFAULT_MAX_CONSECUTIVE_ERRORS,
) -> EvalReport:
    """Run every planned sample not already on disk; rewrite the report after each one.

    With ``resume``, samples that ended in a run error (the endpoint, not the model) are taken
    again. ``max_consecutive_errors`` run errors in a row stop the run with
    :class:`EndpointFailedError` instead of recording the rest of the plan as errors: a dead
    server is fixed and the run resumed, not measured.

    With several endpoints (``config.api_bases``) one worker thread per endpoint takes the
    samples, each unit of :func:`~memfs_eval.arms.work_units` (in ``config.order``) whole on
    one endpoint; a sample's seed and files do not depend on which endpoint ran it. Each
    worker counts its own run errors in a row; one that reaches the limit stops every worker
    after its current sample.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    done: set[tuple[str, str, int]] = set()
    if resume:
        kept = [r for r in load_results(out_dir) if r.verdict.outcome != "run_error"]
        (out_dir / SAMPLES_FILE).write_text(
            "".join(r.model_dump_json() + "\n" for r in kept), encoding="utf-8"
        )
        done = {(r.record.arm, r.record.scenario_id, r.record.sample) for r in kept}
    elif (out_dir / SAMPLES_FILE).exists():
        raise FileExistsError(
            f"{str(out_dir / SAMPLES_FILE)!r} already holds samples; pass --resume to continue "
            "that run, or choose another --out directory."
        )
    _write_json(out_dir / CONFIG_FILE, config.model_dump(mode="json"))
    units = work_units(
        config.run_arms(),
        scenarios,
        config.n,
        config.order,
        lambda arm, scenario, index: (arm.name, scenario.id, index) in done,
    )
    run = _Workers(
        config,
        scenarios,
        out_dir,
        units,
        now=now,
        on_sample=on_sample,
        max_consecutive_errors=max_consecutive_errors,
        report=report_from(out_dir, scenarios, config, now=now()),
    )

    def take(arm: Arm, scenario: Scenario, index: int, kwargs: dict[str, Any]) -> SampleResult:
        return run_sample(
            scenario,
            index,
            config,
            out_dir,
            turn_runner=turn_runner,
            system_prompt=system_prompt,
            completion_kwargs=kwargs,
            opinion=opinion,
            arm=arm,
        )

    kwargs = completion_kwargs or {}
    endpoints = config.api_bases if len(config.api_bases) > 1 else [None]
    return run.all(
        take, [kwargs if base is None else {**kwargs, "api_base": base} for base in endpoints]
    )


Take = Callable[[Arm, Scenario, int, dict[str, Any]], SampleResult]


class _Workers:
    """The samples of one run taken by one worker per endpoint: the units handed out in order,
    each result appended to ``samples.jsonl`` and the report rebuilt under one lock."""

    def __init__(
        self,
        config: RunConfig,
        scenarios: list[Scenario],
        out_dir: Path,
        units: list[list[tuple[Arm, Scenario, int]]],
        *,
        now: Callable[[], dt.datetime],
        on_sample: Callable[[SampleResult], None] | None,
        max_consecutive_errors: int | None,
        report: EvalReport,
    ) -> None:
        self.config, self.scenarios, self.out_dir = config, scenarios, out_dir
        self.units = collections.deque(units)
        self.now, self.on_sample, self.limit = now, on_sample, max_consecutive_errors
        self.report = report
        self.lock = threading.Lock()
        self.failed: BaseException | None = None

    def all(self, take: Take, endpoints: list[dict[str, Any]]) -> EvalReport:
        """Every unit taken through ``take``, a worker per endpoint (the first in this thread).

        The other workers end after their current sample once one has stopped the run; on
        Ctrl-C the run does not wait for them (their threads end with the process: a sample is
        recorded whole or not at all, one append of one line)."""
        threads = [
            threading.Thread(target=self._worker, args=(take, kw, False), daemon=True)
            for kw in endpoints[1:]
        ]
        for t in threads:
            t.start()
        self._worker(take, endpoints[0], True)
        for t in threads:
            t.join()
        if self.failed is not None:
            raise self.failed
        return self.report

    def _next(self) -> list[tuple[Arm, Scenario, int]] | None:
        with self.lock:
            return None if self.failed is not None or not self.units else self.units.popleft()

    def _worker(self, take: Take, kwargs: dict[str, Any], main: bool) -> None:
        """Take units until none is left or the run stopped; a failure stops the run (raised
        here in the main thread, by :meth:`all` after the others for a worker thread)."""
        errors: list[str] = []
        try:
            while (unit := self._next()) is not None:
                for arm, scenario, index in unit:
                    result = take(arm, scenario, index, dict(kwargs))
                    errors = [*errors, result.record.error] if result.record.error else []
                    with self.lock:
                        self._keep(result)
                        if self.limit is not None and len(errors) >= self.limit:
                            self.failed = EndpointFailedError(self.out_dir, errors)
                        if self.failed is not None:
                            return
        except BaseException as e:  # a bug, or Ctrl-C: the other workers stop after their sample
            with self.lock:
                self.failed = self.failed or e
            if main:
                raise

    def _keep(self, result: SampleResult) -> None:
        with (self.out_dir / SAMPLES_FILE).open("a", encoding="utf-8") as f:
            f.write(result.model_dump_json() + "\n")
        self.report = report_from(self.out_dir, self.scenarios, self.config, now=self.now())
        if self.on_sample is not None:
            self.on_sample(result)
