"""Turn builders: when memory is injected, replay safety, the workflow turn's read-only mount."""

from __future__ import annotations

import copy
import errno
import pickle
from fractions import Fraction
from typing import Any

import pydantic
import pytest
from memfs import InMemoryFileStore, MemFS
from memfs.context import FRAMINGS, build_context_block
from memfs.manifest import AgentManifest, AppFunction
from memfs.memory_access import mount_for
from memfs.prompt import READ_ONLY_RULE, memory_prompt
from memfs.tokens import estimate_tokens
from memfs.turns import PLACEMENTS, ChatTurn, build_chat_turn, build_turn, build_workflow_turn

INDEX = b"- [Yield source = MES daily_yield](memory/yield-source.md) - not the QA weekly report\n"
HISTORY = [
    {"role": "user", "content": "Track yield for line 3."},
    {"role": "assistant", "content": "Noted."},
]
APP_PROMPT = "You are the topic-hub assistant."


def chat(
    fs, manifest=None, transcript=HISTORY, message="Which source for yield?", **kw
) -> ChatTurn:
    return build_chat_turn(
        transcript=transcript,
        user_message=message,
        manifest=manifest or AgentManifest(),
        fs=fs,
        system_prompt=APP_PROMPT,
        **kw,
    )


# -- when memory is injected: empty costs 0 tokens, sent not persisted, off is off, workflows see it


def test_flag_on_and_no_memory_file_injects_empty_block(memfs):
    turn = chat(memfs)
    assert turn.context_block == ""
    assert estimate_tokens(turn.context_block) == 0
    assert turn.messages[-1] == {"role": "user", "content": "Which source for yield?"}
    assert not memfs.exists("MEMORY.md")  # nothing is created until the agent writes


def test_memory_file_present_is_in_turn_not_in_persisted_history(memfs):
    memfs.pipe_file("MEMORY.md", INDEX)
    turn = chat(memfs)
    sent = turn.messages[-1]["content"]
    assert INDEX.decode() in sent
    assert sent == turn.context_block + "Which source for yield?"
    assert turn.persist == [*HISTORY, {"role": "user", "content": "Which source for yield?"}]
    assert all(INDEX.decode() not in str(m["content"]) for m in turn.persist)


def test_flag_off_does_not_inject_even_with_files(memfs):
    memfs.pipe_file("MEMORY.md", INDEX)
    turn = chat(memfs, AgentManifest(memory=False))
    assert turn.context_block == ""
    assert INDEX.decode() not in turn.messages[-1]["content"]
    assert turn.system_prompt == APP_PROMPT  # no memory prompt either


def test_workflow_turn_sees_memory_md(memfs):
    memfs.pipe_file("MEMORY.md", INDEX)
    turn = build_workflow_turn(
        transcript=[],
        user_message="Run the weekly yield summary.",
        manifest=AgentManifest(),
        fs=memfs,
        system_prompt=APP_PROMPT,
    )
    assert turn.mode == "workflow"
    assert INDEX.decode() in turn.messages[-1]["content"]
    assert turn.context_block == build_context_block(memfs, AgentManifest())
    assert "Run the weekly yield summary." not in str(turn.persist[:-1])


# -- shape, replay safety ------------------------------------------------------------------------


def test_messages_are_system_then_history_then_user(memfs):
    memfs.pipe_file("MEMORY.md", INDEX)
    turn = chat(memfs)
    assert turn.messages[0] == {"role": "system", "content": turn.system_prompt}
    assert turn.messages[1:-1] == HISTORY
    assert turn.messages[-1]["role"] == "user"
    assert turn.system_prompt == APP_PROMPT + "\n\n" + memory_prompt(AgentManifest()).rstrip("\n")


def test_building_the_same_turn_twice_gives_the_same_messages(memfs):
    memfs.pipe_file("MEMORY.md", INDEX)
    assert chat(memfs) == chat(memfs)


