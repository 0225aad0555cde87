"""``memfs eval``: the live check — N samples per scenario against a real model, classified.

    memfs eval --model openai/local --n 6 --scenario s45-write
    memfs eval --model ollama_chat/qwen3:14b --context-window 40960 --n 6
    memfs eval --model openai/local --n 12 --scenario s45-write \
        --arm b=prompt=full,levers=none --arm c=prompt=full,levers=read+receipt+loop
    memfs eval --scenarios ./my-scenarios --model openai/local --n 6   # a team's own scenarios
    memfs eval --report benchmarks/results/eval-…/      # rebuild the report of a (partial) run

An arm is NAME=OPTIONS: prompt=full|appendix-a-only|full-after-tools, tools=platform|files-only,
levers=none|default|read+receipt+loop+nudge (read before overwrite, write receipt, loop guard,
index nudge), or one lever alone as read=on|off. Samples are interleaved across arms, or taken
one arm and scenario at a time with --order blocks; --api-base given twice spreads them over
two servers of the same model.

A scripted model can exercise this command, never produce its verdict: the point is a real one.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import shlex
import sys
from pathlib import Path
from typing import Any

from memfs import PROMPT_VARIANTS, message
from memfs.extras import require
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from memfs_eval.arms import ORDERS, Arm, parse_arm
from memfs_eval.harness import (
    CONFIG_FILE,
    EndpointFailedError,
    SampleResult,
    load_results,
    rejudge,
    report_from,
    run_eval,
)
from memfs_eval.opinion import llm_opinion
from memfs_eval.report import EvalReport, RunConfig, arm_table, class_table, scenario_table
from memfs_eval.scenario import Scenario, ScenarioError, load_scenarios

LOCAL_MODEL = "openai/local"


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "eval",
        help="live check: pass rates of a real model writing, recalling and resisting memory",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--model", help="litellm model string (default endpoint for openai/local)")
    p.add_argument("--model-note", default="", help="what is behind --model, for the report")
    p.add_argument("--n", type=int, default=6, help="samples per scenario (default 6)")
    p.add_argument(
        "--scenario",
        action="append",
        default=[],
        help="scenario id or family (s45-write = zh and en); repeatable; default all",
    )
    p.add_argument(
        "--scenarios",
        type=Path,
        metavar="DIR",
        help="read the scenario files (*.yaml) from DIR instead of the packaged ones",
    )
    p.add_argument("--lang", help="only scenarios with this language tag (zh, en, ja, …)")
    p.add_argument("--tools", choices=["platform", "files-only"], default="platform")
    p.add_argument("--prompt", choices=list(PROMPT_VARIANTS), default="full")
    p.add_argument(
        "--arm",
        action="append",
        default=[],
        metavar="NAME=OPTIONS",
        help="an arm to compare (see above); repeatable; default: one arm from --prompt/--tools",
    )
    p.add_argument("--baseline", metavar="NAME", help="the arm others are compared with")
    p.add_argument(
        "--order",
        choices=list(ORDERS),
        default="interleaved",
        help="interleaved (default): a round of every arm and scenario at a time; blocks: every "
        "sample of one arm and scenario together, so a server keeps their prompt (much faster "
        "on a CPU; a run stopped halfway has whole arms and none of others)",
    )
    p.add_argument(
        "--note",
        action="append",
        default=[],
        help="a sentence about the run for its report (the machine, a change of setup); "
        "repeatable, kept on --resume",
    )
    p.add_argument("--max-steps", type=int, default=4)
    p.add_argument("--max-tokens", type=int, default=300, help="per model call (0 = no cap)")
    p.add_argument("--temperature", type=float, default=0.7)
    p.add_argument("--context-window", type=int, help="the model's window (Ollama: num_ctx)")
    p.add_argument(
        "--api-base",
        action="append",
        default=[],
        help="endpoint URL (default for openai/local: the local server); repeat it for several "
        "servers of the same model, one worker each (`memfs model start --port N`)",
    )
    p.add_argument("--api-key", help="endpoint key (default for openai/local: the local one)")
    p.add_argument(
        "--completion-arg",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="extra top-level completion kwarg, VALUE as JSON (e.g. think=false); repeatable",
    )
    p.add_argument(
        "--llm-judge",
        metavar="MODEL",
        help="also ask MODEL for an opinion per sample (stored, never changes a verdict)",
    )
    p.add_argument("--out", type=Path, help="run directory (default benchmarks/results/eval-…)")
    p.add_argument("--resume", action="store_true", help="continue the run in --out")
    p.add_argument("--report", type=Path, metavar="DIR", help="only rebuild DIR's report")
    p.add_argument(
        "--rejudge",
        action="store_true",
        help="with --report: judge the saved samples again with the current rules",
    )
    p.add_argument("--list", action="store_true", help="list the scenarios and exit")
    p.set_defaults(func=run)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9.]+", "-", text).strip("-").lower()


def _endpoint(args: argparse.Namespace) -> dict[str, Any]:
    kwargs: dict[str, Any] = {}
    api_base, api_key = (args.api_base or [None])[0], args.api_key
    if args.model == LOCAL_MODEL and (api_base is None or api_key is None):
        from memfs_litellm.local_model import API_KEY
        from memfs_litellm.local_model import api_base as local_base

        api_base = api_base or local_base()
        api_key = api_key or API_KEY
    if api_base:
        kwargs["api_base"] = api_base
    if api_key:
        kwargs["api_key"] = api_key
    if args.max_tokens:
        kwargs["max_tokens"] = args.max_tokens
    if args.temperature is not None:
        kwargs["temperature"] = args.temperature
    for item in args.completion_arg:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"--completion-arg {item!r} is not KEY=VALUE (e.g. think=false).")
        try:
            kwargs[key] = json.loads(value)
        except json.JSONDecodeError:
            kwargs[key] = value
    return kwargs


def _arms(args: argparse.Namespace) -> list[Arm]:
    arms = [parse_arm(a) for a in args.arm]
    names = [a.name for a in arms]
    if len(set(names)) != len(names):
        raise ValueError(f"--arm names must differ; got {names}.")
    if args.baseline and args.baseline not in names:
        raise ValueError(f"--baseline {args.baseline!r} is not one of the arms {names}.")
    return arms


def _fail(text: str) -> int:
    """A usage failure: one line on stderr, exit 2."""
    print(f"memfs eval: {text}", file=sys.stderr)
    return 2


def _print_report(report: EvalReport, *, classes: bool) -> None:
    if report.arms:
        print(arm_table(report))
        print()
    print(scenario_table(report))
    if classes:
        print()
        print(class_table(report))


def rebuild_report(args: argparse.Namespace) -> int:
    """``--report DIR`` (and ``--rejudge``): the report of a run on disk, judged again if asked."""
    config_path = args.report / CONFIG_FILE
    if not config_path.exists():
        return _fail(
            f"{str(config_path)!r} not found; --report needs a run directory made by memfs eval."
        )
    config = RunConfig.model_validate_json(config_path.read_text(encoding="utf-8"))
    scenario_dir = str(args.scenarios) if args.scenarios else None
    try:
        scenarios = load_scenarios(
            config.scenarios or None, directory=scenario_dir or config.scenario_dir
        )
    except ScenarioError as e:
        return _fail(message(e))
    if args.rejudge:
        changed = rejudge(args.report, scenarios, config)
        print(f"re-judged {args.report}: {changed} outcome(s) changed", file=sys.stderr)
    report = report_from(args.report, scenarios, config, now=dt.datetime.now(dt.UTC))
    _print_report(report, classes=False)
    return 0


def _live_usage_problem(args: argparse.Namespace) -> str | None:
    """What a live run lacks before any model is called, or None."""
    if not args.model:
        return (
            "--model is required (e.g. openai/local after `memfs model start`, "
            "or ollama_chat/qwen3:14b with --context-window 40960)."
        )
    if args.n < 1:
        return "--n must be at least 1."
    return None


def _run_dir(args: argparse.Namespace, arms: list[Arm], started: dt.datetime) -> Path:
    what = "-".join(a.name for a in arms) if arms else f"{args.tools}-{args.prompt}"
    return args.out or Path("benchmarks/results") / (
        f"eval-{started:%Y%m%d-%H%M}-{_slug(args.model)}-{_slug(what)}"
    )


def run_config(
    args: argparse.Namespace,
    scenarios: list[Scenario],
    arms: list[Arm],
    kwargs: dict[str, Any],
    *,
    started: dt.datetime,
    out: Path,
) -> RunConfig:
    """The run's config.json; a resumed run keeps the start and command it was begun with."""
    config = RunConfig(
        model=args.model,
        model_note=args.model_note,
        n=args.n,
        tools=args.tools,
        prompt=args.prompt,
        max_steps=args.max_steps,
        max_tokens=args.max_tokens or None,
        temperature=args.temperature,
        context_window=args.context_window,
        api_base=kwargs.get("api_base"),
        api_bases=list(args.api_base) if len(args.api_base) > 1 else [],
        order=args.order,
        notes=list(args.note),
        completion_args={
            k: v
            for k, v in kwargs.items()
            if k not in {"api_base", "api_key", "max_tokens", "temperature"}
        },
        llm_judge=args.llm_judge,
        scenarios=[s.id for s in scenarios],
        scenario_dir=str(args.scenarios) if args.scenarios else None,
        arms=arms,
        baseline=args.baseline,
        run_id=out.name,
        command="memfs eval " + shlex.join(sys.argv[2:] if sys.argv[1:2] == ["eval"] else []),
        started=started.isoformat(timespec="seconds"),
    )
    if args.resume and (out / CONFIG_FILE).exists():
        previous = json.loads((out / CONFIG_FILE).read_text(encoding="utf-8"))
        notes = [*previous.get("notes", []), *_changed_setup(previous, config, out)]
        config = config.model_copy(
            update={
                "started": previous.get("started", ""),
                "command": previous.get("command", ""),
                "run_id": previous.get("run_id", ""),
                "arm_dirs": config.arm_in_path or RunConfig.model_validate(previous).arm_in_path,
                "notes": [*notes, *(n for n in config.notes if n not in notes)],
            }
        )
    return config


