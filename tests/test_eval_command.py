"""``memfs eval`` as a command: where it sends the model calls, what a run directory keeps, and
the one line (or exit 1) each failure ends with. The model is scripted; only plumbing is tested."""

from __future__ import annotations

import functools
import json
from typing import Any

import pytest
from memfs.cli import main

import memfs_litellm
from memfs_eval.harness import SAMPLES_FILE
from memfs_litellm import run_turn
from tests.test_eval_harness import ScriptedModel

ONE = ["eval", "--n", "1", "--scenario", "s45-recall-en"]


def scripted(monkeypatch: pytest.MonkeyPatch, model: Any) -> None:
    monkeypatch.setattr(memfs_litellm, "run_turn", functools.partial(run_turn, completion=model))


class Recording(ScriptedModel):
    """The scripted model, keeping the keyword arguments of every call."""

    def __init__(self) -> None:
        super().__init__()
        self.kwargs: list[dict[str, Any]] = []

    def __call__(self, **kwargs: Any) -> dict[str, Any]:
        self.kwargs.append(kwargs)
        return super().__call__(**kwargs)


def test_the_local_model_is_reached_at_its_own_server_and_its_key_is_not_saved(
    tmp_path, monkeypatch, capsys
):
    model = Recording()
    scripted(monkeypatch, model)
    out = tmp_path / "run"
    argv = [*ONE, "--model", "openai/local", "--out", str(out)]
    assert main([*argv, "--completion-arg", "reasoning_effort=low"]) == 0
    assert model.kwargs and all(
        (k["api_base"], k["api_key"], k["reasoning_effort"])
        == ("http://127.0.0.1:8765/v1", "local-no-key", "low")
        for k in model.kwargs
    )
    saved = (out / "config.json").read_text()
    config = json.loads(saved)
    assert config["api_base"] == "http://127.0.0.1:8765/v1"
    assert config["completion_args"] == {"reasoning_effort": "low"}  # not JSON: kept as text
    assert "local-no-key" not in saved
    assert f"Report: {out / 'report.md'}" in capsys.readouterr().out


def test_an_endpoint_and_key_given_are_used_as_given(tmp_path, monkeypatch):
    model = Recording()
    scripted(monkeypatch, model)
    out = tmp_path / "run"
    argv = [*ONE, "--model", "openai/x", "--api-base", "http://h:1/v1", "--api-key", "k-1"]
    assert main([*argv, "--out", str(out)]) == 0
    assert {(k["api_base"], k["api_key"]) for k in model.kwargs} == {("http://h:1/v1", "k-1")}
    assert json.loads((out / "config.json").read_text())["api_base"] == "http://h:1/v1"


def test_a_resumed_run_keeps_the_start_and_command_it_was_begun_with(tmp_path, monkeypatch):
    scripted(monkeypatch, ScriptedModel())
    out = tmp_path / "run"
    argv = [*ONE, "--model", "scripted/m", "--out", str(out)]
    assert main(argv) == 0
    first = json.loads((out / "config.json").read_text())
    first_config = {**first, "started": "2026-11-30T08:00:00+00:00", "run_id": "the-first"}
    (out / "config.json").write_text(json.dumps(first_config))
    assert main([*argv, "--resume", "--n", "2"]) == 0
    resumed = json.loads((out / "config.json").read_text())
    assert (resumed["started"], resumed["run_id"], resumed["command"]) == (
        "2026-11-30T08:00:00+00:00",
        "the-first",
        first["command"],
    )
    assert resumed["n"] == 2
    assert len((out / SAMPLES_FILE).read_text().splitlines()) == 2


