"""memfs_litellm: the agent loop over litellm, with the file tools on a MemFS.

``run_turn`` runs one chat or workflow turn (how it runs: a ``TurnOptions``); ``PLATFORM_TOOLS``
and ``format_tools_for_prompt`` reproduce the platform's tool table; ``memfs model …`` serves a
local CPU model that litellm reaches as ``openai/local``.
"""

import os

# litellm fetches its price list from the network at import time unless told not to.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from memfs_litellm.ollama import ContextWindowResolver, check_truncation
from memfs_litellm.platform_tools import (
    COMPETING_TOOL_NAMES,
    PLATFORM_TOOLS,
    PlatformToolRecorder,
    format_tools_for_prompt,
    tool_schemas,
)
from memfs_litellm.runner import (
    DEFAULT_APP_PROMPT,
    ToolCallRecord,
    TurnOptions,
    TurnResult,
    run_turn,
)
from memfs_litellm.textcalls import TextToolCall, parse_text_tool_calls

__all__ = [
    "COMPETING_TOOL_NAMES",
    "DEFAULT_APP_PROMPT",
    "PLATFORM_TOOLS",
    "ContextWindowResolver",
    "PlatformToolRecorder",
    "TextToolCall",
    "ToolCallRecord",
    "TurnOptions",
    "TurnResult",
    "check_truncation",
    "format_tools_for_prompt",
    "parse_text_tool_calls",
    "run_turn",
    "tool_schemas",
]
