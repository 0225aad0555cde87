"""The live-check harness against a scripted model: plumbing only, never a verdict on a model.

The scripted model runs through the real ``memfs_litellm.run_turn`` (file tools on MemFS,
read-only mount for workflow turns), so these tests cover populating workspaces, snapshots,
per-sample files, the incremental ``samples.jsonl``, resume, the report and the CLI.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import re
from pathlib import Path
from typing import Any

import pytest
from memfs.cli import main

import memfs_litellm
from memfs_eval.arms import interleave, newcombe, parse_arm
from memfs_eval.harness import (
    SAMPLES_FILE,
    EndpointFailedError,
    SampleResult,
    date_line,
    load_results,
    plan,
    run_eval,
)
from memfs_eval.opinion import llm_opinion
from memfs_eval.report import RunConfig, render_markdown, wilson
from memfs_eval.scenario import load_scenarios
from memfs_litellm import run_turn

NOW = dt.datetime(2026, 12, 1, 4, 0, tzinfo=dt.UTC)

YIELD = """---
name: yield-source
description: Yield for line 3 comes from MES daily_yield, not the QA weekly report
metadata:
  type: project
---
Authoritative yield source: MES daily_yield table, not the QA weekly report.
"""
ROLE = """---
name: user-role
description: The user is a process engineer
metadata:
  type: user
