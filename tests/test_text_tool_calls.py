"""Tool calls written as text: the shapes a small model writes that are calls, and those that
are not (they stay text)."""

from __future__ import annotations

import pytest

from memfs_litellm.textcalls import parse_text_tool_calls, strip_tool_calls

KNOWN = {"read_file", "write_file"}


def calls(text: str) -> list[tuple[str, dict[str, object]]]:
    return [(c.name, c.arguments) for c in parse_text_tool_calls(text, KNOWN)]


def test_arguments_written_beside_the_name_are_the_arguments() -> None:
    assert calls('{"name": "read_file", "path": "MEMORY.md", "type": "function"}') == [
        ("read_file", {"path": "MEMORY.md"})
    ]


def test_arguments_as_a_json_string_are_decoded() -> None:
    assert calls('{"name": "read_file", "arguments": "{\\"path\\": \\"a.md\\"}"}') == [
        ("read_file", {"path": "a.md"})
    ]


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "read_file", "arguments": "path=a.md"}',  # a string that is not JSON
        '{"name": "read_file", "arguments": ["a.md"]}',  # not an object
        '[3, "read_file"]',  # a list of no objects
        '{"name": "rm", "arguments": {"path": "a.md"}}',  # not a known tool
    ],
)
def test_what_is_not_a_call_of_a_known_tool_stays_text(text: str) -> None:
    assert calls(text) == []
    assert strip_tool_calls(text, KNOWN) == text


def test_a_list_with_a_non_object_keeps_its_calls() -> None:
    text = '[{"name": "read_file", "arguments": {"path": "a.md"}}, 7]'
    assert calls(text) == [("read_file", {"path": "a.md"})]
    assert strip_tool_calls(f"Reading.\n{text}\nDone.", KNOWN) == "Reading.\n\nDone."


def test_an_unclosed_list_around_a_call_still_yields_the_call() -> None:
    text = 'Calls: [{"name": "read_file", "arguments": {"path": "a.md"}}'
    (call,) = parse_text_tool_calls(text, KNOWN)
    assert (call.name, call.arguments) == ("read_file", {"path": "a.md"})
    assert text[call.start] == "{"  # the call begins at its object, not at the stray bracket
    assert strip_tool_calls(text, KNOWN) == "Calls: ["


def test_text_without_braces_is_returned_as_it_is() -> None:
    assert strip_tool_calls("Nothing to call here.", KNOWN) == "Nothing to call here."
    assert strip_tool_calls("", KNOWN) == ""
