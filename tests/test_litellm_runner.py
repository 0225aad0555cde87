"""The agent loop against a scripted model, through litellm's own completion (mock responses).

These prove plumbing — tool dispatch, bad calls, the read-only mount, num_ctx, truncation —
never model behaviour.
"""

from __future__ import annotations

import copy
import json
import logging
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any, ClassVar

import pytest

pytest.importorskip("litellm")

import litellm
from litellm import ModelResponse
from memfs import InMemoryFileStore, MemFS
from memfs.manifest import AgentManifest

from memfs_litellm import (
    COMPETING_TOOL_NAMES,
    PLATFORM_TOOLS,
    ContextWindowResolver,
    PlatformToolRecorder,
    TurnOptions,
    check_truncation,
    format_tools_for_prompt,
    parse_text_tool_calls,
    run_turn,
    tool_schemas,
)
from memfs_litellm.ollama import estimate_prompt_tokens, registry_window, window_kwargs
from memfs_litellm.runner import RepeatGuard, ToolCall, assistant_message, parse_reply
from memfs_litellm.textcalls import strip_tool_calls
from tests.conftest import TODAY

INDEX = "- [Yield source](memory/yield-source.md) — MES daily_yield, not QA weekly\n"
MEMORY = """---
name: yield-source
description: "Authoritative yield data is MES daily_yield"
metadata:
  type: project
  recorded: 2026-09-02
---
Use MES daily_yield.
"""
NEW_MEMORY = """---
name: user-role
description: "The user is a process engineer"
metadata:
  type: user
---
The user is a process engineer; do not explain Cpk or Ppk.
"""
USER = "I am a process engineer, no need to explain Cpk. Please remember that."


def call(name: str, arguments: Any) -> tuple[str, Any]:
    return (name, arguments)


class ScriptedModel:
    """A scripted model behind ``litellm.completion(mock_response=…)``; records every request.

    Each step is a reply text, a list of tool calls ``(name, arguments)`` (arguments as a dict
    or a raw string), or a dict with ``text``/``calls``/``prompt_tokens``.
    """

    def __init__(self, *steps: Any, prompt_tokens: int | None = None) -> None:
        self.steps = list(steps)
        self.requests: list[dict[str, Any]] = []
        self.prompt_tokens = prompt_tokens

    def __call__(self, **kwargs: Any) -> Any:
        self.requests.append(copy.deepcopy(kwargs))
        step = self.steps.pop(0) if self.steps else "done"
        if isinstance(step, str):
            step = {"text": step}
        elif isinstance(step, list):
            step = {"calls": step}
        calls = [
            {
                "id": f"call_{len(self.requests)}_{i}",
                "type": "function",
                "function": {
                    "name": name,
                    "arguments": args if isinstance(args, str) else json.dumps(args),
                },
            }
            for i, (name, args) in enumerate(step.get("calls", []))
        ]
        reported = step.get("prompt_tokens", self.prompt_tokens)
        if reported is None:  # an honest endpoint: reports about what was sent
            reported = estimate_prompt_tokens(kwargs["messages"], kwargs.get("tools"))
        message: dict[str, Any] = {"role": "assistant", "content": step.get("text")}
        if calls:
            message["tool_calls"] = calls
        response = ModelResponse(
            choices=[
                {
                    "index": 0,
                    "finish_reason": "tool_calls" if calls else "stop",
                    "message": message,
                }
            ],
            usage={"prompt_tokens": reported, "completion_tokens": 7, "total_tokens": reported + 7},
        )
        return litellm.completion(**kwargs, mock_response=response)


@pytest.fixture
def fs() -> MemFS:
    fs = MemFS(InMemoryFileStore(), clock=lambda: TODAY)
    fs.pipe_file("MEMORY.md", INDEX.encode())
    fs.migrating().pipe_file("memory/yield-source.md", MEMORY.encode())  # 90 days old
    return fs


@pytest.fixture
def manifest() -> AgentManifest:
    return AgentManifest()


def run(scripted: ScriptedModel, fs: MemFS | None, manifest: AgentManifest, /, **kw: Any) -> Any:
    kw.setdefault("model", "openai/scripted")
    kw.setdefault("user_message", USER)
    return run_turn(fs=fs, manifest=manifest, completion=scripted, **kw)


# -- the loop ----------


