"""A run spread over several endpoints, and the order its samples take: plumbing only.

The scripted model stands in for two servers of one model; the tests hold the workers together
with barriers and events (counts, never sleeps), so both endpoints are busy at once.
"""

from __future__ import annotations

import functools
import json
import threading
from pathlib import Path
from typing import Any

import pytest
from memfs.cli import main

import memfs_litellm
from memfs_eval.arms import interleave, parse_arm, work_units
from memfs_eval.harness import (
    SAMPLES_FILE,
    EndpointFailedError,
    load_results,
    run_eval,
    sample_seed,
)
from memfs_eval.report import RunConfig
from memfs_eval.scenario import load_scenarios
from memfs_litellm import run_turn
from tests.test_eval_harness import NOW, ScriptedModel

ENDPOINTS = ["http://127.0.0.1:1/v1", "http://127.0.0.1:2/v1"]


class TwoServers:
    """One scripted model behind two endpoints: records which endpoint answered which sample,
    in the order each endpoint saw them; the first call on each endpoint waits for the other's,
    so both workers are running before either goes on.

    With ``fail``, that endpoint refuses every call, and the other answers only once
    :attr:`release` is set (by the test, when the run has recorded the third failure)."""

    def __init__(self, fail: str | None = None) -> None:
        self.model = ScriptedModel()
        self.lock = threading.Lock()
        self.seen: dict[str, list[int]] = {base: [] for base in ENDPOINTS}
        self.started = threading.Barrier(2, timeout=60)
        self.first = set(ENDPOINTS)
        self.fail = fail
        self.release = threading.Event()

    def __call__(self, **kwargs: Any) -> dict[str, Any]:
        base = kwargs["api_base"]
        with self.lock:
            first = base in self.first
            self.first.discard(base)
            self.seen[base].append(kwargs["seed"])
        if first:
            self.started.wait()
        if base == self.fail:
            raise ConnectionError("endpoint refused the connection")
        if self.fail is not None:
            assert self.release.wait(timeout=60)
        with self.lock:
            return self.model(**kwargs)


SCENARIOS = ["s45-recall-en", "s45-recall-zh"]


def run_with(tmp_path: Path, config: RunConfig, completion: Any, **kw: Any) -> Any:
    """:func:`run_eval` of the two recall scenarios into ``tmp_path / "run"``."""
    return run_eval(
        config,
        load_scenarios(SCENARIOS),
        tmp_path / "run",
        turn_runner=functools.partial(run_turn, completion=completion),
        system_prompt="You are the app.",
        now=lambda: NOW,
        **kw,
    )


def run(
    tmp_path: Path,
    servers: TwoServers,
    n: int,
    arms: list[str],
    on_sample: Any = None,
    **kw: Any,
):
    config = RunConfig(
        model="scripted/model",
        n=n,
        scenarios=SCENARIOS,
        arms=[parse_arm(a) for a in arms],
        api_bases=ENDPOINTS,
        command="memfs eval test",
        **kw,
    )
    return run_with(tmp_path, config, servers, on_sample=on_sample)


# -- the order --------------------------------------------------------------------------------


def test_blocks_hold_every_sample_of_one_arm_and_scenario_and_leave_out_the_done():
    done = {("a", "x", 0), ("b", "y", 0), ("b", "y", 1)}
    units = work_units(["a", "b"], ["x", "y"], 2, "blocks", lambda *t: t in done)
    assert units == [
        [("a", "x", 1)],
        [("a", "y", 0), ("a", "y", 1)],
        [("b", "x", 0), ("b", "x", 1)],
    ]
    singles = work_units(["a", "b"], ["x", "y"], 2, "interleaved", lambda *t: t in done)
    assert singles == [[t] for t in interleave(["a", "b"], ["x", "y"], 2) if t not in done]


@pytest.mark.parametrize("order", ["interleaved", "blocks"])
@pytest.mark.parametrize(("arms", "scenarios", "n"), [(1, 1, 1), (3, 2, 4), (2, 5, 3)])
def test_every_order_takes_each_sample_not_done_exactly_once(order, arms, scenarios, n):
    every = [(a, s, i) for a in range(arms) for s in range(scenarios) for i in range(n)]
    done = set(every[::3])
    units = work_units(list(range(arms)), list(range(scenarios)), n, order, lambda *t: t in done)
    taken = [t for u in units for t in u]
    assert sorted(taken) == sorted(set(every) - done) and len(taken) == len(set(taken))
    assert all(units)


# -- several endpoints ------------------------------------------------------------------------


def test_two_endpoints_share_the_samples_each_taken_once_with_its_own_seed(tmp_path):
    servers = TwoServers()
    report = run(tmp_path, servers, n=3, arms=["a=levers=default", "b=levers=none"])
    results = load_results(tmp_path / "run")
    keys = [(r.record.arm, r.record.scenario_id, r.record.sample) for r in results]
    assert len(keys) == len(set(keys)) == 12 == report.samples_done == report.samples_planned
    assert all(servers.seen[base] for base in ENDPOINTS)  # both endpoints took samples
    # a sample's seed is the run's, whichever endpoint ran it
    for r in results:
        assert r.record.seed == sample_seed(
            "run", r.record.arm, r.record.scenario_id, r.record.sample
        )
    assert {s for seeds in servers.seen.values() for s in seeds} == {r.record.seed for r in results}
    assert all(r.verdict.passed for r in results)