def test_replaying_persisted_history_never_stacks_blocks(memfs):
    memfs.pipe_file("MEMORY.md", INDEX)
    transcript: list[dict] = []
    for i in range(3):
        turn = chat(memfs, transcript=transcript, message=f"question {i}")
        transcript = [*turn.persist, {"role": "assistant", "content": f"answer {i}"}]
        assert turn.messages[-1]["content"].count(INDEX.decode()) == 1
        assert sum(INDEX.decode() in str(m["content"]) for m in turn.messages) == 1
    assert [m["content"] for m in transcript if m["role"] == "user"] == [
        "question 0",
        "question 1",
        "question 2",
    ]


def test_caller_history_is_not_mutated_or_aliased(memfs):
    memfs.pipe_file("MEMORY.md", INDEX)
    transcript = copy.deepcopy(HISTORY)
    turn = chat(memfs, transcript=transcript)
    turn.messages[1]["content"] = "changed"
    turn.persist[0]["content"] = "changed too"
    assert transcript == HISTORY


def test_the_turn_reads_memory_as_it_is_now(memfs):
    turn1 = chat(memfs)
    memfs.pipe_file("MEMORY.md", INDEX)  # the agent wrote memory during turn 1
    turn2 = chat(memfs, transcript=[*turn1.persist, {"role": "assistant", "content": "Saved."}])
    assert turn1.context_block == "" and INDEX.decode() in turn2.context_block


def test_no_system_message_when_there_is_no_prompt_at_all():
    turn = build_chat_turn(
        transcript=[],
        user_message="hi",
        manifest=AgentManifest(memory=False),
        fs=MemFS(InMemoryFileStore()),
    )
    assert turn.messages == [{"role": "user", "content": "hi"}]
    assert turn.system_prompt == ""


def test_memory_prompt_variant_passes_through(memfs):
    full = chat(memfs)
    base = chat(memfs, prompt_variant="appendix-a-only")
    assert "save_skill" in full.system_prompt and "save_skill" not in base.system_prompt


def test_app_without_workspace_gets_neither_block_nor_prompt(memfs):
    memfs.pipe_file("MEMORY.md", INDEX)
    turn = chat(memfs, AgentManifest(function=AppFunction(workspace=False)))
    assert turn.context_block == "" and turn.system_prompt == APP_PROMPT


def test_declared_context_files_ride_along_with_memory(memfs):
    memfs.pipe_file("MEMORY.md", INDEX)
    memfs.pipe_file("collections.json", b'{"collections": ["spc"]}')
    turn = chat(memfs, AgentManifest(context_files=["collections.json"]))
    block = turn.context_block
    assert block.index('path="collections.json"') < block.index('path="MEMORY.md"')


# -- workflow turns read through a read-only mount -------------------------------------------------


def test_workflow_turn_tells_the_model_memory_is_read_only(memfs):
    turn = build_workflow_turn(transcript=[], user_message="go", manifest=AgentManifest(), fs=memfs)
    assert READ_ONLY_RULE in turn.system_prompt
    assert READ_ONLY_RULE not in chat(memfs).system_prompt


def test_workflow_mount_is_a_read_only_mount_of_the_same_workspace(memfs):
    memfs.pipe_file("MEMORY.md", INDEX)
    ro = mount_for("workflow_turn", memfs)
    assert ro is not None and ro.is_read_only and ro.store is memfs.store
    assert ro.cat_file("MEMORY.md") == INDEX
    with pytest.raises(PermissionError) as exc:
        ro.pipe_file("memory/new.md", b"---\nname: new\n---\nx\n")
    assert exc.value.errno == errno.EROFS
    assert not memfs.exists("memory/new.md")
    assert mount_for("workflow_turn", None) is None


def test_workflow_turn_with_memory_off_injects_nothing(memfs):
    memfs.pipe_file("MEMORY.md", INDEX)
    turn = build_workflow_turn(
        transcript=[], user_message="go", manifest=AgentManifest(memory=False), fs=memfs
    )
    assert turn.context_block == "" and turn.system_prompt == ""