def test_multi_step_chat_turn_writes_memory_through_the_file_tools(fs, manifest):
    model = ScriptedModel(
        [call("read_file", {"path": "MEMORY.md"})],
        [
            call("write_file", {"path": "memory/user-role.md", "content": NEW_MEMORY}),
            call(
                "edit_file",
                {
                    "path": "MEMORY.md",
                    "old_string": "QA weekly\n",
                    "new_string": "QA weekly\n- [User role](memory/user-role.md) — process "
                    "engineer\n",
                },
            ),
        ],
        "Noted: you are a process engineer.",
    )
    result = run(model, fs, manifest)

    assert result.stopped == "answer"
    assert result.final_text == "Noted: you are a process engineer."
    assert [(c.name, c.step, c.source, c.executed) for c in result.tool_calls] == [
        ("read_file", 1, "native", True),
        ("write_file", 2, "native", True),
        ("edit_file", 2, "native", True),
    ]
    assert result.tool_calls[0].result == INDEX
    assert result.tool_calls[1].result.startswith("Created memory/user-role.md")
    assert result.tool_calls[2].result == "Edited MEMORY.md (line 1)."
    stored = fs.raw.cat_file("memory/user-role.md").decode()
    assert "The user is a process engineer" in stored
    assert "recorded: '2026-12-01'" in stored or "recorded: 2026-12-01" in stored
    assert "(memory/user-role.md)" in fs.cat_file("MEMORY.md").decode()

    assert len(model.requests) == 3
    assert result.transcript[:-1] == model.requests[2]["messages"]
    assert result.transcript[-1] == {
        "role": "assistant",
        "content": "Noted: you are a process engineer.",
    }
    assert [m["role"] for m in result.transcript] == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "tool",
        "assistant",
    ]
    second = model.requests[1]["messages"]
    assert second[-1] == {
        "role": "tool",
        "tool_call_id": "call_1_0",
        "name": "read_file",
        "content": INDEX,
    }
    assert second[-2]["tool_calls"][0]["function"]["name"] == "read_file"
    assert result.usage.calls == 3 and result.usage.completion_tokens == 21
    assert result.usage.prompt_tokens == sum(s.prompt_tokens or 0 for s in result.steps)
    assert result.elapsed_s >= sum(s.elapsed_s for s in result.steps) - 0.01
    assert not result.truncated


def test_context_block_rides_on_the_sent_message_but_not_in_persisted_history(fs, manifest):
    model = ScriptedModel("ok")
    history = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    result = run(model, fs, manifest, transcript=history)
    sent = model.requests[0]["messages"]
    assert sent[0]["role"] == "system"
    assert sent[1:3] == history
    assert result.context_block and INDEX.strip() in result.context_block
    assert sent[3] == {"role": "user", "content": result.context_block + USER}
    assert result.persist == [
        *history,
        {"role": "user", "content": USER},
        {
            "role": "assistant",
            "content": "ok",
        },
    ]
    assert all(result.context_block not in str(m.get("content")) for m in result.persist)


def test_bad_arguments_and_unknown_tools_come_back_as_tool_results(fs, manifest):
    model = ScriptedModel(
        [call("write_file", '{"path": "memory/x.md", "content": ')],  # invalid JSON
        [call("write_file", {"path": "memory/x.md"})],  # missing argument
        [call("shell", {"cmd": "ls"})],  # unknown tool
        "giving up",
    )
    result = run(model, fs, manifest)
    assert result.stopped == "answer" and result.final_text == "giving up"
    outs = [c.result for c in result.tool_calls]
    assert outs[0].startswith("Error: The arguments for write_file are not valid JSON")
    assert result.tool_calls[0].arguments == '{"path": "memory/x.md", "content": '
    assert "missing required argument 'content'" in outs[1]
    assert outs[2].startswith("Error: unknown tool 'shell'. The tools available are: read_file")
    assert not fs.exists("memory/x.md")


