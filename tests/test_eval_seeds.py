"""Seeds of the live check: every sample is sent its own seed, recorded, and the report says
when samples of one arm still came back byte-identical. Scripted models: plumbing only."""

from __future__ import annotations

import datetime as dt
import functools
import json
import random
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from memfs_eval.harness import first_reply, load_results, run_eval, sample_seed
from memfs_eval.report import RunConfig, identical_replies, render_markdown
from memfs_eval.scenario import load_scenarios
from memfs_litellm import run_turn

NOW = dt.datetime(2026, 12, 2, 1, 0, tzinfo=dt.UTC)
WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india"]


class StochasticModel:
    """Answers with words drawn from a generator seeded by the request's ``seed``: like a
    sampling server, the same seed gives the same reply and another seed another."""

    def __init__(self) -> None:
        self.seeds: list[Any] = []

    def __call__(self, **kwargs: Any) -> dict[str, Any]:
        self.seeds.append(kwargs.get("seed"))
        rng = random.Random(kwargs.get("seed"))
        text = " ".join(rng.choice(WORDS) for _ in range(8))
        return {"choices": [{"message": {"role": "assistant", "content": text}}]}


class FixedModel(StochasticModel):
    """Ignores the seed: every reply the same (what a server restoring its seed looks like)."""

    def __call__(self, **kwargs: Any) -> dict[str, Any]:
        self.seeds.append(kwargs.get("seed"))
        return {"choices": [{"message": {"role": "assistant", "content": "the same reply"}}]}


def run(tmp_path: Path, model: Any, n: int = 3, **config: Any):
    scenarios = load_scenarios(["s45-write-en"])
    cfg = RunConfig(model="scripted/model", n=n, scenarios=["s45-write-en"], **config)
    report = run_eval(
        cfg,
        scenarios,
        tmp_path / "run",
        turn_runner=functools.partial(run_turn, completion=model),
        system_prompt="You are the app.",
        completion_kwargs={"temperature": 0.7},
        now=lambda: NOW,
    )
    return report, load_results(tmp_path / "run")


def test_sample_seed_is_deterministic_and_differs_per_sample_arm_scenario_and_run():
    seed = sample_seed("run-1", "a", "s45-write-en", 0)
    assert seed == sample_seed("run-1", "a", "s45-write-en", 0)
    others = {
        sample_seed("run-1", "a", "s45-write-en", 1),
        sample_seed("run-1", "b", "s45-write-en", 0),
        sample_seed("run-1", "a", "s45-write-zh", 0),
        sample_seed("run-2", "a", "s45-write-en", 0),
        sample_seed("run-1", "a", "s45-write-en", 0, base=7),
    }
    assert seed not in others and len(others) == 5
    assert all(0 <= s < 2**31 for s in [seed, *others])


def test_two_samples_of_one_arm_get_different_seeds_and_a_stochastic_model_differs(tmp_path):
    model = StochasticModel()
    report, results = run(tmp_path, model, run_id="fixed-run")
    seeds = [r.record.seed for r in results]
    assert len(set(seeds)) == 3 and None not in seeds
    assert seeds == [sample_seed("fixed-run", "default", "s45-write-en", i) for i in range(3)]
    assert model.seeds == seeds  # sent with the completion, one call per sample here
    replies = [r.record.first_reply for r in results]
    assert len(set(replies)) == 3 and all(replies)
    assert report.identical_replies == []
    assert "Identical first replies" not in render_markdown(report)


def test_a_run_given_a_seed_still_sends_each_sample_its_own(tmp_path):
    model = StochasticModel()
    scenarios = load_scenarios(["s45-write-en"])
    run_eval(
        RunConfig(model="m", n=2, scenarios=["s45-write-en"]),
        scenarios,
        tmp_path / "run",
        turn_runner=functools.partial(run_turn, completion=model),
        system_prompt="You are the app.",
        completion_kwargs={"seed": 42},
        now=lambda: NOW,
    )
    assert len(set(model.seeds)) == 2 and 42 not in model.seeds
    # without a run_id the run's folder names the run
    assert model.seeds[0] == sample_seed("run", "default", "s45-write-en", 0, base=42)


def test_byte_identical_replies_of_one_arm_are_flagged(tmp_path):
    report, results = run(tmp_path, FixedModel())
    assert len({r.record.seed for r in results}) == 3
    assert [g.samples for g in report.identical_replies] == [[0, 1, 2]]
    md = render_markdown(report)
    assert "Identical first replies" in md and "s45-write-en: samples #0, #1, #2" in md
    saved = json.loads((tmp_path / "run" / "report.json").read_text(encoding="utf-8"))
    assert saved["identical_replies"][0]["samples"] == [0, 1, 2]


def test_identical_replies_group_by_arm_and_scenario_and_skip_empty():
    groups = identical_replies(
        {
            ("a", "s1", 0): "x",
            ("a", "s1", 1): "x",
            ("b", "s1", 0): "x",
            ("a", "s2", 0): "x",
            ("a", "s1", 2): "",
            ("a", "s1", 3): "",
        }
    )
    assert [(g.arm, g.scenario_id, g.samples) for g in groups] == [("a", "s1", [0, 1])]
    assert groups[0].line() == "a s1: samples #0, #1"


def test_first_reply_takes_the_first_assistant_message_with_its_calls():
    result = SimpleNamespace(
        transcript=[
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": None, "tool_calls": [{"id": "c1"}]},
            {"role": "assistant", "content": "later"},
        ]
    )
    assert json.loads(first_reply(result)) == [None, [{"id": "c1"}]]
    assert first_reply(object()) == ""
