"""``remember`` for the Claude API: the structured memory tool beside the memory tool.

The ``memory_20250818`` tool's six commands are fixed by the API, so ``remember`` is offered as
an ordinary function tool next to it (``tools=[MemFSMemoryTool(fs), remember_tool(fs)]``). The
call runs memfs's own ``remember`` (:data:`memfs.REMEMBER_TOOL`): the frontmatter composed, the
date stamped, a safe file name that replaces nothing, the index line appended, argument repairs
reported, and every rule of the workspace (read-only mounts, the credential guard) kept.
"""

from __future__ import annotations

from typing import Any

from anthropic.lib.tools import BetaFunctionTool, ToolError
from memfs import REMEMBER, REMEMBER_TOOL, AgentManifest, FileToolExecutor, MemFS, tool_schema


def remember_tool(fs: MemFS, manifest: AgentManifest | None = None) -> BetaFunctionTool[Any]:
    """A function tool that runs ``remember`` on ``fs``; a refused call is a ``ToolError``
    (an error result the model reads), with the executor's own words."""
    executor = FileToolExecutor(fs, manifest, tools=[REMEMBER])
    schema = tool_schema(REMEMBER, REMEMBER_TOOL.description, REMEMBER_TOOL.args)["function"]

    def remember(**arguments: Any) -> str:
        result = executor.execute(REMEMBER, arguments)
        if result.startswith("Error: "):
            raise ToolError(result)
        return result

    return BetaFunctionTool(
        remember,
        name=REMEMBER,
        description=schema["description"],
        input_schema=schema["parameters"],
    )