def test_workflow_turn_write_is_refused_as_a_tool_result(fs, manifest):
    model = ScriptedModel(
        [call("write_file", {"path": "memory/user-role.md", "content": NEW_MEMORY})],
        [call("edit_file", {"path": "MEMORY.md", "old_string": "MES", "new_string": "QA"})],
        [call("read_file", {"path": "memory/yield-source.md"})],
        "I cannot write memory from a workflow.",
    )
    before = fs.raw.cat_file("MEMORY.md")
    result = run(model, fs, manifest, mode="workflow")
    assert result.mode == "workflow" and result.stopped == "answer"
    write, edit, read = result.tool_calls
    assert "mounted read-only" in write.result and write.result.startswith("Error: Cannot write")
    assert "mounted read-only" in edit.result
    assert read.result.startswith("<system-reminder>This memory is 90 days old.")
    assert not fs.exists("memory/user-role.md")
    assert fs.raw.cat_file("MEMORY.md") == before
    assert INDEX.strip() in model.requests[0]["messages"][-1]["content"]  # block still injected


def test_step_limit(fs, manifest):
    model = ScriptedModel(*[[call("list_files", {})] for _ in range(5)])
    result = run(model, fs, manifest, max_steps=3)
    assert result.stopped == "max_steps"
    assert len(model.requests) == 3 and len(result.tool_calls) == 3
    with pytest.raises(ValueError, match="max_steps"):
        run(model, fs, manifest, max_steps=0)


def test_text_tool_calls_from_a_small_model_are_run_and_marked(fs, manifest):
    reply = (
        "I'll save that.\n```json\n"
        + json.dumps(
            {"name": "write_file", "arguments": {"path": "memory/r.md", "content": NEW_MEMORY}}
        )
        + "\n```"
    )
    model = ScriptedModel(reply, "Saved.")
    result = run(model, fs, manifest)
    (c,) = result.tool_calls
    assert (c.name, c.source, c.executed) == ("write_file", "text", True)
    assert fs.exists("memory/r.md")
    assistant, tool = model.requests[1]["messages"][-2:]
    assert assistant == {"role": "assistant", "content": reply}  # echoed as written
    assert tool["tool_call_id"] == "text_1_0" and tool["content"].startswith("Created memory/r.md")
    assert result.final_text == "Saved."


def test_text_tool_calls_can_be_switched_off(fs, manifest):
    reply = '{"name": "write_file", "arguments": {"path": "a.md", "content": "x"}}'
    result = run(ScriptedModel(reply), fs, manifest, text_tool_calls=False)
    assert result.tool_calls == [] and result.final_text == reply
    assert not fs.exists("a.md")


def test_options_are_one_turn_options_and_keywords_apply_over_them(fs, manifest):
    opts = TurnOptions(tools="files-only", max_steps=2, tools_in_prompt=False)
    model = ScriptedModel(*[[call("list_files", {})] for _ in range(5)])
    result = run(model, fs, manifest, options=opts, max_steps=1)
    assert result.stopped == "max_steps" and len(model.requests) == 1
    assert result.offered_tools == [t["function"]["name"] for t in tool_schemas("files-only")]
    assert opts.max_steps == 2  # the caller's options are not changed
    with pytest.raises(TypeError, match=r"unknown option\(s\) max_step;"):
        run(ScriptedModel("ok"), fs, manifest, max_step=3)
    with pytest.raises(ValueError, match="max_steps must be at least 1, not 0"):
        TurnOptions(max_steps=0)


def test_the_steps_parse_a_reply_and_guard_repeats_on_their_own():
    written = 'Saving.\n{"name": "write_file", "arguments": {"path": "a.md", "content": "x"}}'
    reply = parse_reply({"content": written}, 2, ["write_file"], text_tool_calls=True)
    assert reply.content == "Saving." and reply.written == written
    assert reply.calls == [
        ToolCall("text_2_0", "write_file", {"path": "a.md", "content": "x"}, "text")
    ]
    assert assistant_message(reply) == {"role": "assistant", "content": written}
    native = {
        "content": None,
        "tool_calls": [
            {"id": "c1", "function": {"name": "read_file", "arguments": '{"path": "a.md"}'}}
        ],
    }
    (read,) = parse_reply(native, 1, ["read_file"], text_tool_calls=True).calls
    assert read == ToolCall("c1", "read_file", '{"path": "a.md"}', "native")

    guard = RepeatGuard()
    assert guard.earlier_result(read) is None
    guard.ran(read, "contents", executed=True)
    same = read._replace(id="c2", arguments={"path": "a.md"})  # the same call, parsed arguments
    assert guard.earlier_result(same) == "contents"
    write = ToolCall("c3", "write_file", {"path": "a.md", "content": "y"}, "native")
    guard.ran(write, "Overwrote a.md", executed=True)
    assert guard.earlier_result(read) is None  # a write makes earlier reads new again
    assert RepeatGuard(enabled=False).earlier_result(read) is None


