"""memfs_anthropic: the Anthropic memory tool (``memory_20250818``) over a MemFS workspace.

Install with the ``anthropic`` extra. ``MemFSMemoryTool(fs)`` goes wherever the SDK takes a
memory tool (``client.beta.messages.run_tools(..., tools=[MemFSMemoryTool(fs)])``);
``remember_tool(fs)`` adds the structured ``remember`` tool beside it.
"""

from memfs_anthropic.memory_tool import (
    DELIBERATE_DIFFERENCES,
    MEMORIES_ROOT,
    MemFSAsyncMemoryTool,
    MemFSMemoryTool,
    format_size,
)
from memfs_anthropic.remember import remember_tool

__all__ = [
    "DELIBERATE_DIFFERENCES",
    "MEMORIES_ROOT",
    "MemFSAsyncMemoryTool",
    "MemFSMemoryTool",
    "format_size",
    "remember_tool",
]