@pytest.mark.parametrize("builder", [build_chat_turn, build_workflow_turn])
def test_turn_without_a_workspace_has_no_block_and_no_memory_prompt(builder):
    turn = builder(
        transcript=[], user_message="hi", manifest=AgentManifest(), fs=None, system_prompt="P"
    )
    assert turn.context_block == ""
    assert turn.system_prompt == "P"
    assert turn.messages == [
        {"role": "system", "content": "P"},
        {"role": "user", "content": "hi"},
    ]


def test_turn_under_a_token_budget_cuts_history_not_memory(memfs):
    memfs.pipe_file("MEMORY.md", INDEX)
    long_history = [
        {"role": "user" if i % 2 == 0 else "assistant", "content": f"message {i} " + "z" * 400}
        for i in range(10)
    ]
    whole = chat(memfs, transcript=long_history)
    assert whole.reduction is None
    cut = chat(memfs, transcript=long_history, budget_tokens=800)
    assert cut.reduction is not None and cut.reduction.truncated
    assert cut.messages[0] == whole.messages[0]
    assert cut.messages[-1] == whole.messages[-1]  # block + newest message intact
    assert len(cut.messages) < len(whole.messages)
    assert cut.persist == whole.persist  # the stored conversation is not cut


# -- placement and framing: where the block goes and how it is framed, same guarantees everywhere


@pytest.mark.parametrize("framing", FRAMINGS)
@pytest.mark.parametrize("placement", PLACEMENTS)
def test_every_placement_and_framing_keeps_the_blocks_guarantees(memfs, placement, framing):
    memfs.pipe_file("MEMORY.md", INDEX)
    turn = chat(memfs, placement=placement, framing=framing, system_suffix="TOOLS")
    block = build_context_block(memfs, AgentManifest(), framing)
    assert turn.context_block == block and turn.placement == placement
    carried = [i for i, m in enumerate(turn.messages) if block.rstrip("\n") in m["content"]]
    assert len(carried) == 1  # sent exactly once
    newest = len(turn.messages) - 1
    expected = {"prefix": newest, "message": newest - 1, "system": 0}[placement]
    assert carried == [expected]
    assert turn.messages[-1]["content"].endswith("Which source for yield?")
    assert turn.messages[0]["content"].startswith(turn.system_prompt)
    # never persisted, rebuilt the same from the same files, never stacked on replay
    assert all(block.rstrip("\n") not in m["content"] for m in turn.persist)
    assert chat(memfs, placement=placement, framing=framing, system_suffix="TOOLS") == turn
    replay = chat(
        memfs, transcript=turn.persist, message="next", placement=placement, framing=framing
    )
    assert sum(m["content"].count(block.rstrip("\n")) for m in replay.messages) == 1
    # the reducer cuts the conversation, never the block
    long_history = [
        {"role": "user" if i % 2 == 0 else "assistant", "content": f"message {i} " + "z" * 400}
        for i in range(10)
    ]
    cut = chat(
        memfs, transcript=long_history, budget_tokens=800, placement=placement, framing=framing
    )
    assert cut.reduction is not None and cut.reduction.truncated
    assert cut.reduction.protected_tokens > 0  # the report says the block was kept
    assert sum(block.rstrip("\n") in m["content"] for m in cut.messages) == 1


def test_message_placement_sends_the_block_as_its_own_message_before_the_users(memfs):
    memfs.pipe_file("MEMORY.md", INDEX)
    turn = chat(memfs, placement="message")
    assert turn.messages[-2] == {"role": "user", "content": turn.context_block.rstrip("\n")}
    assert turn.messages[-1] == {"role": "user", "content": "Which source for yield?"}
    assert turn.messages[1:-2] == HISTORY


def test_system_placement_puts_the_block_after_the_callers_suffix(memfs):
    memfs.pipe_file("MEMORY.md", INDEX)
    turn = chat(memfs, placement="system", system_suffix="## Tools\nread_file …")
    system = turn.messages[0]["content"]
    assert turn.system_prompt.endswith("## Tools\nread_file …")
    assert system == f"{turn.system_prompt}\n\n{turn.context_block.rstrip()}"
    assert turn.messages[-1] == {"role": "user", "content": "Which source for yield?"}