# -- the platform's tools ----------


def test_platform_table_has_eighteen_tools_with_the_competitors():
    names = [t["function"]["name"] for t in PLATFORM_TOOLS]
    assert len(names) == 18 == len(set(names))
    for required in (
        "save_skill",
        "save_workflow",
        "create_context_card",
        "update_context_card",
        "request_wiki_update",
        "resolve_collection",
        "update_todos",
        "ask_knowledge_base",
        "ask_wiki",
        "write_file",
        "edit_file",
    ):
        assert required in names
    for t in PLATFORM_TOOLS:
        assert t["type"] == "function" and t["function"]["parameters"]["type"] == "object"
        assert len(t["function"]["description"]) > 40


def test_format_tools_for_prompt_lists_names_descriptions_and_schemas():
    text = format_tools_for_prompt(PLATFORM_TOOLS)
    for t in PLATFORM_TOOLS:
        fn = t["function"]
        assert f"## {fn['name']}\n{fn['description']}\n" in text
        assert json.dumps(fn["parameters"], ensure_ascii=False, separators=(", ", ": ")) in text
    assert "not shell commands" in text
    assert format_tools_for_prompt([]) == ""


def test_competing_tool_calls_are_recorded_not_executed(fs, manifest):
    model = ScriptedModel(
        [
            call(
                "save_skill",
                {"name": "yield-tracking", "description": "d", "instructions": "1. track"},
            ),
            call("save_skill", {"name": "incomplete"}),
        ],
        "Skill saved.",
    )
    result = run(model, fs, manifest)
    ok, bad = result.tool_calls
    assert (ok.name, ok.executed) == ("save_skill", False)
    assert ok.result.startswith("Skill 'yield-tracking' saved.")
    assert bad.result.startswith("Error: invalid arguments for save_skill: missing required")
    assert sorted(fs.find("")) == ["MEMORY.md", "memory/yield-source.md"]
    tools = model.requests[0]["tools"]
    assert len(tools) == 18
    assert "## save_skill" in model.requests[0]["messages"][0]["content"]


def test_files_only_run_offers_six_tools_and_refuses_the_others(fs, manifest):
    model = ScriptedModel([call("save_skill", {"name": "x"})], "ok")
    result = run(model, fs, manifest, tools="files-only")
    assert result.offered_tools == [
        "read_file",
        "write_file",
        "edit_file",
        "list_files",
        "exists",
        "delete_file",
    ]
    assert len(model.requests[0]["tools"]) == 6
    assert result.tool_calls[0].result.startswith("Error: unknown tool 'save_skill'")
    assert "## save_skill" not in model.requests[0]["messages"][0]["content"]


def test_tool_list_can_stay_out_of_the_system_prompt(fs, manifest):
    model = ScriptedModel("ok")
    result = run(model, fs, manifest, tools_in_prompt=False)
    system = model.requests[0]["messages"][0]["content"]
    assert "# Tools" not in system and system == result.system_prompt
    assert len(model.requests[0]["tools"]) == 18


def test_no_workspace_no_file_tools(manifest):
    model = ScriptedModel("ok")
    result = run(model, None, manifest)
    assert result.offered_tools == list(COMPETING_TOOL_NAMES)
    assert result.context_block == ""


def test_recorder_keeps_calls():
    rec = PlatformToolRecorder()
    out = rec.execute("update_todos", {"todos": [{"text": "check SPC"}]})
    assert out == "To-do list updated."
    assert rec.calls == [("update_todos", {"todos": [{"text": "check SPC", "status": "pending"}]})]
    assert rec.execute("nope", {}) == "Error: unknown tool 'nope'."
    assert rec.execute("ask_wiki", "[1]").startswith("Error: The arguments for ask_wiki must be")


def test_tool_schemas_selection():
    assert len(tool_schemas("platform")) == 18
    assert len(tool_schemas("files-only")) == 6
    assert len(tool_schemas("platform", file_tools=False)) == 12
    with pytest.raises(ValueError):
        tool_schemas("all")  # type: ignore[arg-type]


# -- the Ollama window ----------


