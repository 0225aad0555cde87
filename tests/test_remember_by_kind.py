"""``remember_by_kind``: the facts of one message in one list per memory type (a live-check arm)."""

from __future__ import annotations

import json

import pytest
from memfs import (
    FILE_WRITE_TOOLS,
    REMEMBER_BY_KIND,
    FileToolExecutor,
    file_tool_schemas,
    parse_memory,
)
from memfs.tools import RememberByKindArgs

from memfs_litellm import TurnOptions
from memfs_litellm.platform_tools import is_file_tool
from tests.test_remember_facts import run_scripted_arm, text, workspace

TOOLS = ["read_file", "write_file", REMEMBER_BY_KIND]
YIELD = "The authoritative source for yield is the MES daily_yield table, not the QA weekly report."
ROLE = "I am a process engineer, so there is no need to explain Cpk to me."


def test_each_list_gives_its_type_and_each_fact_its_own_file_name_and_index_line():
    fs = workspace()
    out = FileToolExecutor(fs, tools=TOOLS).execute(
        REMEMBER_BY_KIND,
        {
            "about_this_work": [YIELD],
            "about_the_user": [ROLE],
            "how_to_work": ["Answer in short bullet points."],
            "where_to_look": ["The SPC charts are on the plant A dashboard."],
        },
    )
    results = [line for line in out.splitlines() if line.startswith("Fact ")]
    assert [line.split(": Remembered ")[0] for line in results] == [
        "Fact 1 (about_this_work)",
        "Fact 2 (about_the_user)",
        "Fact 3 (how_to_work)",
        "Fact 4 (where_to_look)",
    ]
    stored = {
        path: parse_memory(text(fs, path), path)
        for path in fs.raw.ls("memory", detail=False)
        if path.endswith(".md")
    }
    assert {path: m.type for path, m in stored.items()} == {
        "memory/the-authoritative-source-for-yield.md": "project",
        "memory/i-am-a-process-engineer.md": "user",
        "memory/answer-in-short-bullet-points.md": "feedback",
        "memory/the-spc-charts-are-on.md": "reference",
    }
    role = stored["memory/i-am-a-process-engineer.md"]
    assert role.body == f"{ROLE}\n" and role.description == ROLE
    assert text(fs, "MEMORY.md").splitlines()[1] == (
        f"- [I am a process engineer](memory/i-am-a-process-engineer.md) — {ROLE}"
    )


def test_a_fact_in_chinese_is_named_after_its_first_clauses_cut_to_a_readable_length():
    fs = workspace()
    fact = "良率的權威資料來源是 MES 的 daily_yield 表，不是 QA 週報，週報會四捨五入到小數第一位。"
    out = FileToolExecutor(fs, tools=TOOLS).execute(REMEMBER_BY_KIND, {"project": fact})
    # the type's name is one of the list's own keys: no repair to report
    assert "Remembered memory/良率的權威資料來源是-mes-的-daily-yield.md" in out
    assert "type project" in out and "Repaired" not in out


def test_the_shapes_a_small_model_sends_are_read_into_the_lists_and_said_once():
    fs = workspace()
    ex = FileToolExecutor(fs, tools=TOOLS)
    # a fact sent alone, an object in place of a fact's text, a type name as the list's key
    out = ex.execute(
        REMEMBER_BY_KIND, {"user": ROLE, "about_this_work": [{"fact": YIELD, "type": "x"}]}
    )
    assert "type user" in out and "type project" in out and "Repaired" not in out
    # remember_facts' shape: typed items under one key, each read into its type's list
    out = ex.execute(
        REMEMBER_BY_KIND,
        json.dumps({"facts": [{"type": "Feedback", "body": "Use bullet points."}]}),
    )
    assert "Fact 1 (how_to_work): Remembered memory/use-bullet-points.md" in out
    assert out.endswith(
        "Repaired arguments: the facts came as typed items in 'facts'; each read into the list "
        "of its type."
    )