def _changed_setup(previous: dict[str, Any], config: RunConfig, out: Path) -> list[str]:
    """A note for a resumed run whose order or endpoints differ from the run before: which
    samples ran how is part of what the report says."""
    was_order = previous.get("order", "interleaved")
    was_endpoints = len(previous.get("api_bases", [])) or 1
    now_endpoints = len(config.api_bases) or 1
    if (was_order, was_endpoints) == (config.order, now_endpoints):
        return []
    kept = sum(r.verdict.outcome != "run_error" for r in load_results(out))
    return [
        f"resumed after {kept} samples with order {config.order} on {now_endpoints} "
        f"endpoint(s) (before: {was_order} on {was_endpoints})"
    ]


def _run_with_progress(
    args: argparse.Namespace,
    config: RunConfig,
    scenarios: list[Scenario],
    out: Path,
    kwargs: dict[str, Any],
    console: Console,
) -> EvalReport:
    """Run every sample with a progress bar on stderr; the report at the end."""
    from memfs_litellm import DEFAULT_APP_PROMPT, run_turn

    judge_kwargs = kwargs if args.llm_judge == args.model else {}
    n_arms = len(config.run_arms())
    total = config.n * len(scenarios) * n_arms
    console.print(
        f"[bold]memfs eval[/bold] {args.model}: {len(scenarios)} scenarios × "
        f"{args.n} samples" + (f" × {n_arms} arms" if n_arms > 1 else "") + f" → {out}"
    )
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("passed {task.fields[passed]}"),
        TimeElapsedColumn(),
        console=console,
    ) as progress:
        task = progress.add_task("samples", total=total, passed=0)
        passed = 0

        def on_sample(r: SampleResult) -> None:
            nonlocal passed
            passed += r.verdict.passed
            progress.update(
                task,
                advance=1,
                passed=passed,
                description=(
                    f"{r.record.arm + ' ' if n_arms > 1 else ''}{r.record.scenario_id} "
                    f"#{r.record.sample}: {r.verdict.outcome}"
                ),
            )

        try:
            return run_eval(
                config,
                scenarios,
                out,
                turn_runner=run_turn,
                system_prompt=DEFAULT_APP_PROMPT,
                completion_kwargs=kwargs,
                resume=args.resume,
                on_sample=on_sample,
                opinion=llm_opinion(args.llm_judge, completion_kwargs=judge_kwargs)
                if args.llm_judge
                else None,
            )
        except EndpointFailedError:
            progress.stop()
            raise