---
The user is a process engineer; no need to explain Cpk or Ppk.
"""


def tool_call(i: int, name: str, **arguments: Any) -> dict[str, Any]:
    return {
        "id": f"c{i}",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments, ensure_ascii=False)},
    }


class ScriptedModel:
    """Answers by looking at the conversation: writes memory for write turns, answers recalls.

    Returns plain dicts shaped like a litellm response; counts its calls.
    """

    def __init__(self) -> None:
        self.calls = 0
        self.systems: list[str] = []
        self.finish_reason = "stop"

    def __call__(self, **kwargs: Any) -> dict[str, Any]:
        self.calls += 1
        messages = kwargs["messages"]
        self.systems.append(messages[0]["content"])
        user = next(m["content"] for m in reversed(messages) if m["role"] == "user")
        tool_results = [m for m in messages if m["role"] == "tool"]
        message: dict[str, Any]
        if "Two things to remember" in user and not tool_results:
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    tool_call(1, "write_file", path="memory/yield-source.md", content=YIELD),
                    tool_call(2, "write_file", path="memory/user-role.md", content=ROLE),
                    tool_call(
                        3,
                        "edit_file",
                        path="MEMORY.md",
                        old_string="- [Hub purpose]",
                        new_string="- [Yield = daily_yield](memory/yield-source.md) — MES\n"
                        "- [Process engineer](memory/user-role.md) — no SPC basics\n"
                        "- [Hub purpose]",
                    ),
                ],
            }
        elif "Daily yield report step" in user and not tool_results:
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [tool_call(1, "write_file", path="memory/log.md", content="x")],
            }
        else:
            message = {"role": "assistant", "content": "Use the MES daily_yield table."}
        return {
            "choices": [{"message": message, "finish_reason": self.finish_reason}],
            "usage": {"completion_tokens": 20, "total_tokens": 20},
        }


def load_results_from(text: str) -> list[SampleResult]:
    return [SampleResult.model_validate_json(line) for line in text.splitlines() if line]


def config(n: int, ids: list[str]) -> RunConfig:
    return RunConfig(model="scripted/model", n=n, scenarios=ids, command="memfs eval test")


def run(tmp_path: Path, ids: list[str], n: int = 2, model: Any = None, **kw: Any):
    scenarios = load_scenarios(ids)
    model = model or ScriptedModel()
    runner = functools.partial(run_turn, completion=model)
    report = run_eval(
        config(n, [s.id for s in scenarios]),
        scenarios,
        tmp_path / "run",
        turn_runner=runner,
        system_prompt="You are the app.",
        now=lambda: NOW,
        **kw,
    )
    return report, model


def test_run_writes_every_sample_and_a_report(tmp_path):
    report, model = run(tmp_path, ["s45-write-en", "s45-recall-en"])
    out = tmp_path / "run"
    results = load_results(out)
    # round-robin: sample 0 of every scenario before sample 1 of any
    assert [(r.record.scenario_id, r.record.sample) for r in results] == [
        ("s45-write-en", 0),
        ("s45-recall-en", 0),
        ("s45-write-en", 1),
        ("s45-recall-en", 1),
    ]
    for r in results:
        d = out / "samples" / r.record.scenario_id / f"{r.record.sample:02d}"
        assert (d / "transcript.json").exists() and (d / "verdict.json").exists()
        assert r.usage is not None and r.usage["completion_tokens"] >= 20
    written = out / "samples" / "s45-write-en" / "00" / "workspace"
    assert "daily_yield" in (written / "memory" / "yield-source.md").read_text()
    assert "memory/user-role.md" in (written / "MEMORY.md").read_text()
    by_id = {s.id: s for s in report.scenarios}
    assert by_id["s45-write-en"].passed.k == 2 and by_id["s45-write-en"].passed.n == 2
    assert by_id["s45-recall-en"].outcomes == {"recall_pass": 2}
    assert report.overall.k == 4 and report.samples_done == report.samples_planned == 4
    for name in ("report.json", "report.md", "chart.png"):
        assert (out / name).stat().st_size > 0
    assert (out / "chart.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # the eval clock reaches the agent: the date line is in the system prompt it was sent
    assert all(date_line(dt.date(2026, 12, 1)) in s for s in model.systems)


def test_seeded_memory_reaches_the_model_as_the_context_block(tmp_path):
    run(tmp_path, ["s45-recall-zh"], n=1)
    results = load_results(tmp_path / "run")
    transcript = json.loads((tmp_path / "run/samples/s45-recall-zh/00/transcript.json").read_text())
    assert "memory/yield-source.md" in transcript["context_block"]
    assert results[0].record.before == results[0].record.after


def test_a_reply_cut_at_max_tokens_is_recorded(tmp_path):
    model = ScriptedModel()
    model.finish_reason = "length"
    run(tmp_path, ["s45-recall-en"], n=1, model=model)
    [r] = load_results(tmp_path / "run")
    assert r.record.cut_by_max_tokens and any("max_tokens" in n for n in r.verdict.notes)


def test_workflow_write_is_refused_by_the_mount_and_classified(tmp_path):
    report, _ = run(tmp_path, ["workflow-en"], n=1)
    [r] = load_results(tmp_path / "run")
    assert r.verdict.outcome == "write_in_workflow"
    assert r.record.after == r.record.before  # the read-only mount refused the write
    assert "read-only" in r.record.tool_calls[0].result
    assert report.scenarios[0].passed.k == 0


def test_partial_run_resumes_and_refuses_to_overwrite(tmp_path):
    run(tmp_path, ["s45-recall-en"], n=1)
    with pytest.raises(FileExistsError, match="--resume"):
        run(tmp_path, ["s45-recall-en"], n=2)
    model = ScriptedModel()
    report, _ = run(tmp_path, ["s45-recall-en"], n=3, model=model, resume=True)
    assert model.calls == 2  # samples 1 and 2 only
    assert report.scenarios[0].passed.n == 3


def test_a_dead_endpoint_stops_the_run_and_resume_takes_the_failed_samples_again(tmp_path):
    def broken(**kwargs: Any) -> Any:
        raise ConnectionError("endpoint refused the connection")

    with pytest.raises(EndpointFailedError, match="3 samples in a row failed") as info:
        run(tmp_path, ["s45-recall-en"], n=6, model=broken)
    assert "--resume" in str(info.value)
    assert len(load_results(tmp_path / "run")) == 3  # stopped: not the whole plan as errors
    model = ScriptedModel()
    report, _ = run(tmp_path, ["s45-recall-en"], n=6, model=model, resume=True)
    assert model.calls == 6 and report.scenarios[0].errors == 0
    assert report.scenarios[0].passed.n == 6


def test_a_failing_endpoint_is_a_run_error_outside_the_rates(tmp_path):
    def broken(**kwargs: Any) -> Any:
        raise ConnectionError("endpoint refused the connection")

    report, _ = run(tmp_path, ["s45-write-zh"], n=2, model=broken)
    s = report.scenarios[0]
    assert s.errors == 2 and s.passed.n == 0 and s.outcomes == {"run_error": 2}
    [first, _] = load_results(tmp_path / "run")
    assert first.verdict.checks[0].detail == "ConnectionError: endpoint refused the connection"


def test_an_llm_opinion_is_stored_and_never_changes_the_verdict(tmp_path):
    def disagreeing(**kwargs: Any) -> dict[str, Any]:
        assert "Rule verdict: recall_pass" in kwargs["messages"][1]["content"]
        return {"choices": [{"message": {"content": "FAIL: I disagree with the rules."}}]}

    run(tmp_path, ["s45-recall-en"], n=1, opinion=llm_opinion("j", completion=disagreeing))
    [r] = load_results(tmp_path / "run")
    assert r.verdict.passed and r.verdict.llm_opinion == "FAIL: I disagree with the rules."


def test_a_failing_llm_judge_leaves_a_note(tmp_path):
    def down(**kwargs: Any) -> Any:
        raise TimeoutError("judge endpoint timed out")

    run(tmp_path, ["s45-recall-en"], n=1, opinion=llm_opinion("j", completion=down))
    [r] = load_results(tmp_path / "run")
    assert r.verdict.passed
    assert r.verdict.llm_opinion == "(no opinion: TimeoutError: judge endpoint timed out)"


def test_plan_is_round_robin():
    a, b = load_scenarios(["s45-write"])
    assert [(s.id, i) for s, i in plan([a, b], 2)] == [
        (a.id, 0),
        (b.id, 0),
        (a.id, 1),
        (b.id, 1),
    ]


def test_wilson_interval_known_values():
    assert wilson(0, 0) == (0.0, 1.0)
    low, high = wilson(0, 6)
    assert low == 0.0 and high == pytest.approx(0.3903, abs=1e-4)
    low, high = wilson(6, 6)
    assert low == pytest.approx(0.6097, abs=1e-4) and high == 1.0
    low, high = wilson(3, 6)
    assert (low, high) == (pytest.approx(0.1876, abs=1e-4), pytest.approx(0.8124, abs=1e-4))
    with pytest.raises(ValueError):
        wilson(7, 6)


def test_markdown_shows_k_of_n_and_marks_a_partial_run(tmp_path):
    report, _ = run(tmp_path, ["s45-recall-en"], n=1)
    report.samples_planned = 6
    md = render_markdown(report)
    assert "partial: 1 of 6 samples" in md
    assert "| s45-recall-en | recall | 1/1 | 100% |" in md


def test_markdown_names_the_arms_settings_not_the_runs_defaults(tmp_path):
    report, _ = run(tmp_path, ["s45-recall-en"], n=1)
    md = render_markdown(report)
    assert "tools: platform; prompt: full;" in md  # no arms: the run's own settings
    report.config.arms = [parse_arm("only=tools=files-only,memory=remember,force=on")]
    md = render_markdown(report)
    assert (
        "arms: only (prompt=full, tools=files-only, memory=remember, force=on, "
        "levers=read+receipt+loop);" in md
    )
    assert "tools: platform" not in md


def test_cli_runs_lists_and_rebuilds_a_report(tmp_path, monkeypatch, capsys):
    model = ScriptedModel()
    monkeypatch.setattr(memfs_litellm, "run_turn", functools.partial(run_turn, completion=model))
    out = tmp_path / "cli"
    argv = ["eval", "--model", "scripted/m", "--n", "1", "--scenario", "s45-recall-en"]
    assert main([*argv, "--out", str(out), "--completion-arg", "seed=7"]) == 0
    assert "| s45-recall-en | recall | 1/1 |" in capsys.readouterr().out
    saved = json.loads((out / "config.json").read_text())
    assert saved["model"] == "scripted/m" and saved["max_tokens"] == 300
    assert saved["completion_args"] == {"seed": 7}
    (out / "report.md").unlink()
    assert main(["eval", "--report", str(out)]) == 0
    assert (out / "report.md").exists()
    # saved samples are judged again with the current rules; the records stay as they were
    before = (out / SAMPLES_FILE).read_text()
    assert main(["eval", "--report", str(out), "--rejudge"]) == 0
    assert "0 outcome(s) changed" in capsys.readouterr().err
    assert load_results(out)[0].record == load_results_from(before)[0].record
    assert main(["eval", "--list", "--lang", "zh"]) == 0
    listed = capsys.readouterr().out
    assert "s45-write-zh" in listed and "s45-write-en" not in listed
    assert main(["eval", "--n", "2"]) == 2
    assert "--model is required" in capsys.readouterr().err
    assert main(["eval", "--model", "m", "--completion-arg", "think"]) == 2
    assert "KEY=VALUE" in capsys.readouterr().err
    assert (out / SAMPLES_FILE).exists()


# -- arms: interleaved, compared, each with its own levers ----------------------------------------


class OverwritingModel:
    """Writes the new facts over the existing purpose memory, then repeats the same call."""

    def __init__(self) -> None:
        self.systems: list[str] = []
        self.tool_results: list[str] = []

    def __call__(self, **kwargs: Any) -> dict[str, Any]:
        messages = kwargs["messages"]
        self.systems.append(messages[0]["content"])
        results = [m["content"] for m in messages if m["role"] == "tool"]
        self.tool_results = results
        if len(results) >= 2:
            message: dict[str, Any] = {"role": "assistant", "content": "Saved."}
        else:
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    tool_call(
                        len(results), "write_file", path="memory/hub-purpose.md", content=YIELD
                    )
                ],
            }
        return {"choices": [{"message": message, "finish_reason": "stop"}], "usage": {}}


def arms_config(n: int, arms: list[str], ids: list[str], **kw: Any) -> RunConfig:
    return RunConfig(
        model="scripted/model",
        n=n,
        scenarios=ids,
        arms=[parse_arm(a) for a in arms],
        command="memfs eval test",
        **kw,
    )


def test_arms_interleave_take_their_levers_and_are_compared(tmp_path):
    scenarios = load_scenarios(["s45-write-en"])
    model = OverwritingModel()
    cfg = arms_config(
        2,
        ["off=prompt=full,levers=none", "on=prompt=full-after-tools,levers=read+receipt+loop"],
        ["s45-write-en"],
        baseline="off",
    )
    report = run_eval(
        cfg,
        scenarios,
        tmp_path / "run",
        turn_runner=functools.partial(run_turn, completion=model),
        system_prompt="You are the app.",
        now=lambda: NOW,
    )
    results = load_results(tmp_path / "run")
    # interleaved: every arm's sample 0 before any arm's sample 1, arms in a fixed order
    assert [(r.record.arm, r.record.sample) for r in results] == [
        ("off", 0),
        ("on", 0),
        ("off", 1),
        ("on", 1),
    ]
    by_arm = {r.record.arm: r for r in results if r.record.sample == 0}
    # levers off: the overwrite lands (twice: no loop guard) and the purpose memory is gone
    off = by_arm["off"]
    assert off.verdict.destroyed == ["memory/hub-purpose.md"]
    assert [c.name for c in off.record.tool_calls] == ["write_file", "write_file"]
    # ...and its content before the turn is a version the history can restore
    assert off.restorable == {"memory/hub-purpose.md": True}
    assert "restorable from history: memory/hub-purpose.md" in off.verdict.notes
    # levers on: the overwrite is refused, the repeat is answered by the guard, nothing lost
    on = by_arm["on"]
    assert on.verdict.destroyed == [] and on.record.after == on.record.before
    assert on.restorable == {}
    assert on.record.tool_calls[0].result.startswith(
        "Error: memory/hub-purpose.md already exists (a project memory: "
        "'This hub follows production questions for plant A')"
    )
    assert on.record.tool_calls[1].result.startswith("This exact call already ran in this turn")
    for arm in ("off", "on"):
        d = tmp_path / "run" / "samples" / arm / "s45-write-en" / "00"
        assert (d / "transcript.json").exists()
    # the full-after-tools arm got its memory section after the tool list
    placed = [s for s in model.systems if s.index("# Memory") > s.index("save_skill")]
    assert len(placed) == len(model.systems) // 2
    arms = {a.name: a for a in report.arms}
    assert arms["off"].destroyed.k == 2 and arms["on"].destroyed.k == 0
    assert arms["on"].destroyed_vs_baseline is not None
    assert arms["on"].destroyed_vs_baseline.diff == -1.0
    assert arms["on"].passed_vs_previous is not None
    md = (tmp_path / "run" / "report.md").read_text()
    assert "## Arms" in md and "| on | prompt=full-after-tools" in md
    assert "| +0% (-66% to +66%) vs off |" in md  # the previous arm is named in its column
    assert (tmp_path / "run" / "arms.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "](arms.png)" in md
    assert "memory/hub-purpose.md" in md  # the per-sample table names the file destroyed
    assert "restorable from history: memory/hub-purpose.md" in md


def test_a_destroyed_memory_with_no_version_is_reported_not_restorable(tmp_path):
    from memfs import LocalFileStore, MemFS

    from memfs_eval.harness import restorable_from_history, restore_note

    fs = MemFS(LocalFileStore(tmp_path / "ws"), history=False)
    fs.pipe_file("memory/a.md", b"---\nname: a\n---\nA.\n")
    before = {"memory/a.md": fs.raw.cat_file("memory/a.md").decode()}
    fs.pipe_file("memory/a.md", b"---\nname: a\n---\nB.\n")
    got = restorable_from_history(fs, before, ["memory/a.md"])
    assert got == {"memory/a.md": False}
    assert restore_note(got) == "NOT restorable from history: memory/a.md"
    with_history = MemFS(LocalFileStore(tmp_path / "ws2"))
    with_history.pipe_file("memory/a.md", b"---\nname: a\n---\nA.\n")
    before = {"memory/a.md": with_history.raw.cat_file("memory/a.md").decode()}
    with_history.rm("memory/a.md")
    assert restorable_from_history(with_history, before, ["memory/a.md"]) == {"memory/a.md": True}


def test_arms_resume_per_arm(tmp_path):
    scenarios = load_scenarios(["s45-recall-en"])
    arms = ["a=levers=none", "b=levers=default"]
    runner = functools.partial(run_turn, completion=ScriptedModel())
    run_eval(
        arms_config(1, arms, ["s45-recall-en"]),
        scenarios,
        tmp_path / "run",
        turn_runner=runner,
        system_prompt="x",
        now=lambda: NOW,
    )
    model = ScriptedModel()
    report = run_eval(
        arms_config(2, arms, ["s45-recall-en"]),
        scenarios,
        tmp_path / "run",
        turn_runner=functools.partial(run_turn, completion=model),
        system_prompt="x",
        now=lambda: NOW,
        resume=True,
    )
    assert model.calls == 2  # sample 1 of each arm only
    assert report.samples_done == report.samples_planned == 4
    assert [a.passed.n for a in report.arms] == [2, 2]


def test_parse_arm_options_and_errors():
    arm = parse_arm("c=prompt=full,tools=files-only,levers=read+loop,nudge=on")
    assert (arm.prompt, arm.tools) == ("full", "files-only")
    assert (arm.read_before_write, arm.write_receipt, arm.loop_guard, arm.index_nudge) == (
        True,
        False,
        True,
        True,
    )
    assert arm.describe() == "prompt=full, tools=files-only, levers=read+loop+nudge"
    assert parse_arm("b=levers=none").levers == []
    assert parse_arm("d=").levers == ["read", "receipt", "loop"]  # the library's defaults
    assert parse_arm("d=receipt=off").manifest().write_receipt is False
    for bad, says in [
        ("nameonly", "NAME=OPTIONS"),
        ("x=prompt=long", "prompt='long'"),
        ("x=levers=read+fast", "unknown lever"),
        ("x=colour=red", "unknown option 'colour'"),
        ("x=read=maybe", "use on or off"),
        ("../x=levers=none", "NAME=OPTIONS"),
    ]:
        with pytest.raises(ValueError, match=re.escape(says)):
            parse_arm(bad)


def test_interleave_takes_a_round_of_every_arm_and_scenario_at_a_time():
    assert list(interleave(["a", "b"], ["en", "zh"], 2)) == [
        ("a", "en", 0),
        ("b", "en", 0),
        ("a", "zh", 0),
        ("b", "zh", 0),
        ("a", "en", 1),
        ("b", "en", 1),
        ("a", "zh", 1),
        ("b", "zh", 1),
    ]


def test_newcombe_interval_known_values():
    # Newcombe (1998), Table II, example (a): 56/70 vs 48/80 → 0.2, (0.0524, 0.3339)
    d, low, high = newcombe(56, 70, 48, 80)
    assert d == pytest.approx(0.2)
    assert (low, high) == (pytest.approx(0.0524, abs=1e-4), pytest.approx(0.3339, abs=1e-4))
    # example (h): 0/10 vs 0/20 → 0, (-0.1611, 0.2775)
    d, low, high = newcombe(0, 10, 0, 20)
    assert d == 0 and (low, high) == (
        pytest.approx(-0.1611, abs=1e-4),
        pytest.approx(0.2775, abs=1e-4),
    )
    with pytest.raises(ValueError):
        newcombe(1, 0, 1, 2)


def test_cli_takes_arms_and_a_scenario_directory(tmp_path, monkeypatch, capsys):
    model = ScriptedModel()
    monkeypatch.setattr(memfs_litellm, "run_turn", functools.partial(run_turn, completion=model))
    own = tmp_path / "scenarios"
    own.mkdir()
    text = (
        Path(__file__).parents[1] / "adapters/memfs_eval/scenarios/s45-recall-en.yaml"
    ).read_text()
    (own / "mine.yaml").write_text(
        text.replace("id: s45-recall-en", "id: team-recall-de").replace("lang: en", "lang: de"),
        encoding="utf-8",
    )
    out = tmp_path / "cli"
    argv = ["eval", "--model", "scripted/m", "--n", "1", "--scenarios", str(own)]
    argv += ["--arm", "x=levers=none", "--arm", "y=levers=default", "--baseline", "y"]
    assert main([*argv, "--out", str(out), "--lang", "de"]) == 0
    printed = capsys.readouterr().out
    assert "| x | prompt=full, tools=platform, levers=none |" in printed
    saved = json.loads((out / "config.json").read_text())
    assert saved["scenario_dir"] == str(own) and saved["baseline"] == "y"
    assert [a["name"] for a in saved["arms"]] == ["x", "y"]
    (out / "report.md").unlink()
    assert main(["eval", "--report", str(out)]) == 0  # finds the scenarios again
    assert "team-recall-de" in (out / "report.md").read_text()
    assert main([*argv[:-2], "--arm", "x=levers=none", "--out", str(tmp_path / "o2")]) == 2
    assert "must differ" in capsys.readouterr().err
    assert main(["eval", "--model", "m", "--arm", "x=levers=none", "--baseline", "z"]) == 2
    assert "--baseline 'z'" in capsys.readouterr().err


def test_parse_arm_takes_placement_and_framing():
    arm = parse_arm("m=tools=files-only,placement=message,framing=heading")
    assert (arm.placement, arm.framing) == ("message", "heading")
    assert arm.describe() == (
        "prompt=full, tools=files-only, placement=message, framing=heading, "
        "levers=read+receipt+loop"
    )
    assert (parse_arm("a=").placement, parse_arm("a=").framing) == ("prefix", "reminder")
    with pytest.raises(ValueError, match=re.escape("placement='top'; use one of prefix, message")):
        parse_arm("x=placement=top")
    with pytest.raises(ValueError, match=re.escape("framing='xml'; use one of reminder, heading")):
        parse_arm("x=framing=xml")


class EchoingModel:
    """Replies with the newest user-side text it was sent: the context block and the message."""

    def __init__(self) -> None:
        self.requests: list[list[dict[str, Any]]] = []

    def __call__(self, **kwargs: Any) -> dict[str, Any]:
        messages = [dict(m) for m in kwargs["messages"]]  # as sent: the runner appends later
        self.requests.append(messages)
        sent = [m["content"] for m in messages if m["role"] == "user"][-2:]
        block = next((m for m in sent if "<context_file" in m), sent[-1])
        text = block if "<context_file" in block else messages[0]["content"][-600:]
        return {
            "choices": [
                {"message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
            ],
            "usage": {},
        }


def test_arms_send_the_block_where_they_say_and_the_echo_is_reported(tmp_path):
    scenarios = load_scenarios(["s45-recall-en"])
    model = EchoingModel()
    arms = [
        "a=tools=files-only",
        "b=tools=files-only,placement=message",
        "c=tools=files-only,placement=system",
        "d=tools=files-only,framing=heading",
    ]
    report = run_eval(
        arms_config(1, arms, ["s45-recall-en"]),
        scenarios,
        tmp_path / "run",
        turn_runner=functools.partial(run_turn, completion=model),
        system_prompt="You are the app.",
        now=lambda: NOW,
    )
    a, b, c, d = model.requests
    assert a[-1]["content"].startswith("<system-reminder>")
    assert b[-2]["content"].startswith("<system-reminder>") and "<context_" not in b[-1]["content"]
    assert c[0]["content"].endswith("</system-reminder>") and "<context_" not in c[-1]["content"]
    assert d[-1]["content"].startswith("## Workspace files")
    assert "## Workspace files" not in a[-1]["content"]
    results = {r.record.arm: r for r in load_results(tmp_path / "run")}
    assert all(r.record.context_block for r in results.values())
    # every arm's reply repeated the block it was sent (arm c: the system prompt's tail)
    for r in results.values():
        echo = [c for c in r.verdict.checks if c.klass == "echoed_context"]
        assert len(echo) == 1 and echo[0].hit, r.record.arm
        assert "echoed_context" not in r.verdict.flags  # reported beside the outcome
    echoed = {arm.name: (arm.echoed.k, arm.echoed.n) for arm in report.arms}
    assert echoed == {"a": (1, 1), "b": (1, 1), "c": (1, 1), "d": (1, 1)}
    md = (tmp_path / "run" / "report.md").read_text()
    assert "| echoed_context k/N |" in md and "placement=system" in md


def test_a_resumed_sample_never_runs_in_the_workspace_a_stopped_one_left(tmp_path):
    run(tmp_path, ["s45-write-en"], n=1)
    # a run stopped in the middle of sample 1: its directory holds what that turn had written
    left = tmp_path / "run" / "samples" / "s45-write-en" / "01" / "workspace" / "memory"
    left.mkdir(parents=True)
    (left / "save.md").write_text("---\nname: save\n---\nthe facts, saved already\n")
    run(tmp_path, ["s45-write-en"], n=2, resume=True)
    [_, resumed] = load_results(tmp_path / "run")
    assert resumed.record.sample == 1 and "memory/save.md" not in resumed.record.before
    assert resumed.verdict.outcome == "memory_written"
    assert not (left / "save.md").exists()