@pytest.mark.parametrize(
    "arguments",
    [
        {},
        {"about_this_work": [], "about_the_user": ["  "]},
        {"about_this_work": None},
    ],
)
def test_a_call_with_no_fact_in_any_list_writes_nothing_and_says_where_facts_go(arguments):
    fs = workspace()
    out = FileToolExecutor(fs, tools=TOOLS).execute(REMEMBER_BY_KIND, arguments)
    assert out == (
        "Error: Nothing to remember: every list was empty. Put each fact the user gave, in their "
        "words, in the list for its kind (about_this_work, about_the_user, how_to_work, "
        "where_to_look) and call remember_by_kind again."
    )
    assert not fs.raw.exists("MEMORY.md")


@pytest.mark.parametrize(
    "arguments",
    [
        {"facts": [{"type": "diary", "body": "x"}]},  # a type no list holds
        {"facts": ["just text"]},
        {"facts": []},
        {"facts": "text"},
        {"about_this_work": [{"note": "no text key"}]},
        {"about_this_work": 3},
        {"about_this_work": [YIELD], "notes": ["a fact under a key that is no list"]},
    ],
)
def test_what_cannot_be_read_into_a_list_is_refused_naming_the_lists(arguments):
    fs = workspace()
    out = FileToolExecutor(fs, tools=TOOLS).execute(REMEMBER_BY_KIND, arguments)
    assert out.startswith(f"Error: Invalid arguments for {REMEMBER_BY_KIND}: ")
    assert out.endswith(
        "Expected arguments: about_this_work, about_the_user, how_to_work, where_to_look."
    )
    assert not fs.raw.exists("MEMORY.md")


def test_a_fact_that_copies_the_help_is_refused_naming_this_tool_and_the_others_are_kept():
    fs = workspace()
    helptext = RememberByKindArgs.model_fields["about_the_user"].description
    out = FileToolExecutor(fs, tools=TOOLS).execute(
        REMEMBER_BY_KIND, {"about_the_user": [helptext], "about_this_work": [YIELD]}
    )
    assert (
        "Fact 1 (about_this_work): Remembered memory/the-authoritative-source-for-yield.md" in out
    )
    assert (
        "Fact 2 (about_the_user): Error: The body is this tool's own help text copied back, not "
        "the fact; write the fact itself (the user's words, one fact per call) and call "
        "remember_by_kind again."
    ) in out
    assert fs.raw.ls("memory", detail=False) == ["memory/the-authoritative-source-for-yield.md"]


def test_the_same_fact_sent_twice_is_stored_once():
    fs = workspace()
    ex = FileToolExecutor(fs, tools=TOOLS)
    ex.execute(REMEMBER_BY_KIND, {"about_the_user": [ROLE]})
    out = ex.execute(REMEMBER_BY_KIND, {"about_the_user": [ROLE]})
    assert out == (
        "Fact 1 (about_the_user): Already remembered: memory/i-am-a-process-engineer.md holds "
        "this fact (the same body); nothing was written. Call remember_by_kind again only for "
        "another fact."
    )
    assert len(text(fs, "MEMORY.md").splitlines()) == 1


def test_a_fact_with_no_letters_is_named_memory():
    fs = workspace()
    out = FileToolExecutor(fs, tools=TOOLS).execute(REMEMBER_BY_KIND, {"about_this_work": ["42"]})
    assert "Remembered memory/42.md" in out
    out = FileToolExecutor(fs, tools=TOOLS).execute(REMEMBER_BY_KIND, {"how_to_work": ["—!"]})
    assert "Remembered memory/memory.md" in out


def test_the_schema_is_four_lists_of_strings_offered_only_when_named():
    (schema,) = file_tool_schemas([REMEMBER_BY_KIND])
    params = schema["function"]["parameters"]
    assert list(params["properties"]) == [
        "about_this_work",
        "about_the_user",
        "how_to_work",
        "where_to_look",
    ]
    assert all(
        p["type"] == "array" and p["items"] == {"type": "string"}
        for p in params["properties"].values()
    )
    assert params["required"] == list(params["properties"])  # each list written, maybe []
    assert params["additionalProperties"] is False
    assert "one fact per string" in schema["function"]["description"]
    assert REMEMBER_BY_KIND not in [s["function"]["name"] for s in file_tool_schemas()]
    assert REMEMBER_BY_KIND in FILE_WRITE_TOOLS and is_file_tool(REMEMBER_BY_KIND)


