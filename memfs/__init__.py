"""memfs: Claude-Code-style persistent memory for LLM agents, as an fsspec filesystem.

Memory is plain markdown in an item's workspace: memory files with YAML frontmatter, and an
index ``MEMORY.md``; where they live is the workspace's :class:`Layout`. :class:`MemFS` is the
one place the rules live (staleness reminder, read-only mounts, path confinement, trusted write
dates, the credential guard).

This module is the public API: everything an integration needs — the filesystem and its stores,
every error a caller catches, the agent file tools, the turn builder, the memory prompt, version
history, search and layouts — is importable from ``memfs`` itself, and documented on the API
reference page. Names load on first use (:pep:`562`), so ``import memfs`` costs what the names
you touch cost, not the whole package.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# name -> the module that owns it. One table: ``__all__``, ``__getattr__`` and ``__dir__`` read it.
_EXPORTS: dict[str, str] = {
    # the filesystem and its stores
    "MemFS": "memfs.filesystem",
    "MemFSFile": "memfs.filesystem",
    "MemFSOptions": "memfs.filesystem",
    "UNKNOWN_ACTOR": "memfs.filesystem",
    "utc_today": "memfs.filesystem",
    "FileStore": "memfs.stores",
    "ConditionalFileStore": "memfs.stores",
    "VersionedFileStore": "memfs.stores",
    "VersionedListingStore": "memfs.stores",
    "LocalFileStore": "memfs.stores",
    "InMemoryFileStore": "memfs.stores",
    "FsspecFileStore": "memfs.stores",
    "S3FileStore": "memfs.stores",
    "with_preconditions": "memfs.stores",
    "supports_versioned_listing": "memfs.stores",
    "CountingFileStore": "memfs.counting",
    "StoreCalls": "memfs.counting",
    # paths and layouts
    "normalize": "memfs.paths",
    "join": "memfs.paths",
    "Layout": "memfs.layout",
    "PLATFORM": "memfs.layout",
    "INDEX_FILE": "memfs.layout",
    "INDEX_NAME": "memfs.layout",
    "MEMORY_DIR": "memfs.layout",
    "detect_layout": "memfs.layout",
    "resolve_layout": "memfs.layout",
    # errors (all of them live in memfs.errors), and the distribution an install hint names
    "DISTRIBUTION": "memfs.errors",
    "message": "memfs.errors",
    "describe_mode": "memfs.errors",
    "UnsafePathError": "memfs.errors",
    "ReadOnlyError": "memfs.errors",
    "CredentialRefusedError": "memfs.errors",
    "WriteConflictError": "memfs.errors",
    "PreconditionFailedError": "memfs.errors",
    "PathConflictError": "memfs.errors",
    "UpdateConflictError": "memfs.errors",
    "MoveConflictError": "memfs.errors",
    "MemoryFileTooLargeError": "memfs.errors",
    "ConditionalWriteTooLargeError": "memfs.errors",
    "BucketNotFoundError": "memfs.errors",
    "SearchPatternError": "memfs.errors",
    "ToolCallError": "memfs.errors",
    "VersionError": "memfs.errors",
    "FrontmatterStampError": "memfs.errors",
    "CopiedTextError": "memfs.errors",
    "UnreadableMemoryError": "memfs.errors",
    "MissingPackageError": "memfs.errors",
    "MissingExtraError": "memfs.errors",
    "describe_storage_failure": "memfs.errors",
    "is_expected_failure": "memfs.errors",
    # memory files, the index, the reminder
    "MemoryRecord": "memfs.records",
    "parse_memory": "memfs.records",
    "MemoryIndex": "memfs.index",
    "parse_index": "memfs.index",
    "split_frontmatter": "memfs.frontmatter_block",
    "parse_yaml_mapping": "memfs.frontmatter_block",
    "reminder_text": "memfs.staleness",
    "memory_age": "memfs.staleness",
    "FRESH_DAYS": "memfs.staleness",
    "collect_stats": "memfs.stats",
    "measure": "memfs.stats",
    "Measurement": "memfs.stats",
    "report_over": "memfs.stats",
    "KeptFigures": "memfs.stats",
    "StatsReport": "memfs.stats",
    "split_view": "memfs.staleness",
    "escape_for_agent": "memfs.tags",
    "estimate_tokens": "memfs.tokens",
    "with_margin": "memfs.tokens",
    # the agent's file tools
    "FileToolExecutor": "memfs.tools",
    "ToolCallRecord": "memfs.tools",
    "FILE_TOOLS": "memfs.tools",
    "FILE_TOOL_NAMES": "memfs.tools",
    "FILE_WRITE_TOOLS": "memfs.tools",
    "REMEMBER": "memfs.tools",
    "REMEMBER_TOOL": "memfs.tools",
    "REMEMBER_FACTS": "memfs.tools",
    "REMEMBER_BY_KIND": "memfs.tools",
    "MEMORY_SAVERS": "memfs.tools",
    "repair_arguments": "memfs.tools",
    "safe_memory_name": "memfs.tools",
    "file_tool_schemas": "memfs.tools",
    "tool_schema": "memfs.tools",
    "parse_arguments": "memfs.tools",
    "memory_problems": "memfs.receipt",
    "write_receipt": "memfs.receipt",
    # turns, the context block and the prompt
    "AgentManifest": "memfs.manifest",
    "Message": "memfs.turns",
    "ChatTurn": "memfs.turns",
    "Placement": "memfs.turns",
    "PLACEMENTS": "memfs.turns",
    "build_turn": "memfs.turns",
    "build_chat_turn": "memfs.turns",
    "build_workflow_turn": "memfs.turns",
    "TurnMode": "memfs.memory_access",
    "mount_for": "memfs.memory_access",
    "mount_for_mode": "memfs.memory_access",
    "Framing": "memfs.context",
    "FRAMINGS": "memfs.context",
    "build_context_block": "memfs.context",
    "FRAME_PREAMBLE": "memfs.context",
    "HEADING_OPEN": "memfs.context",
    "HEADING_CLOSE": "memfs.context",
    "HEADING_PREAMBLE": "memfs.context",
    "memory_prompt": "memfs.prompt",
    "PromptVariant": "memfs.prompt",
    "PROMPT_VARIANTS": "memfs.prompt",
    "MEMORY_LAST_VARIANTS": "memfs.prompt",
    # version history
    "History": "memfs.history",
    "HistoryOptions": "memfs.versions",
    "Retention": "memfs.versions",
    # search
    "SearchArgs": "memfs.search_args",
    "SearchResult": "memfs.search",
    "search_memory": "memfs.search",
    "format_matches": "memfs.search",
    "describe_search": "memfs.search",
}

# Exported under another name than the one their module gives them.
_RENAMED: dict[str, str] = {"describe_search": "describe"}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'memfs' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), _RENAMED.get(name, name))
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


if TYPE_CHECKING:  # for type checkers and editors; at run time __getattr__ loads these
    from memfs.context import (
        FRAME_PREAMBLE,
        FRAMINGS,
        HEADING_CLOSE,
        HEADING_OPEN,
        HEADING_PREAMBLE,
        Framing,
        build_context_block,
    )
    from memfs.counting import CountingFileStore, StoreCalls
    from memfs.errors import (
        DISTRIBUTION,
        BucketNotFoundError,
        ConditionalWriteTooLargeError,
        CopiedTextError,
        CredentialRefusedError,
        FrontmatterStampError,
        MemoryFileTooLargeError,
        MissingExtraError,
        MissingPackageError,
        MoveConflictError,
        PathConflictError,
        PreconditionFailedError,
        ReadOnlyError,
        SearchPatternError,
        ToolCallError,
        UnreadableMemoryError,
        UnsafePathError,
        UpdateConflictError,
        VersionError,
        WriteConflictError,
        describe_mode,
        describe_storage_failure,
        is_expected_failure,
        message,
    )
    from memfs.filesystem import UNKNOWN_ACTOR, MemFS, MemFSFile, MemFSOptions, utc_today
    from memfs.frontmatter_block import parse_yaml_mapping, split_frontmatter
    from memfs.history import History
    from memfs.index import MemoryIndex, parse_index
    from memfs.layout import (
        INDEX_FILE,
        INDEX_NAME,
        MEMORY_DIR,
        PLATFORM,
        Layout,
        detect_layout,
        resolve_layout,
    )
    from memfs.manifest import AgentManifest
    from memfs.memory_access import TurnMode, mount_for, mount_for_mode
    from memfs.paths import join, normalize
    from memfs.prompt import MEMORY_LAST_VARIANTS, PROMPT_VARIANTS, PromptVariant, memory_prompt
    from memfs.receipt import memory_problems, write_receipt
    from memfs.records import MemoryRecord, parse_memory
    from memfs.search import (
        SearchResult,
        format_matches,
        search_memory,
    )
    from memfs.search import describe as describe_search
    from memfs.search_args import SearchArgs
    from memfs.staleness import FRESH_DAYS, memory_age, reminder_text, split_view
    from memfs.stats import (
        KeptFigures,
        Measurement,
        StatsReport,
        collect_stats,
        measure,
        report_over,
    )
    from memfs.stores import (
        ConditionalFileStore,
        FileStore,
        FsspecFileStore,
        InMemoryFileStore,
        LocalFileStore,
        S3FileStore,
        VersionedFileStore,
        VersionedListingStore,
        supports_versioned_listing,
        with_preconditions,
    )
    from memfs.tags import escape_for_agent
    from memfs.tokens import estimate_tokens, with_margin
    from memfs.tools import (
        FILE_TOOL_NAMES,
        FILE_TOOLS,
        FILE_WRITE_TOOLS,
        MEMORY_SAVERS,
        REMEMBER,
        REMEMBER_BY_KIND,
        REMEMBER_FACTS,
        REMEMBER_TOOL,
        FileToolExecutor,
        ToolCallRecord,
        file_tool_schemas,
        parse_arguments,
        repair_arguments,
        safe_memory_name,
        tool_schema,
    )
    from memfs.turns import (
        PLACEMENTS,
        ChatTurn,
        Message,
        Placement,
        build_chat_turn,
        build_turn,
        build_workflow_turn,
    )
    from memfs.versions import HistoryOptions, Retention
