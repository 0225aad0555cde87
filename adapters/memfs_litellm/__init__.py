"""memfs_litellm: the agent loop over litellm, with the file tools on a MemFS.

``run_turn`` runs one chat or workflow turn (how it runs: a ``TurnOptions``); ``PLATFORM_TOOLS``
and ``format_tools_for_prompt`` reproduce the platform's tool table; ``memfs model …`` serves a
local CPU model that litellm reaches as ``openai/local``.

Names load on first use (:pep:`562`), like ``memfs``'s own: the ``memfs chat`` and ``memfs
model`` commands import a submodule of this package, and a command that stops at a bad argument
does not pay for the agent loop's imports.
"""

from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING, Any

# litellm fetches its price list from the network at import time unless told not to.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

# name -> the module that owns it
_EXPORTS: dict[str, str] = {
    "ContextWindowResolver": "memfs_litellm.ollama",
    "check_truncation": "memfs_litellm.ollama",
    "COMPETING_TOOL_NAMES": "memfs_litellm.platform_tools",
    "PLATFORM_TOOLS": "memfs_litellm.platform_tools",
    "PlatformToolRecorder": "memfs_litellm.platform_tools",
    "format_tools_for_prompt": "memfs_litellm.platform_tools",
    "tool_schemas": "memfs_litellm.platform_tools",
    "DEFAULT_APP_PROMPT": "memfs_litellm.runner",
    "MEMORY_TOOLS": "memfs_litellm.runner",
    "MemoryTools": "memfs_litellm.runner",
    "ToolCallRecord": "memfs_litellm.runner",
    "TurnOptions": "memfs_litellm.runner",
    "TurnResult": "memfs_litellm.runner",
    "run_turn": "memfs_litellm.runner",
    "TextToolCall": "memfs_litellm.textcalls",
    "parse_text_tool_calls": "memfs_litellm.textcalls",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'memfs_litellm' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


if TYPE_CHECKING:  # for type checkers and editors; at run time __getattr__ loads these
    from memfs_litellm.ollama import ContextWindowResolver, check_truncation  # noqa: F401
    from memfs_litellm.platform_tools import (  # noqa: F401
        COMPETING_TOOL_NAMES,
        PLATFORM_TOOLS,
        PlatformToolRecorder,
        format_tools_for_prompt,
        tool_schemas,
    )
    from memfs_litellm.runner import (  # noqa: F401
        DEFAULT_APP_PROMPT,
        MEMORY_TOOLS,
        MemoryTools,
        ToolCallRecord,
        TurnOptions,
        TurnResult,
        run_turn,
    )
    from memfs_litellm.textcalls import TextToolCall, parse_text_tool_calls  # noqa: F401