def test_a_run_of_two_arms_resumed_one_arm_at_a_time_keeps_every_samples_files(
    tmp_path, monkeypatch
):
    # A one-arm resume of a two-arm run lays its samples out under their arm, as the run began:
    # laid out flat, the second arm's sample 1 would land in the first arm's directory.
    scripted(monkeypatch, ScriptedModel())
    out = tmp_path / "run"
    arms = ["--arm", "a=tools=files-only", "--arm", "b=tools=files-only,memory=remember"]
    base = ["eval", "--scenario", "s45-recall-en", "--model", "scripted/m", "--out", str(out)]
    assert main([*base, "--n", "1", *arms]) == 0
    for arm in arms[1::2]:
        assert main([*base, "--n", "2", "--arm", arm, "--resume"]) == 0
    config = json.loads((out / "config.json").read_text())
    assert config["arm_dirs"] is True and [a["name"] for a in config["arms"]] == ["b"]
    rows = [json.loads(line)["record"] for line in (out / SAMPLES_FILE).read_text().splitlines()]
    assert sorted((r["arm"], r["sample"]) for r in rows) == [("a", 0), ("a", 1), ("b", 0), ("b", 1)]
    for r in rows:
        where = out / "samples" / r["arm"] / "s45-recall-en" / f"{r['sample']:02d}"
        assert json.loads((where / "record.json").read_text())["arm"] == r["arm"]
    assert not (out / "samples" / "s45-recall-en").exists()


def test_a_one_arm_run_keeps_the_arm_out_of_its_samples_paths(tmp_path, monkeypatch):
    scripted(monkeypatch, ScriptedModel())
    out = tmp_path / "run"
    argv = [*ONE, "--model", "scripted/m", "--out", str(out), "--arm", "a=tools=files-only"]
    assert main(argv) == 0 and main([*argv[:2], "2", *argv[3:], "--resume"]) == 0
    assert json.loads((out / "config.json").read_text())["arm_dirs"] is False
    assert sorted(p.name for p in (out / "samples" / "s45-recall-en").iterdir()) == ["00", "01"]


def test_a_dead_endpoint_ends_the_run_with_exit_1_and_what_to_do(tmp_path, monkeypatch, capsys):
    def refused(**kwargs: Any) -> Any:
        raise ConnectionError("endpoint refused the connection")

    scripted(monkeypatch, refused)
    out = tmp_path / "run"
    assert (
        main(["eval", "--n", "3", "--scenario", "s45-recall-en", "--model", "m", "--out", str(out)])
        == 1
    )
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last == (
        "memfs eval: 3 samples in a row failed to run, the last with: ConnectionError: endpoint "
        f"refused the connection. The run stopped with its samples so far in {str(out)!r}; check "
        "the endpoint (for the local model: `memfs model status`), then run the same command "
        "with --resume, which also takes the failed samples again."
    )
    assert len((out / SAMPLES_FILE).read_text().splitlines()) == 3


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--model", "m", "--n", "0"], "memfs eval: --n must be at least 1."),
        (
            ["--model", "m", "--completion-arg", "=1"],
            "memfs eval: --completion-arg '=1' is not KEY=VALUE (e.g. think=false).",
        ),
    ],
)
def test_a_usage_problem_is_one_line_and_runs_nothing(tmp_path, monkeypatch, capsys, argv, said):
    model = Recording()
    scripted(monkeypatch, model)
    assert main(["eval", *argv, "--out", str(tmp_path / "run")]) == 2
    assert capsys.readouterr().err == said + "\n"
    assert model.calls == 0 and not (tmp_path / "run").exists()


def test_rebuilding_the_report_of_a_directory_that_is_no_run_is_one_line(tmp_path, capsys):
    assert main(["eval", "--report", str(tmp_path)]) == 2
    assert capsys.readouterr().err == (
        f"memfs eval: {str(tmp_path / 'config.json')!r} not found; --report needs a run "
        "directory made by memfs eval.\n"
    )


def test_rebuilding_a_report_whose_scenario_is_gone_is_one_line(tmp_path, monkeypatch, capsys):
    scripted(monkeypatch, ScriptedModel())
    out = tmp_path / "run"
    assert main([*ONE, "--model", "scripted/m", "--out", str(out)]) == 0
    config = json.loads((out / "config.json").read_text())
    (out / "config.json").write_text(json.dumps({**config, "scenarios": ["retired-one"]}))
    capsys.readouterr()
    assert main(["eval", "--report", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("memfs eval: ") and "retired-one" in err and err.count("\n") == 1
