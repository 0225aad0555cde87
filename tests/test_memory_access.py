"""The entry-point matrix: only app chat writes memory, workflows read it, the rest get none."""

from __future__ import annotations

import errno
import inspect

import pytest
from memfs.manifest import AgentManifest
from memfs.memory_access import ENTRY_POINTS, MemoryAccess, mount_for
from memfs.turns import (
    BUILDERS,
    card_job_turn,
    kb_chat_turn,
    sub_agent_turn,
    wiki_job_turn,
)
from memfs.turns import build_chat_turn as app_chat_turn
from memfs.turns import build_workflow_turn as workflow_turn

INDEX = b"- [User is a process engineer](memory/user-role.md) - skip SPC basics\n"
NO_WORKSPACE = {
    "kb_chat": lambda: kb_chat_turn(transcript=[], user_message="What is Cpk?", system_prompt="KB"),
    "sub_agent": lambda: sub_agent_turn(task="Find the SPC wiki page.", system_prompt="Sub"),
    "card_job": lambda: card_job_turn(instructions="Draft a card for Cpk.", system_prompt="Card"),
    "wiki_job": lambda: wiki_job_turn(instructions="Update the SPC page.", system_prompt="Wiki"),
}


def test_every_entry_point_has_a_builder():
    assert set(BUILDERS) == set(ENTRY_POINTS)


def test_only_app_chat_writes_workflows_read_and_the_rest_have_no_memory():
    table = {name: (e.has_workspace, e.memory) for name, e in ENTRY_POINTS.items()}
    assert table == {
        "app_chat": (True, MemoryAccess.READ_WRITE),
        "workflow_turn": (True, MemoryAccess.READ),
        "kb_chat": (False, MemoryAccess.NONE),
        "sub_agent": (False, MemoryAccess.NONE),
        "card_job": (False, MemoryAccess.NONE),
        "wiki_job": (False, MemoryAccess.NONE),
    }


@pytest.mark.parametrize("name", list(NO_WORKSPACE))
def test_entry_points_without_a_workspace_cannot_be_handed_memory(name):
    params = inspect.signature(BUILDERS[name]).parameters
    assert not {"fs", "manifest", "workspace", "store"} & set(params)
    with pytest.raises(TypeError):
        BUILDERS[name](transcript=[], user_message="x", task="x", instructions="x", fs=object())


@pytest.mark.parametrize("name", list(NO_WORKSPACE))
def test_entry_points_without_a_workspace_receive_no_memory(name, memfs):
    memfs.pipe_file(
        "MEMORY.md", INDEX
    )  # an item with memory exists; these entry points don't see it
    turn = NO_WORKSPACE[name]()
    assert turn.context_block == ""
    assert INDEX.decode() not in str(turn.messages)
    assert "# Memory" not in turn.system_prompt
    assert "persistent file-based memory" not in turn.system_prompt
    assert turn.messages[0]["role"] == "system" and turn.messages[-1]["role"] == "user"
    assert mount_for(name, memfs) is None


def test_app_chat_reads_and_writes(memfs):
    memfs.pipe_file("MEMORY.md", INDEX)
    turn = app_chat_turn(transcript=[], user_message="hi", manifest=AgentManifest(), fs=memfs)
    assert INDEX.decode() in turn.messages[-1]["content"]
    assert "# Memory" in turn.system_prompt
    tools = mount_for("app_chat", memfs)
    assert tools is not None
    assert tools is memfs
    tools.pipe_file("memory/new.md", b"---\nname: new\n---\nx\n")
    assert memfs.exists("memory/new.md")


def test_workflow_turn_reads_but_cannot_write(memfs):
    memfs.pipe_file("MEMORY.md", INDEX)
    turn = workflow_turn(transcript=[], user_message="run", manifest=AgentManifest(), fs=memfs)
    assert INDEX.decode() in turn.messages[-1]["content"]
    tools = mount_for("workflow_turn", memfs)
    assert tools is not None and tools.cat_file("MEMORY.md") == INDEX
    with pytest.raises(PermissionError) as exc:
        tools.pipe_file("MEMORY.md", b"overwritten")
    assert exc.value.errno == errno.EROFS
    assert memfs.cat_file("MEMORY.md") == INDEX


def test_mount_for_without_a_workspace_and_unknown_names(memfs):
    assert mount_for("app_chat", None) is None
    with pytest.raises(ValueError, match="choose one of app_chat, workflow_turn"):
        mount_for("cron", memfs)