@pytest.mark.parametrize("model_name", ["ollama/qwen3:14b", "ollama_chat/qwen3:14b"])
def test_num_ctx_sent_for_ollama_from_the_override(fs, manifest, model_name):
    model = ScriptedModel("ok")
    result = run(model, fs, manifest, model=model_name, context_window=40960)
    assert model.requests[0]["num_ctx"] == 40960
    assert "num_ctx" not in model.requests[0].get("extra_body", {})
    assert (result.num_ctx_sent, result.window_source) == (40960, "override")


def test_num_ctx_never_sent_to_other_providers(fs, manifest):
    model = ScriptedModel("ok")
    result = run(model, fs, manifest, model="openai/gpt-4o-mini", context_window=40960)
    assert "num_ctx" not in model.requests[0]
    assert result.num_ctx_sent is None


def test_num_ctx_resolution_order(fs, manifest, monkeypatch):
    monkeypatch.setattr("memfs_litellm.ollama.registry_window", lambda m: 32768)
    resolver = ContextWindowResolver(overrides={"ollama/a": 16384})
    assert resolver.resolve("ollama/a").tokens == 16384  # type: ignore[union-attr]
    assert resolver.resolve("ollama/b").source == "registry"  # type: ignore[union-attr]
    resolver.learn("ollama/b", 24576)
    assert resolver.resolve("ollama/b").model_dump() == {"tokens": 24576, "source": "learned"}  # type: ignore[union-attr]
    assert resolver.resolve("ollama/b", 8192).source == "override"  # type: ignore[union-attr]
    model = ScriptedModel("ok")
    run(model, fs, manifest, model="ollama/b", resolver=resolver)
    assert model.requests[0]["num_ctx"] == 24576


def test_unresolvable_window_sends_nothing(fs, manifest, monkeypatch):
    monkeypatch.setattr("memfs_litellm.ollama.registry_window", lambda m: None)
    model = ScriptedModel("ok")
    result = run(
        model, fs, manifest, model="ollama/no-such-model", resolver=ContextWindowResolver()
    )
    assert "num_ctx" not in model.requests[0]
    assert result.num_ctx_sent is None and result.window_source is None


def test_window_learned_from_an_error_message():
    resolver = ContextWindowResolver()
    msg = "This model's maximum context length is 32,768 tokens. However, you requested 40000"
    assert resolver.learn_from_error("ollama/x", msg) == 32768
    assert resolver.resolve("ollama/x").source == "learned"  # type: ignore[union-attr]
    assert resolver.learn_from_error("ollama/x", "connection refused") is None


def test_window_learned_from_a_refused_request_is_sent_next_turn(fs, manifest, monkeypatch):
    monkeypatch.setattr("memfs_litellm.ollama.registry_window", lambda m: None)
    resolver = ContextWindowResolver()

    def refuse(**_kw: Any) -> Any:
        raise litellm.BadRequestError(
            "the maximum context length is 16384 tokens", model="qwen", llm_provider="ollama"
        )

    with pytest.raises(litellm.BadRequestError):
        run(refuse, fs, manifest, model="ollama_chat/qwen", resolver=resolver)  # type: ignore[arg-type]
    model = ScriptedModel("ok")
    result = run(model, fs, manifest, model="ollama_chat/qwen", resolver=resolver)
    assert model.requests[0]["num_ctx"] == 16384 and result.window_source == "learned"


def test_registry_window_from_litellm():
    assert (
        registry_window("ollama/llama3")
        == litellm.get_model_info("ollama/llama3")["max_input_tokens"]
    )
    assert registry_window("openai/definitely-not-a-model-xyz") is None
    assert window_kwargs("ollama/llama3", 8192) == {"num_ctx": 8192}
    assert window_kwargs("anthropic/claude", 8192) == {}
    assert window_kwargs("ollama/llama3", None) == {}


# -- silent truncation ----------


def test_truncation_flagged_when_the_endpoint_reports_a_default_window(fs, manifest, caplog):
    big = "Yield notes. " * 2000  # ~6.5k tokens of history
    model = ScriptedModel("ok", prompt_tokens=4096)
    with caplog.at_level(logging.WARNING, logger="memfs_litellm"):
        result = run(
            model,
            fs,
            manifest,
            model="ollama/qwen3:14b",
            transcript=[{"role": "user", "content": big}, {"role": "assistant", "content": "ok"}],
            resolver=ContextWindowResolver(),
            completion_kwargs={},
        )
    assert result.truncated
    assert result.truncation_note is not None
    assert "reported 4096 prompt tokens, exactly 4096, a default context window" in (
        result.truncation_note
    )
    assert "context_window=" in result.truncation_note  # names the window to set
    assert result.steps[0].truncated
    assert any("truncated silently" in r.message for r in caplog.records)


