"""memfs_anthropic: the Anthropic memory tool (``memory_20250818``) over a MemFS workspace.

Install with the ``anthropic`` extra. ``MemFSMemoryTool(fs)`` goes wherever the SDK takes a
memory tool (``client.beta.messages.run_tools(..., tools=[MemFSMemoryTool(fs)])``).
"""

from memfs_anthropic.memory_tool import (
    DELIBERATE_DIFFERENCES,
    MEMORIES_ROOT,
    MemFSAsyncMemoryTool,
    MemFSMemoryTool,
    format_size,
)

__all__ = [
    "DELIBERATE_DIFFERENCES",
    "MEMORIES_ROOT",
    "MemFSAsyncMemoryTool",
    "MemFSMemoryTool",
    "format_size",
]
