"""Small parts of the litellm adapter: the recorded platform tools' acknowledgements, the loop
guard's answer, the prompt estimate of a multi-part message, the package's lazy names."""

from __future__ import annotations

import string
from typing import Any

import pytest

import memfs_litellm
from memfs_litellm.ollama import estimate_prompt_tokens
from memfs_litellm.platform_tools import COMPETING_TOOLS, PlatformToolRecorder
from memfs_litellm.runner import REPEAT_SHOWN_CHARS, repeat_message


@pytest.mark.parametrize("tool", COMPETING_TOOLS, ids=lambda t: t.name)
def test_each_acknowledgement_names_only_its_own_arguments(tool: Any) -> None:
    named = {field for _, field, _, _ in string.Formatter().parse(tool.ack) if field}
    assert named <= set(tool.args.model_fields), tool.name


def test_a_recorded_call_is_acknowledged_with_its_arguments() -> None:
    recorder = PlatformToolRecorder()
    arguments = {"name": "spc-check", "description": "d", "instructions": "1. Check."}
    said = recorder.execute("save_skill", arguments)
    assert said == (
        "Skill 'spc-check' saved. It is now available to agents in every item of this workspace."
    )
    assert recorder.calls == [("save_skill", {**arguments, "tags": []})]  # with its defaults


def test_the_loop_guard_shows_a_long_result_cut() -> None:
    long = "x" * (REPEAT_SHOWN_CHARS + 50)
    said = repeat_message(long)
    assert f"returned: {'x' * REPEAT_SHOWN_CHARS} […]\n" in said
    assert "x" * (REPEAT_SHOWN_CHARS + 1) not in said
    assert said.endswith("It was not run again. Do the next step or answer the user.")
    assert "[…]" not in repeat_message("short")


def test_a_multi_part_message_is_estimated_by_its_text_parts() -> None:
    as_text = [{"role": "user", "content": "How is the yield of line 3 today?"}]
    as_parts = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "How is the yield of line 3 today?"},
                {"type": "image_url", "image_url": {"url": "data:"}},
                "not a part",
            ],
        }
    ]
    assert estimate_prompt_tokens(as_parts) == estimate_prompt_tokens(as_text) > 4


def test_the_lazy_names_are_listed() -> None:
    names = dir(memfs_litellm)
    assert {"run_turn", "DEFAULT_APP_PROMPT"} <= set(names) and names == sorted(names)
