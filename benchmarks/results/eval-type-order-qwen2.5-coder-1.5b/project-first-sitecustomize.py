"""Probe B: the memory-type enum listed project first in every tool schema."""
import memfs.tools as t

_orig = t.tool_schema
ORDER = ["project", "user", "feedback", "reference"]


def _reorder(node):
    if isinstance(node, dict):
        if sorted(node.get("enum") or []) == sorted(ORDER):
            node["enum"] = list(ORDER)
        for v in node.values():
            _reorder(v)
    elif isinstance(node, list):
        for v in node:
            _reorder(v)


def tool_schema(name, description, args):
    s = _orig(name, description, args)
    _reorder(s)
    return s


t.tool_schema = tool_schema
