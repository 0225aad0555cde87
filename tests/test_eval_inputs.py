"""What ``memfs eval`` refuses in its inputs (an arm spec, a scenario file, a scenario folder),
the judge model's defaults, and a re-judge of a run whose scenario was retired or whose sample
destroyed a memory the history can restore. Models are scripted (plumbing only)."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest

from memfs_eval.arms import parse_arm
from memfs_eval.harness import load_results, rejudge, run_eval
from memfs_eval.opinion import llm_opinion
from memfs_eval.report import RunConfig
from memfs_eval.scenario import ScenarioError, load_scenario_file, load_scenarios
from memfs_litellm import run_turn
from tests.test_eval_harness import NOW, OverwritingModel

SCENARIOS = Path(__file__).parents[1] / "adapters/memfs_eval/scenarios"


@pytest.mark.parametrize(
    ("spec", "said"),
    [
        ("x=levers", "--arm x: 'levers' is not key=value."),
        ("x=tools=all", "--arm x: tools='all'; use platform or files-only."),
    ],
)
def test_an_arm_spec_that_does_not_parse_says_which_part(spec: str, said: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_arm(spec)
    assert str(info.value) == said


def test_a_seed_file_outside_the_workspace_is_refused(tmp_path: Path) -> None:
    text = (SCENARIOS / "s45-recall-en.yaml").read_text(encoding="utf-8")
    bad = tmp_path / "bad.yaml"
    bad.write_text(text + "seed_files:\n  ../escape.md: x\n", encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        load_scenario_file(bad)
    said = str(info.value)
    assert said.startswith(f"Scenario file {str(bad)!r} is not valid: ")
    assert "seed file '../escape.md' must be a workspace-relative path" in said


def test_two_scenario_files_with_one_id_are_refused(tmp_path: Path) -> None:
    text = (SCENARIOS / "s45-recall-en.yaml").read_text(encoding="utf-8")
    (tmp_path / "a.yaml").write_text(text, encoding="utf-8")
    (tmp_path / "b.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        load_scenarios(directory=tmp_path)
    assert str(info.value) == f"Two scenario files in {str(tmp_path)!r} use the id 's45-recall-en'."


def test_the_judge_model_is_asked_through_litellm_by_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    litellm = pytest.importorskip("litellm")
    asked: list[dict[str, Any]] = []

    def completion(**kwargs: Any) -> dict[str, Any]:
        asked.append(kwargs)
        return {"choices": []}  # an endpoint that answers nothing

    monkeypatch.setattr(litellm, "completion", completion)
    opinion = llm_opinion("judge/m", completion_kwargs={"temperature": 0})
    (scenario,) = load_scenarios(["s45-recall-en"])
    said = opinion(scenario, _any_record(), _any_verdict())
    assert said == ""  # no choice: no opinion, and no exception
    (call,) = asked
    assert call["model"] == "judge/m" and call["temperature"] == 0


def _overwrite_run(tmp_path: Path) -> tuple[Path, RunConfig]:
    config = RunConfig(
        model="scripted/model",
        n=1,
        scenarios=["s45-write-en"],
        arms=[parse_arm("off=prompt=full,levers=none")],
        command="memfs eval test",
    )
    run_eval(
        config,
        load_scenarios(["s45-write-en"]),
        tmp_path / "run",
        turn_runner=functools.partial(run_turn, completion=OverwritingModel()),
        system_prompt="You are the app.",
        now=lambda: NOW,
    )
    return tmp_path / "run", config


def test_a_rejudged_sample_keeps_the_note_that_its_loss_is_restorable(tmp_path: Path) -> None:
    out, config = _overwrite_run(tmp_path)
    (before,) = load_results(out)
    assert before.verdict.destroyed == ["memory/hub-purpose.md"]
    assert rejudge(out, load_scenarios(["s45-write-en"]), config) == 0
    (after,) = load_results(out)
    assert after.verdict.notes == before.verdict.notes
    assert "restorable from history: memory/hub-purpose.md" in after.verdict.notes


def test_a_sample_of_a_retired_scenario_is_kept_as_it_was(tmp_path: Path) -> None:
    out, config = _overwrite_run(tmp_path)
    (before,) = load_results(out)
    assert rejudge(out, load_scenarios(["s45-recall-en"]), config) == 0
    assert load_results(out) == [before]


def _any_record() -> Any:
    from memfs_eval.judge import SampleRecord

    return SampleRecord(
        scenario_id="s45-recall-en", sample=0, before={}, after={}, final_text="It is MES."
    )


def _any_verdict() -> Any:
    from memfs_eval.judge import Verdict

    return Verdict(scenario_id="s45-recall-en", sample=0, outcome="recall_pass", passed=True)