def test_truncation_flagged_when_far_below_the_estimate(fs, manifest):
    result = run(ScriptedModel("ok", prompt_tokens=100), fs, manifest)
    assert result.truncated
    assert "n_ctx" in (result.truncation_note or "")


def test_honest_endpoint_is_not_flagged(fs, manifest):
    result = run(ScriptedModel("ok"), fs, manifest, model="ollama/x", context_window=40960)
    assert not result.truncated and result.truncation_note is None


def test_check_truncation_rules():
    assert not check_truncation("openai/x", None, 5000).truncated
    assert not check_truncation("openai/x", 4000, 5000).truncated  # 80 %
    assert check_truncation("openai/x", 3000, 5000).truncated  # 60 %
    assert not check_truncation("ollama/x", 4096, 1000).truncated  # short prompt, exact by chance
    c = check_truncation("ollama/x", 4096, 4500, num_ctx_sent=4096)
    assert c.truncated and c.suggested_window == 5120
    assert "num_ctx=4096 was sent" in (c.note or "")


# -- num_ctx on the wire, through litellm's real Ollama client ----------


class _FakeOllama(BaseHTTPRequestHandler):
    bodies: ClassVar[list[dict[str, Any]]] = []
    prompt_eval_count = 4096

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length", 0))
        body = json.loads(self.rfile.read(length) or b"{}")
        if self.path == "/api/chat":  # litellm also POSTs /api/show for model info
            type(self).bodies.append(body)
        reply = {
            "model": body.get("model"),
            "created_at": "2026-12-01T00:00:00Z",
            "message": {"role": "assistant", "content": "ok"},
            "done": True,
            "done_reason": "stop",
            "prompt_eval_count": self.prompt_eval_count,
            "eval_count": 1,
        }
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def fake_ollama():
    _FakeOllama.bodies = []
    server = HTTPServer(("127.0.0.1", 0), _FakeOllama)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_num_ctx_reaches_ollama_options_and_a_4096_report_is_flagged(fs, manifest, fake_ollama):
    result = run_turn(
        model="ollama_chat/qwen3:14b",
        fs=fs,
        manifest=manifest,
        user_message=USER,
        transcript=[{"role": "user", "content": "Yield notes. " * 2000}],
        context_window=40960,
        completion_kwargs={"api_base": fake_ollama},
    )
    (body,) = _FakeOllama.bodies
    assert body["options"]["num_ctx"] == 40960
    assert result.usage.prompt_tokens == 4096
    assert result.truncated and "num_ctx=40960 was sent" in (result.truncation_note or "")


# -- the text tool-call parser ----------

KNOWN = ["write_file", "edit_file", "read_file", "save_skill"]


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "write_file", "arguments": {"path": "a.md", "content": "x"}}',
        'Sure.\n```json\n{"name": "write_file", "arguments": {"path": "a.md", "content": "x"}}'
        "\n```",
        '<tool_call>\n{"name": "write_file", "arguments": {"path": "a.md", "content": "x"}}\n'
        "</tool_call>",
        '{{"name": "write_file", "arguments": {{"path": "a.md", "content": "x"}}}}',
        '{"name": "write_file", "arguments": "{\\"path\\": \\"a.md\\", \\"content\\": \\"x\\"}"}',
        '{"type": "function", "function": {"name": "write_file", "parameters": '
        '{"path": "a.md", "content": "x"}}}',
        '[{"name": "write_file", "arguments": {"path": "a.md", "content": "x"}}]',
    ],
)
def test_text_tool_call_shapes(text):
    (c,) = parse_text_tool_calls(text, KNOWN)
    assert (c.name, c.arguments) == ("write_file", {"path": "a.md", "content": "x"})


def test_text_parser_ignores_unknown_names_and_prose():
    assert parse_text_tool_calls('{"name": "rm", "arguments": {}}', KNOWN) == []
    assert parse_text_tool_calls("I saved it in {memory}.", KNOWN) == []
    assert parse_text_tool_calls("", KNOWN) == []
    assert parse_text_tool_calls(None, KNOWN) == []