def test_blocks_keep_each_arm_and_scenario_on_one_endpoint_in_a_row(tmp_path):
    servers = TwoServers()
    run(tmp_path, servers, n=3, arms=["a=levers=default", "b=levers=none"], order="blocks")
    results = load_results(tmp_path / "run")
    by_seed = {r.record.seed: (r.record.arm, r.record.scenario_id) for r in results}
    blocks = {base: [by_seed[s] for s in seeds] for base, seeds in servers.seen.items()}
    for seq in blocks.values():
        runs = [k for i, k in enumerate(seq) if i == 0 or seq[i - 1] != k]
        assert len(runs) == len(set(runs))  # a block is never split or revisited
        assert all(seq.count(k) == 3 for k in runs)  # and taken whole on one endpoint
    assert sorted(k for seq in blocks.values() for k in set(seq)) == sorted(
        {(a, s) for a, s in by_seed.values()}
    )


def test_a_dead_endpoint_stops_every_worker_and_resume_takes_the_rest(tmp_path):
    servers = TwoServers(fail=ENDPOINTS[1])
    failures = []

    def on_sample(result: Any) -> None:  # called as each sample is recorded, under the run's lock
        if result.record.error:
            failures.append(result)
        if len(failures) == 3:
            servers.release.set()

    with pytest.raises(EndpointFailedError, match="3 samples in a row failed"):
        run(tmp_path, servers, n=4, arms=["a=levers=default"], on_sample=on_sample)
    results = load_results(tmp_path / "run")
    # the healthy worker ended the sample it had begun, and took no other
    assert [bool(r.record.error) for r in results] == [True, True, True, False]
    model = ScriptedModel()
    config = RunConfig(model="m", n=4, scenarios=SCENARIOS, arms=[parse_arm("a=levers=default")])
    resumed = run_with(tmp_path, config, model, resume=True)
    assert model.calls == 7  # the three failed samples again, and the four never begun
    assert resumed.samples_done == 8
    assert not any(r.record.error for r in load_results(tmp_path / "run"))


def test_the_command_records_endpoints_order_and_notes_and_a_resume_that_changes_them(
    tmp_path, monkeypatch, capsys
):
    one = ScriptedModel()
    monkeypatch.setattr(memfs_litellm, "run_turn", functools.partial(run_turn, completion=one))
    out = tmp_path / "cli"
    argv = ["eval", "--model", "scripted/m", "--scenario", "s45-recall-en", "--out", str(out)]
    argv += ["--scenario", "s45-recall-zh", "--arm", "a=levers=default"]
    assert main([*argv, "--n", "1", "--api-base", ENDPOINTS[0], "--note", "a quiet machine"]) == 0
    saved = json.loads((out / "config.json").read_text())
    assert (saved["order"], saved["api_bases"], saved["notes"]) == (
        "interleaved",
        [],
        ["a quiet machine"],
    )
    servers = TwoServers()
    monkeypatch.setattr(memfs_litellm, "run_turn", functools.partial(run_turn, completion=servers))
    more = ["--n", "3", "--order", "blocks", "--resume", "--api-base", ENDPOINTS[0]]
    assert main([*argv, *more, "--api-base", ENDPOINTS[1]]) == 0
    saved = json.loads((out / "config.json").read_text())
    assert (saved["order"], saved["api_bases"]) == ("blocks", ENDPOINTS)
    assert saved["notes"] == [
        "a quiet machine",
        "resumed after 2 samples with order blocks on 2 endpoint(s) (before: interleaved on 1)",
    ]
    report = (out / "report.md").read_text()
    assert f"- endpoints: 2, a worker each ({', '.join(ENDPOINTS)})" in report
    assert "- note: a quiet machine" in report and "- note: resumed after 2 samples" in report
    assert len((out / SAMPLES_FILE).read_text().splitlines()) == 6
    assert all(servers.seen[base] for base in ENDPOINTS)
    capsys.readouterr()


class Stop(BaseException):
    """What no sample turns into a run error (as Ctrl-C): it ends the run."""


@pytest.mark.parametrize("where", [0, 1], ids=["main worker", "worker thread"])
def test_a_worker_that_is_interrupted_stops_the_run_and_the_other_ends_its_sample(tmp_path, where):
    model = ScriptedModel()
    calls: dict[str, int] = {}
    begun = threading.Barrier(2, timeout=60)  # both workers are in a sample
    go = threading.Event()  # the healthy worker's sample goes on once the run has stopped
    stopper: list[threading.Thread] = []

    def endpoints(**kwargs: Any) -> dict[str, Any]:
        base = kwargs["api_base"]
        calls[base] = calls.get(base, 0) + 1
        if base == ENDPOINTS[where]:
            stopper.append(threading.current_thread())
            begun.wait()
            raise Stop
        begun.wait()
        if where == 1:  # the interrupted worker thread has ended: the run has stopped
            stopper[0].join(timeout=60)
            assert not stopper[0].is_alive()
        else:  # the test sets it when the run has raised
            assert go.wait(timeout=60)
        return model(**kwargs)

    before = set(threading.enumerate())

    config = RunConfig(model="m", n=3, scenarios=SCENARIOS, api_bases=ENDPOINTS)
    with pytest.raises(Stop):
        run_with(tmp_path, config, endpoints)
    go.set()
    for t in set(threading.enumerate()) - before:
        if "_worker" in t.name:  # the run's own (litellm keeps threads of its own)
            t.join(timeout=60)
            assert not t.is_alive()
    # nothing of the interrupted sample is recorded; the other worker's one sample is, whole
    assert calls == {ENDPOINTS[0]: 1, ENDPOINTS[1]: 1}
    [kept] = load_results(tmp_path / "run")
    assert kept.verdict.passed