def test_the_kinds_arm_forces_remember_by_kind_and_refuses_memory_paths_to_the_file_tools(
    tmp_path,
):
    result, model = run_scripted_arm(
        tmp_path,
        "k=memory=kinds,force=on,tools=files-only",
        [
            (REMEMBER_BY_KIND, {"about_this_work": [YIELD], "about_the_user": [ROLE]}),
            ("write_file", {"path": "MEMORY.md", "content": "x"}),
        ],
    )
    assert result.record.offered_tools[-1] == REMEMBER_BY_KIND
    forced = [r.get("tool_choice") for r in model.requests]
    assert forced[0] == {"type": "function", "function": {"name": REMEMBER_BY_KIND}}
    refused = result.record.tool_calls[1].result
    assert refused.startswith(
        "Error: MEMORY.md is memory, and here memory is saved with remember_by_kind (each fact "
        "in the list for its kind)"
    )
    # both facts stored under the types the scenario expects, with their index lines
    assert result.verdict.outcome == "memory_written", result.verdict.checks
    assert TurnOptions(memory_tools="kinds").memory_tools == "kinds"


def test_a_bug_under_one_fact_propagates_instead_of_reading_as_a_refusal(monkeypatch):
    fs = workspace()

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(fs, "save", broken)
    ex = FileToolExecutor(fs, tools=TOOLS)
    monkeypatch.setattr(ex, "fs", fs)
    with pytest.raises(RuntimeError, match="a bug"):
        ex.execute(REMEMBER_BY_KIND, {"about_the_user": [ROLE]})


@pytest.mark.parametrize(
    ("fact", "path", "description"),
    [
        (
            "1. 準時與否是最重要的指標 2. 我是物流主管",
            "memory/準時與否是最重要的指標.md",
            "準時與否是最重要的指標; 我是物流主管",
        ),
        (
            "1.準時與否是最重要的指標。2.我是物流主管。",
            "memory/準時與否是最重要的指標.md",
            "準時與否是最重要的指標; 我是物流主管",
        ),
        (
            "(1) The Cpk limit is 1.33. Below it we stop the line. (2) I lead QA",
            "memory/the-cpk-limit-is-1.md",
            "The Cpk limit is 1.33; I lead QA",
        ),
        (
            "1) ship by Friday; 2) call Bob; 3) book the room",
            "memory/ship-by-friday.md",
            "ship by Friday; call Bob; book the room",
        ),
        ("1、先看良率 2、再看 Cpk", "memory/先看良率.md", "先看良率; 再看 Cpk"),
        ("1. only one item", "memory/only-one-item.md", "only one item"),
        ("- a bullet's fact", "memory/a-bullet-s-fact.md", "a bullet's fact"),
        # a number that is no list's first: the text as it is
        ("1.5 hours is the limit", "memory/1-5-hours-is-the.md", "1.5 hours is the limit"),
        ("2. second without a first", "memory/2-second-without-a-first.md", "2."),
        ("1. Keep a 2.5% margin", "memory/keep-a-2-5-margin.md", "Keep a 2.5% margin"),
        ("1.", "memory/1.md", "1."),
    ],
)
def test_a_message_sent_as_one_numbered_fact_is_named_after_its_first_item(fact, path, description):
    fs = workspace()
    out = FileToolExecutor(fs, tools=TOOLS).execute(REMEMBER_BY_KIND, {"about_this_work": [fact]})
    assert f"Remembered {path}" in out, out
    memory = parse_memory(text(fs, path), path)
    # the body keeps the fact as it was sent; only its name and description leave the numbers
    assert memory.description == description and memory.body == f"{fact.strip()}\n"