def test_text_parser_keeps_order_and_drops_verbatim_repeats():
    one = '{"name": "write_file", "arguments": {"path": "m.md", "content": "x"}}'
    two = json.dumps(
        {"name": "edit_file", "arguments": {"path": "M.md", "old_string": "a", "new_string": "b"}}
    )
    calls = parse_text_tool_calls(f"{one}\n{two}\n{one}", KNOWN)
    assert [c.name for c in calls] == ["write_file", "edit_file"]
    assert strip_tool_calls(f"Doing it.\n{one}\n{two}\nDone.", KNOWN) == "Doing it.\n\nDone."
    assert strip_tool_calls('Kept {"name": "rm"} as is.', KNOWN) == 'Kept {"name": "rm"} as is.'


def test_json_content_with_braces_inside_strings():
    text = json.dumps(
        {"name": "write_file", "arguments": {"path": "a.md", "content": "set {x} = }{"}}
    )
    (c,) = parse_text_tool_calls(text, KNOWN)
    assert c.arguments["content"] == "set {x} = }{"


# -- memfs chat ----------------------------------------------------------------------------------


def test_chat_loop_runs_turns_keeps_history_and_memory(fs, manifest):
    import io

    from memfs_litellm.chat_command import chat_loop

    scripted = ScriptedModel(
        [call("write_file", {"path": "memory/user-role.md", "content": NEW_MEMORY})],
        "Noted.",
        "You are a process engineer.",
    )
    lines = iter([USER, "", "/memory", "Who am I?", "/new", "/exit", "never read"])
    out = io.StringIO()
    turns = chat_loop(
        fs,
        manifest,
        "openai/scripted",
        read_line=lambda _p: next(lines),
        out=out,
        completion=scripted,
    )
    text = out.getvalue()
    assert turns == 2
    assert "↳ write_file(" in text and "Created memory/user-role.md" in text
    assert "assistant> Noted." in text and "assistant> You are a process engineer." in text
    assert INDEX.strip() in text  # /memory printed the index
    assert "(new conversation; memory is kept)" in text
    assert fs.exists("memory/user-role.md")
    third = scripted.requests[2]["messages"]  # 2nd turn carries the 1st turn's history
    assert [m["role"] for m in third[1:]] == ["user", "assistant", "tool", "assistant", "user"]


def test_chat_loop_survives_a_failing_model(fs, manifest):
    import io

    from memfs_litellm.chat_command import chat_loop

    def broken(**_kw: Any) -> Any:
        raise ConnectionError("endpoint down")

    lines = iter(["hello"])

    def read(_p: str) -> str:
        try:
            return next(lines)
        except StopIteration:
            raise EOFError from None

    out = io.StringIO()
    assert chat_loop(fs, manifest, "openai/x", read_line=read, out=out, completion=broken) == 0
    assert "(model call failed: ConnectionError: endpoint down)" in out.getvalue()


def test_chat_model_resolution(monkeypatch):
    from memfs_litellm import chat_command, local_model

    model, kw = chat_command.resolve_model("ollama_chat/qwen3:14b", None, None)
    assert (model, kw) == ("ollama_chat/qwen3:14b", {})
    model, kw = chat_command.resolve_model("openai/local", None, None)
    assert kw["api_base"] == "http://127.0.0.1:8765/v1"
    monkeypatch.setattr(local_model, "endpoint_responds", lambda base, timeout=2.0: False)
    monkeypatch.delenv("MEMFS_MODEL", raising=False)
    with pytest.raises(ValueError, match="No model: pass --model"):
        chat_command.resolve_model(None, None, None)
    monkeypatch.setenv("MEMFS_MODEL", "anthropic/claude-x")
    assert chat_command.resolve_model(None, "http://h/v1", "k") == (
        "anthropic/claude-x",
        {"api_base": "http://h/v1", "api_key": "k"},
    )
    monkeypatch.setattr(local_model, "endpoint_responds", lambda base, timeout=2.0: True)
    assert chat_command.resolve_model(None, None, None)[0] == "openai/local"


def test_chat_and_model_commands_are_registered():
    from memfs.cli import build_parser

    parser = build_parser()
    args = parser.parse_args(["chat", "/tmp/ws", "--model", "openai/x", "--tools", "platform"])
    assert (args.workspace, args.model, args.tools) == ("/tmp/ws", "openai/x", "platform")
    assert parser.parse_args(["model", "status"]).model_command == "status"


