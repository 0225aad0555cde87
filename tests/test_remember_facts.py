"""``remember_facts``: the facts of one message in one call, one memory each (a live-check arm)."""

from __future__ import annotations

import datetime as dt
import functools
import json
from pathlib import Path
from typing import Any

import pytest
from memfs import (
    FILE_WRITE_TOOLS,
    MEMORY_SAVERS,
    REMEMBER,
    REMEMBER_BY_KIND,
    REMEMBER_FACTS,
    FileToolExecutor,
    InMemoryFileStore,
    MemFS,
    file_tool_schemas,
    parse_memory,
)
from memfs.tools import RememberArgs

from memfs_eval.arms import parse_arm
from memfs_eval.harness import load_results, run_eval
from memfs_eval.report import RunConfig
from memfs_eval.scenario import load_scenarios
from memfs_litellm import TurnOptions, run_turn
from memfs_litellm.platform_tools import is_file_tool, tool_schemas
from memfs_litellm.runner import MemoryTools, memory_saver
from tests.conftest import CallingModel

TODAY = dt.date(2026, 12, 1)
TOOLS = ["read_file", "write_file", REMEMBER_FACTS]
ROLE = {"name": "user role", "description": "The user's role", "type": "user", "body": "QA lead."}
YIELD = {
    "name": "yield source",
    "description": "Where yield comes from",
    "type": "project",
    "body": "Use MES daily_yield, not the QA report.",
}


def workspace() -> MemFS:
    return MemFS(InMemoryFileStore(), clock=lambda: TODAY)


def text(fs: MemFS, path: str) -> str:
    return fs.raw.cat_file(path).decode("utf-8")


def test_two_facts_become_two_memories_of_their_own_types_and_two_index_lines():
    fs = workspace()
    out = FileToolExecutor(fs, tools=TOOLS).execute(REMEMBER_FACTS, {"facts": [YIELD, ROLE]})
    first, second = (
        out.splitlines()[0],
        next(line for line in out.splitlines() if line.startswith("Fact 2: ")),
    )
    assert first.startswith("Fact 1: Remembered memory/yield-source.md (")
    assert second.startswith("Fact 2: Remembered memory/user-role.md (")
    assert "type project" in first and "type user" in second
    types = {
        path: parse_memory(text(fs, path), path).type
        for path in ("memory/yield-source.md", "memory/user-role.md")
    }
    assert types == {"memory/yield-source.md": "project", "memory/user-role.md": "user"}
    assert text(fs, "MEMORY.md").splitlines() == [
        "- [yield source](memory/yield-source.md) — Where yield comes from",
        "- [user role](memory/user-role.md) — The user's role",
    ]


def test_a_refused_fact_does_not_stop_the_others():
    fs = workspace()
    copied = {**ROLE, "body": RememberArgs.model_fields["body"].description}  # help text back
    out = FileToolExecutor(fs, tools=TOOLS).execute(REMEMBER_FACTS, {"memories": [copied, YIELD]})
    assert out.startswith("Fact 1: Error: The body is this tool's own help text copied back")
    assert "Fact 2: Remembered memory/yield-source.md" in out
    assert fs.raw.ls("memory", detail=False) == ["memory/yield-source.md"]


def test_one_fact_sent_without_the_list_and_each_facts_shapes_are_repaired_and_reported():
    fs = workspace()
    ex = FileToolExecutor(fs, tools=TOOLS)
    out = ex.execute(REMEMBER_FACTS, json.dumps(ROLE))
    assert out.startswith("Fact 1: Remembered memory/user-role.md")
    assert out.endswith(
        "Repaired arguments: one fact was sent without the facts list; read as a list of one."
    )
    lines = {**YIELD, "name": "yield lines", "body": ["Use MES.", "Not QA."]}
    dotted = {k: v for k, v in ROLE.items() if k != "type"} | {"metadata.type": "user"}
    out = ex.execute(REMEMBER_FACTS, {"facts": [lines, {**dotted, "name": "role two"}]})
    assert out.endswith(
        "Repaired arguments: fact 1: 'body' was a list of lines; joined; "
        "fact 2: 'metadata.type' read as 'type'."
    )
    assert parse_memory(text(fs, "memory/yield-lines.md"), "x").body == "Use MES.\nNot QA.\n"
    assert parse_memory(text(fs, "memory/role-two.md"), "x").type == "user"


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ({"facts": []}, "facts"),
        ({"facts": [ROLE] * 11}, "facts"),
        ({"facts": "user role"}, "facts"),
        ({"other": 1}, "facts"),
    ],
)
def test_a_call_holding_no_usable_list_is_refused_with_what_to_send(arguments, problem):
    fs = workspace()
    out = FileToolExecutor(fs, tools=TOOLS).execute(REMEMBER_FACTS, arguments)
    assert out.startswith(f"Error: Invalid arguments for {REMEMBER_FACTS}: ") and problem in out
    assert not fs.raw.exists("MEMORY.md")