def run(args: argparse.Namespace) -> int:
    if args.report:
        return rebuild_report(args)
    try:
        scenario_dir = str(args.scenarios) if args.scenarios else None
        scenarios = load_scenarios(list(args.scenario) or None, directory=scenario_dir)
        arms = _arms(args)
    except (ScenarioError, ValueError) as e:
        return _fail(message(e))
    if args.lang:
        scenarios = [s for s in scenarios if s.lang == args.lang]
    if args.list:
        for s in scenarios:
            print(f"{s.id:20} {s.kind:9} {s.mode:8} {s.title}")
        return 0
    if problem := _live_usage_problem(args):
        return _fail(problem)

    import memfs_litellm  # noqa: F401  # first: it keeps litellm offline

    require("litellm", "litellm")  # now, not on the first sample
    started = dt.datetime.now(dt.UTC)
    out = _run_dir(args, arms, started)
    try:
        kwargs = _endpoint(args)
    except ValueError as e:
        return _fail(message(e))
    config = run_config(args, scenarios, arms, kwargs, started=started, out=out)
    try:
        report = _run_with_progress(args, config, scenarios, out, kwargs, Console(stderr=True))
    except EndpointFailedError as e:
        print(f"memfs eval: {message(e)}", file=sys.stderr)
        return 1
    _print_report(report, classes=True)
    print(f"\nReport: {out / 'report.md'}  chart: {out / 'chart.png'}")
    return 0