def test_no_memory_means_nothing_placed_anywhere(memfs):
    for placement in PLACEMENTS:
        turn = chat(memfs, placement=placement)
        assert turn.context_block == ""
        assert turn.messages == [
            {"role": "system", "content": turn.system_prompt},
            *HISTORY,
            {"role": "user", "content": "Which source for yield?"},
        ]


def test_unknown_placement_or_framing_is_refused(memfs):
    memfs.pipe_file("MEMORY.md", INDEX)
    with pytest.raises(ValueError, match=r"placement='top': use one of prefix, message, system"):
        chat(memfs, placement="top")
    with pytest.raises(ValueError, match=r"framing='xml': use one of reminder, heading"):
        chat(memfs, framing="xml")


def test_a_message_that_is_not_a_dict_is_refused_naming_its_place(memfs):
    with pytest.raises(TypeError, match=r"^transcript\[1\] is a str, not a message: each message"):
        chat(memfs, transcript=[{"role": "user", "content": "hi"}, "hello"])


def test_an_unknown_mode_is_refused_naming_the_modes(memfs):
    with pytest.raises(ValueError, match=r"^mode='batch': use one of chat, workflow\.$"):
        build_turn(
            mode="batch",  # type: ignore[arg-type]
            transcript=[],
            user_message="hi",
            manifest=AgentManifest(),
            fs=memfs,
        )


@pytest.mark.parametrize(
    "marker",
    [Fraction(1, 3), 0.5],
    ids=["an object marshal cannot copy: each message copied on its own", "plain data"],
)
def test_a_copied_transcript_shares_no_container_with_the_callers(memfs, marker):
    # nested lists and dicts (tool calls, content parts) are copied; an object that is not
    # JSON-shaped is deep-copied; strings and numbers need no copy, nothing can change them
    history: list[dict[str, Any]] = [
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "a"}],
            "tool_calls": [{"id": "c1", "function": {"name": "read_file", "arguments": "{}"}}],
            "n": 3,
            "extra": marker,
            "meta": {"tags": ["x", 1, None]},
        }
    ]
    before = copy.deepcopy(history)
    turn = chat(memfs, transcript=history)
    for messages in (turn.messages[1:-1], turn.persist[:-1]):
        (got,) = messages
        assert got == history[0] and got is not history[0]
        assert got["content"] is not history[0]["content"]
        assert got["content"][0] is not history[0]["content"][0]
        assert got["tool_calls"][0]["function"] is not history[0]["tool_calls"][0]["function"]
        assert got["meta"]["tags"] is not history[0]["meta"]["tags"]
        assert got["extra"] == marker
        got["content"][0]["text"] = "changed"
        got["meta"]["tags"].append("y")
    assert history == before
    assert turn.messages[1] is not turn.persist[0]


def test_a_built_turn_is_the_model_pydantic_would_construct_frozen_and_complete():
    fs = MemFS(InMemoryFileStore())
    fs.pipe_file("MEMORY.md", INDEX)
    turn = chat(fs, system_suffix="Tools: read_file.")
    # every field set, as model_construct sets them when each is given
    assert set(vars(turn)) == set(ChatTurn.model_fields) == turn.model_fields_set
    same = ChatTurn.model_construct(**vars(turn))
    assert turn == same and turn.model_dump() == same.model_dump()
    assert turn.model_extra is None and turn.__pydantic_private__ is None
    # a pydantic that kept more per-instance state than these four would build it otherwise
    assert set(pydantic.BaseModel.__slots__) == {
        "__dict__",
        "__pydantic_fields_set__",
        "__pydantic_extra__",
        "__pydantic_private__",
    }
    with pytest.raises(pydantic.ValidationError, match="frozen"):
        turn.context_block = ""
    copied = turn.model_copy(update={"mode": "workflow"})
    assert copied.mode == "workflow" and turn.mode == "chat"
    assert pickle.loads(pickle.dumps(turn)) == turn
    assert ChatTurn.model_validate(turn.model_dump()) == turn
    assert turn.system_prompt.endswith("\n\nTools: read_file.")
