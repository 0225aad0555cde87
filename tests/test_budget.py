"""The history reducer: order of sacrifice, memory immunity, and truncation reports."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from memfs import InMemoryFileStore, MemFS
from memfs.budget import (
    MESSAGE_OVERHEAD_TOKENS,
    TOOL_OUTPUT_STUB,
    detect_truncation,
    message_tokens,
    messages_tokens,
    reduce_transcript,
)
from memfs.manifest import AgentManifest
from memfs.tokens import estimate_tokens
from memfs.turns import build_chat_turn

BIG = "x" * 400  # 100 tokens of content


def call(call_id: str, name: str) -> dict:
    """An assistant message that makes one tool call."""
    fn = {"name": name, "arguments": "{}"}
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": call_id, "type": "function", "function": fn}],
    }


def conversation() -> list[dict]:
    """system, the task, two tool-using exchanges, a chat exchange, the newest message."""
    return [
        {"role": "system", "content": "You are the assistant."},
        {"role": "user", "content": "TASK: summarise line 3 yield. " + BIG},
        call("c1", "read_file"),
        {"role": "tool", "tool_call_id": "c1", "content": "OUT1 " + BIG * 3},
        {"role": "assistant", "content": "middle answer one " + BIG},
        {"role": "user", "content": "middle question " + BIG},
        call("c2", "list_files"),
        {"role": "tool", "tool_call_id": "c2", "content": "OUT2 " + BIG * 3},
        {"role": "assistant", "content": "middle answer two " + BIG},
        {"role": "user", "content": "NEWEST question"},
    ]


def test_message_tokens_counts_content_tool_calls_and_framing():
    assert message_tokens({"role": "user", "content": ""}) == MESSAGE_OVERHEAD_TOKENS
    text = "abcd" * 10
    expected = estimate_tokens(text) + MESSAGE_OVERHEAD_TOKENS
    assert message_tokens({"role": "user", "content": text}) == expected
    parts = {"role": "user", "content": [{"type": "text", "text": text}]}
    assert message_tokens(parts) == expected
    call = conversation()[2]
    assert message_tokens(call) > MESSAGE_OVERHEAD_TOKENS


def test_under_budget_nothing_changes():
    msgs = conversation()
    result = reduce_transcript(msgs, messages_tokens(msgs))
    assert result.messages == msgs
    assert not result.truncated and result.fits
    assert result.report.summary() == ""


def test_tool_outputs_go_first_and_keep_their_call_pairing():
    msgs = conversation()
    total = messages_tokens(msgs)
    stub = {**msgs[3], "content": TOOL_OUTPUT_STUB}
    freed_by_one = message_tokens(msgs[3]) - message_tokens(stub)
    result = reduce_transcript(msgs, total - freed_by_one)  # emptying one output is enough
    assert [d.stage for d in result.dropped] == ["tool_output"]
    assert result.dropped[0].index == 3  # the oldest tool output
    out = result.messages
    assert len(out) == len(msgs)
    assert out[3] == {"role": "tool", "tool_call_id": "c1", "content": TOOL_OUTPUT_STUB}
    assert out[7] == msgs[7]
    assert result.fits


def test_then_the_middle_then_the_oldest():
    msgs = conversation()
    # Room for system + task + newest only: every stage runs.
    budget = messages_tokens([msgs[0], msgs[1], msgs[-1]])
    result = reduce_transcript(msgs, budget)
    stages = {d.index: d.stage for d in result.dropped}
    assert {stages[i] for i in (2, 3, 4, 5, 6, 7, 8)} == {"middle"}
    assert 1 not in stages  # the task survived because the middle was enough
    assert result.messages == [msgs[0], msgs[1], msgs[-1]]
    assert result.fits

    tighter = reduce_transcript(msgs, budget - 1)
    assert {d.index: d.stage for d in tighter.dropped}[1] == "oldest"
    assert tighter.messages == [msgs[0], msgs[-1]]


def test_middle_is_dropped_oldest_first_in_whole_units():
    msgs = conversation()
    total = messages_tokens(msgs)
    freed = sum(
        message_tokens(msgs[i]) - message_tokens({**msgs[i], "content": TOOL_OUTPUT_STUB})
        for i in (3, 7)
    )
    # Both tool outputs emptied still leaves it 1 token over; then the first middle unit goes.
    result = reduce_transcript(msgs, total - freed - 1)
    removed = [d.index for d in result.dropped if d.stage == "middle"]
    assert removed == [2, 3]  # the assistant tool call and its output leave together
    assert [d.index for d in result.dropped if d.stage == "tool_output"] == [7]
    roles = [m["role"] for m in result.messages]
    for k, m in enumerate(result.messages):
        if m["role"] == "tool":
            assert result.messages[k - 1].get("tool_calls"), roles


def test_newest_message_and_system_are_never_dropped_even_over_budget():
    msgs = conversation()
    huge = {"role": "user", "content": "y" * 40_000}
    result = reduce_transcript([*msgs[:-1], huge], 10)
    assert result.messages == [msgs[0], huge]
    assert not result.fits
    assert "Still over budget" in result.report.summary()


def test_memory_block_is_immune_and_crowds_out_the_conversation():
    fs = MemFS(InMemoryFileStore())
    index = "".join(f"- [Memory {i}](memory/m{i}.md) — hook {i}\n" for i in range(300))
    fs.pipe_file("MEMORY.md", index.encode())
    history = conversation()[1:-1]
    turn = build_chat_turn(
        transcript=history,
        user_message="NEWEST",
        manifest=AgentManifest(),
        fs=fs,
        system_prompt="S",
    )
    block_tokens = message_tokens(turn.messages[-1])
    budget = messages_tokens([turn.messages[0], turn.messages[-1]]) + 50
    result = reduce_transcript(turn.messages, budget, protected_prefix=turn.context_block)
    assert result.messages[-1] == turn.messages[-1]  # block and message intact
    assert index in result.messages[-1]["content"]
    assert block_tokens > 2000
    assert len(result.messages) == 2  # the whole conversation was sacrificed, memory was not
    assert result.report.protected_tokens > 0
    assert "memory block" in result.report.summary()


def test_block_carrying_message_survives_inside_a_multi_step_turn():
    block = "<system-reminder>\nMEMORY\n</system-reminder>\n\n"
    msgs: list[dict] = [
        {"role": "system", "content": "S"},
        {"role": "user", "content": "old " + BIG},
        {"role": "assistant", "content": "old answer " + BIG},
        {"role": "user", "content": block + "current question"},
        call("c9", "read_file"),
        {"role": "tool", "tool_call_id": "c9", "content": "result"},
    ]
    result = reduce_transcript(msgs, 10, protected_prefix=block)
    assert msgs[3] in result.messages
    assert result.messages[-1] == msgs[-1]
    without = reduce_transcript(msgs, 10)
    assert msgs[3] not in without.messages


def test_summary_names_each_stage_and_the_budget():
    msgs = conversation()
    result = reduce_transcript(msgs, messages_tokens([msgs[0], msgs[-1]]))
    summary = result.report.summary()
    assert summary.startswith("Context budget: ")
    assert "from the middle of the conversation dropped" in summary
    assert "of the oldest message(s) dropped" in summary
    assert f"budget {result.report.budget_tokens:,}" in summary


def test_negative_budget_is_refused():
    with pytest.raises(ValueError, match="zero or more"):
        reduce_transcript([], -1)


def test_empty_history_is_fine():
    result = reduce_transcript([], 0)
    assert result.messages == [] and result.fits


def test_detect_truncation_matches_the_reducers_own_report():
    msgs = conversation()
    for budget in (messages_tokens(msgs) - 300, messages_tokens(msgs) - 700, 120, 0):
        result = reduce_transcript(msgs, budget)
        after = detect_truncation(msgs, result.messages)
        assert [(d.index, d.stage) for d in after.dropped] == [
            (d.index, d.stage) for d in result.dropped
        ]
        assert after.tokens_after == result.report.tokens_after


def test_detect_truncation_of_an_untouched_conversation():
    msgs = conversation()
    report = detect_truncation(msgs, msgs)
    assert not report.truncated and report.summary() == ""


def test_detect_truncation_reports_the_memory_block_it_saw():
    block = "<system-reminder>\nM\n</system-reminder>\n\n"
    msgs = [{"role": "user", "content": "a"}, {"role": "user", "content": block + "b"}]
    report = detect_truncation(msgs, msgs[1:], protected_prefix=block)
    assert report.truncated and report.protected_tokens > 0
    assert report.dropped[0].stage == "oldest"


role = st.sampled_from(["user", "assistant", "tool"])
message = st.builds(
    lambda r, n: {"role": r, "content": "w" * n, **({"tool_call_id": "t"} if r == "tool" else {})},
    role,
    st.integers(0, 400),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(message, min_size=1, max_size=12), st.integers(0, 800))
def test_reducer_invariants(msgs, budget):
    result = reduce_transcript(msgs, budget)
    assert result.messages[-1] == msgs[-1]
    assert messages_tokens(result.messages) == result.report.tokens_after
    assert result.truncated == (messages_tokens(msgs) > budget and len(msgs) > 1)
    assert result.fits or len(result.messages) == 1
    # Order preserved: the result is a subsequence of the input (tool outputs maybe emptied).
    it = iter(enumerate(msgs))
    for m in result.messages:
        for _, original in it:
            if original == m or (original["role"] == "tool" and m["content"] == TOOL_OUTPUT_STUB):
                break
        else:
            pytest.fail("result is not an ordered subsequence of the input")