# -- write-time levers in the loop --------------------------------------------------------------


def test_loop_guard_answers_an_identical_call_without_running_it(fs):
    write = call("write_file", {"path": "memory/user-role.md", "content": NEW_MEMORY})
    model = ScriptedModel([write], [write], [write], "Saved.")
    result = run_turn(
        model="openai/scripted",
        fs=fs,
        manifest=AgentManifest(),
        user_message=USER,
        completion=model,
    )
    first, second, third = result.tool_calls
    assert first.executed and not first.repeated and first.result.startswith("Created")
    for again in (second, third):
        assert again.repeated and not again.executed
        assert again.result.startswith(
            "This exact call already ran in this turn and returned: Created memory/user-role.md"
        )
        assert again.result.endswith("It was not run again. Do the next step or answer the user.")
    off = ScriptedModel([write], [write], "Saved.")
    fs.rm_file("memory/user-role.md")
    result = run_turn(
        model="openai/scripted",
        fs=fs,
        manifest=AgentManifest(read_before_write=False),
        user_message=USER,
        completion=off,
        loop_guard=False,
    )
    assert [c.result.split(" ")[0] for c in result.tool_calls] == ["Created", "Overwrote"]


def test_loop_guard_lets_a_refused_write_run_again_after_a_read_and_a_read_after_a_write(fs):
    over = call("write_file", {"path": "memory/yield-source.md", "content": NEW_MEMORY})
    read = call("read_file", {"path": "memory/yield-source.md"})
    model = ScriptedModel([over], [read], [over], [read], "Done.")
    result = run_turn(
        model="openai/scripted",
        fs=fs,
        manifest=AgentManifest(),
        user_message=USER,
        completion=model,
        max_steps=5,
    )
    refused, first_read, retried, second_read = result.tool_calls
    assert refused.result.startswith("Error: memory/yield-source.md already exists")
    assert retried.executed and retried.result.startswith("Overwrote memory/yield-source.md")
    assert second_read.executed and "process engineer" in second_read.result
    assert first_read.executed and "daily_yield" in first_read.result


def test_the_index_shown_in_the_context_block_may_be_overwritten_in_the_turn(fs):
    index = INDEX + "- [Role](memory/user-role.md) — process engineer\n"
    model = ScriptedModel([call("write_file", {"path": "MEMORY.md", "content": index})], "Done.")
    result = run_turn(
        model="openai/scripted",
        fs=fs,
        manifest=AgentManifest(),
        user_message=USER,
        completion=model,
    )
    assert result.tool_calls[0].result.startswith("Overwrote MEMORY.md")
    assert fs.raw.cat_file("MEMORY.md").decode() == index


def test_full_after_tools_puts_the_memory_section_after_the_tool_list(fs):
    def system(variant: str) -> str:
        model = ScriptedModel("ok")
        run_turn(
            model="openai/scripted",
            fs=fs,
            manifest=AgentManifest(),
            user_message=USER,
            prompt_variant=variant,  # type: ignore[arg-type]
            completion=model,
        )
        return model.requests[0]["messages"][0]["content"]

    full, last = system("full"), system("full-after-tools")
    tools = format_tools_for_prompt(tool_schemas("platform"))
    assert full.index("# Memory") < full.index(tools)
    assert last.index(tools) < last.index("# Memory")
    parts = [sorted(p.strip() for p in s.split("\n\n")) for s in (full, last)]
    assert parts[0] == parts[1]  # the same parts, in a new order


def test_a_block_larger_than_the_window_is_said_before_the_request(fs, manifest, caplog):
    """Memory is never cut: the turn still sends the whole block, and says it cannot fit."""
    fs.pipe_file("MEMORY.md", ("- [x](memory/x.md) — " + "yield notes " * 400 + "\n").encode())
    model = ScriptedModel("ok")
    with caplog.at_level("WARNING", logger="memfs_litellm.runner"):
        result = run(model, fs, manifest, context_window=512)
    assert "more than the model's whole window of 512" in result.window_warning
    assert result.window_warning in caplog.text
    assert "yield notes " * 400 in str(model.requests[0]["messages"])  # sent whole
    small = run(ScriptedModel("ok"), fs, manifest, context_window=1_000_000)
    assert small.window_warning == ""
