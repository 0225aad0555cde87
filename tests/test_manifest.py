"""AgentManifest: the memory flag, the workspace gate, context_files and app.json loading."""

from __future__ import annotations

import pytest
from memfs.manifest import (
    DEFAULT_INDEX_MAX_CHARS,
    DEFAULT_INDEX_MAX_LINES,
    AgentManifest,
    AppFunction,
    IndexBudget,
)
from pydantic import ValidationError


def test_memory_is_on_by_default_and_memory_md_joins_context_files():
    m = AgentManifest()
    assert m.memory is True
    assert m.effective_context_files() == ["MEMORY.md"]


def test_memory_md_is_appended_after_declared_files():
    m = AgentManifest(context_files=["collections.json", "notes/brief.md"])
    assert m.effective_context_files() == ["collections.json", "notes/brief.md", "MEMORY.md"]


def test_memory_md_is_not_duplicated_when_the_app_already_declares_it():
    # topic-hub declares MEMORY.md itself: its position is kept, no second copy.
    m = AgentManifest(context_files=["MEMORY.md", "collections.json"])
    assert m.effective_context_files() == ["MEMORY.md", "collections.json"]


def test_declared_paths_are_normalised_and_deduplicated():
    m = AgentManifest(context_files=["/MEMORY.md", "./notes//a.md", "notes/a.md"])
    assert m.context_files == ["MEMORY.md", "notes/a.md"]
    assert m.effective_context_files() == ["MEMORY.md", "notes/a.md"]


def test_memory_off_keeps_declared_files_without_adding_the_index():
    m = AgentManifest(context_files=["collections.json"], memory=False)
    assert m.effective_context_files() == ["collections.json"]
    assert not m.memory_enabled


def test_app_without_workspace_has_no_memory_even_with_the_flag_on():
    m = AgentManifest(function=AppFunction(workspace=False))
    assert m.memory is True
    assert not m.memory_enabled
    assert "MEMORY.md" not in m.effective_context_files()


@pytest.mark.parametrize("bad", ["../secrets.md", "a/../../b.md", "", "/"])
def test_context_files_refuse_paths_outside_the_workspace(bad):
    with pytest.raises(ValidationError) as exc:
        AgentManifest(context_files=[bad])
    assert isinstance(exc.value, ValueError)


def test_from_app_json_reads_the_agent_section_and_function():
    app = {
        "name": "topic-hub",
        "tools": ["read_file", "write_file"],
        "agent": {"context_files": ["MEMORY.md", "collections.json"], "memory": True},
        "function": {"workspace": True, "kind": "hub"},
    }
    m = AgentManifest.from_app_json(app)
    assert m.context_files == ["MEMORY.md", "collections.json"]
    assert m.memory_enabled
    assert m.function.model_extra == {"kind": "hub"}


def test_from_app_json_memory_flag_off():
    m = AgentManifest.from_app_json({"agent": {"memory": False}})
    assert m.memory is False
    assert m.effective_context_files() == []


def test_from_app_json_accepts_top_level_keys_and_null_sections():
    m = AgentManifest.from_app_json(
        {"context_files": ["a.md"], "agent": None, "function": None, "memory": False}
    )
    assert m.context_files == ["a.md"]
    assert m.memory is False
    assert m.has_workspace


def test_from_app_json_without_agent_section_is_the_default_manifest():
    assert AgentManifest.from_app_json({"name": "_template"}) == AgentManifest()


def test_from_app_json_index_budget_opt_in():
    m = AgentManifest.from_app_json({"agent": {"index_budget": {"max_lines": 50}}})
    assert m.index_budget == IndexBudget(max_lines=50, max_chars=DEFAULT_INDEX_MAX_CHARS)
    assert AgentManifest().index_budget is None
    assert IndexBudget().max_lines == DEFAULT_INDEX_MAX_LINES


@pytest.mark.parametrize(
    ("app", "fragment"),
    [
        ([], "must be a JSON object"),
        ({"agent": ["MEMORY.md"]}, '"agent" must be an object'),
    ],
)
def test_from_app_json_rejects_wrong_shapes_with_a_hint(app, fragment):
    with pytest.raises(ValueError, match=fragment):
        AgentManifest.from_app_json(app)


def test_from_app_json_rejects_a_non_boolean_memory_flag():
    with pytest.raises(ValidationError):
        AgentManifest.from_app_json({"agent": {"memory": "sometimes"}})


def test_manifest_is_immutable():
    m = AgentManifest()
    with pytest.raises(ValidationError):
        m.memory = False  # type: ignore[misc]


def test_write_time_levers_default_and_come_from_app_json():
    m = AgentManifest()
    assert (m.read_before_write, m.write_receipt, m.index_nudge) == (True, True, False)
    app = {"agent": {"read_before_write": False, "write_receipt": False, "index_nudge": True}}
    m = AgentManifest.from_app_json(app)
    assert (m.read_before_write, m.write_receipt, m.index_nudge) == (False, False, True)
    with pytest.raises(ValidationError):
        AgentManifest.from_app_json({"agent": {"index_nudge": "sometimes"}})