def test_the_schema_holds_each_fact_inline_and_is_offered_only_when_named():
    (schema,) = file_tool_schemas([REMEMBER_FACTS])
    params = schema["function"]["parameters"]
    assert "$defs" not in json.dumps(params) and "$ref" not in json.dumps(params)
    item = params["properties"]["facts"]["items"]
    assert set(item["properties"]) == {"name", "description", "type", "body", "hook"}
    assert item["additionalProperties"] is False and params["additionalProperties"] is False
    assert (
        params["required"] == ["facts"] and "one item per fact" in schema["function"]["description"]
    )
    assert REMEMBER_FACTS not in [s["function"]["name"] for s in file_tool_schemas()]
    assert MEMORY_SAVERS == (REMEMBER, REMEMBER_FACTS, REMEMBER_BY_KIND)
    assert REMEMBER_FACTS in FILE_WRITE_TOOLS and is_file_tool(REMEMBER_FACTS)
    names = [s["function"]["name"] for s in tool_schemas("files-only", saver=REMEMBER_FACTS)]
    assert names[-1] == REMEMBER_FACTS and REMEMBER not in names
    memory: tuple[MemoryTools, ...] = ("files", "files+remember", "remember", "facts", "kinds")
    assert [memory_saver(m) for m in memory] == [
        None,
        REMEMBER,
        REMEMBER,
        REMEMBER_FACTS,
        REMEMBER_BY_KIND,
    ]


def run_scripted_arm(
    tmp_path: Path, arm_spec: str, calls: list[tuple[str, dict[str, Any]]]
) -> tuple[Any, CallingModel]:
    """One s45-write-en sample of the arm ``arm_spec`` whose model makes ``calls``: its result
    as the live check stores it, and the model (its requests)."""
    model = CallingModel(calls)
    run_eval(
        RunConfig(
            model="scripted",
            n=1,
            scenarios=["s45-write-en"],
            arms=[parse_arm(arm_spec)],
            max_steps=4,
        ),
        load_scenarios(["s45-write-en"]),
        tmp_path / "run",
        turn_runner=functools.partial(run_turn, completion=model),
        system_prompt="You are the app.",
        now=lambda: dt.datetime(2026, 12, 2, tzinfo=dt.UTC),
    )
    (result,) = load_results(tmp_path / "run")
    return result, model


def test_the_facts_arm_forces_remember_facts_and_refuses_memory_paths_to_the_file_tools(tmp_path):
    # both facts of s45-write in one remember_facts call, then write_file on the index
    result, model = run_scripted_arm(
        tmp_path,
        "l=memory=facts,force=on,tools=files-only",
        [
            (REMEMBER_FACTS, {"facts": [YIELD, {**ROLE, "body": "I am a process engineer."}]}),
            ("write_file", {"path": "MEMORY.md", "content": "x"}),
        ],
    )
    assert result.record.offered_tools[-1] == REMEMBER_FACTS
    assert REMEMBER not in result.record.offered_tools
    forced = [r.get("tool_choice") for r in model.requests]
    assert forced[0] == {"type": "function", "function": {"name": REMEMBER_FACTS}}
    assert all(f is None for f in forced[1:])
    refused = result.record.tool_calls[1].result
    assert refused.startswith(
        "Error: MEMORY.md is memory, and here memory is saved with remember_facts (one item per "
        "fact)"
    )
    assert {"memory/yield-source.md", "memory/user-role.md"} <= set(result.record.after)
    assert result.verdict.outcome == "memory_written", result.verdict.checks
    assert TurnOptions(memory_tools="facts").memory_tools == "facts"
