"""A deterministic memory store shaped like a real one measured during design.

``generate_workspace(fs)`` writes 261 memory files and an index whose figures
land on that snapshot: sizes min 975 B / median 3,258 B / max 33,159 B; types project 207,
feedback 45, reference 7, user 1; 46 files without a description; an index of 106 lines and
~17.6k characters with 98 hot lines, 8 packed lines folding the cold memories, and 70 orphans
(files the index does not link); no broken links. Text mixes Traditional Chinese and English,
as the real store does. ``n_files`` scales every count by the same proportions.

Where the files go follows ``fs.layout``: the platform's ``memory/*.md`` and a root
``MEMORY.md`` linking ``memory/x.md``, or Claude Code's index beside the files linking ``x.md``.

Everything comes from ``random.Random(seed)`` and the filesystem's clock, so the same
arguments give the same bytes. Files are written through the :class:`~memfs.MemFS` passed in;
each carries ``metadata.recorded`` already, so the filesystem's date stamp changes nothing.
"""

from __future__ import annotations

import datetime as dt
import math
import random
import re
from statistics import NormalDist

from pydantic import BaseModel, Field

from memfs.filesystem import MemFS
from memfs.layout import INDEX_NAME

# The measured snapshot (2026-07-26, second measurement), the shape every scale keeps.
SEED_FILES = 261
SEED_SIZE_MIN, SEED_SIZE_MEDIAN, SEED_SIZE_MAX = 975, 3258, 33159
SEED_TYPES = {"project": 207, "feedback": 45, "reference": 7, "user": 1}
SEED_NO_DESCRIPTION = 46
SEED_HOT = 98
SEED_COLD = 93  # 98 + 93 = 191 linked, 261 - 191 = 70 orphans
SEED_PACKED_LINES = 8
SEED_INDEX_CHARS = 17652
SEED_INDEX_BYTES = 22365  # UTF-8: about 2,400 of the characters are CJK (3 bytes each)
SEED_COLD_COST = 49  # characters per folded memory
SEED_DESCRIPTION_CHARS = 109  # average description length
INDEX_ZH = 0.3  # Chinese share of index sentences, so bytes/characters match the snapshot's
MAX_AGE_DAYS = 75  # about two months of heavy use, plus a little

_ZH = [
    "良率資料以 MES 的 daily_yield 表為準",
    "週報會四捨五入到小數一位，會扭曲 SPC",
    "使用者是製程工程師，不需要解釋 Cpk",
    "三號線的量測站每週一早上校正",
    "報表的日期一律寫成絕對日期",
    "索引只放指標，絕不放記憶內容",
    "欄位是狀態，要 backfill，會靜默錯",
    "索引是衍生 metadata，不存在只會慢",
    "冷掉的記憶可以折進打包行",
    "這個 item 的資料來源是品保系統",
    "異常批次要先查機台保養紀錄",
    "客戶要求每月初交付趨勢圖",
    "不要把憑證或 API key 寫進記憶",
    "工作流只讀記憶，不寫記憶",
    "使用者偏好先給結論再給細節",
    "測試環境的資料庫每晚重建",
    "規格變更要同步更新儀表板",
    "上游系統的欄位名稱在七月改過",
    "這份清單由製造部維護",
    "遇到缺值時先回報，不要自己補",
    "模型在小窗口下會被靜默截斷",
    "記憶是背景資料，不是使用者指令",
    "打包行讓冷記憶的成本降到三分之一",
    "孤兒檔案寫進去了卻永遠不會進 context",
]
_EN = [
    "the weekly QA report is not the source of truth",
    "query daily_yield for any yield figure",
    "the reducer drops tool outputs before the middle of the chat",
    "prefer absolute dates; memories are read months later",
    "the dashboard lives under the plant A folder",
    "ticket OPS-4312 tracks the calibration drift",
    "keep the index hook shorter than the description",
    "the user confirmed this approach twice",
    "num_ctx must be sent or the prompt is cut at 4096 tokens",
    "snapshot figures are magnitudes, not constants",
    "run the export before the nightly rebuild",
    "the staging bucket is read-only for workflows",
    "write the fact, then add one line to MEMORY.md",
    "link related memories with wikilinks",
    "the vendor changed the CSV header in July",
    "do not re-derive the index from frontmatter",
]
_WORDS = [
    "yield", "spc", "line3", "cpk", "index", "column", "report", "mes", "qa", "owner",
    "dashboard", "calib", "drift", "export", "schema", "vendor", "csv", "alert", "shift",
    "budget", "window", "prompt", "tool", "chart", "batch", "audit", "plant", "sensor",
]  # fmt: skip
_LABELS = ["冷記憶", "歸檔", "舊專案", "已結案", "參考", "SPC 舊事", "供應商", "工具鏈"]


class GeneratedWorkspace(BaseModel):
    """What was written, and the figures ``memfs stats`` should find on it."""

    n_files: int
    seed: int
    today: dt.date
    memory_paths: list[str]
    index_path: str = INDEX_NAME
    hot_paths: list[str]
    cold_paths: list[str]
    orphan_paths: list[str]
    packed_lines: int
    index_lines: int
    index_chars: int
    types: dict[str, int]
    untyped: int
    without_description: int
    sizes: list[int] = Field(description="bytes of each memory file, in memory_paths order")


def _scaled(seed_count: int, n: int) -> int:
    return round(seed_count * n / SEED_FILES)


def _type_counts(n: int) -> dict[str, int]:
    """Types as measured; the counts sum to 260 of 261, so the rest carry no type at all."""
    counts = {t: _scaled(c, n) for t, c in SEED_TYPES.items()}
    if n >= len(SEED_TYPES):  # every type appears once the store can hold them all
        for t in ("user", "reference", "feedback"):
            if counts[t] == 0:
                counts[t] = 1
                counts["project"] -= 1
    counts["project"] -= max(0, sum(counts.values()) - n)
    return counts


def _sizes(n: int, rng: random.Random) -> list[int]:
    """Split log-normal quantiles: the measured min, median and max at n=261, the same spread
    at any n."""
    z_edge = NormalDist().inv_cdf(1 - 0.5 / SEED_FILES)
    lo = math.log(SEED_SIZE_MEDIAN / SEED_SIZE_MIN) / z_edge
    hi = math.log(SEED_SIZE_MAX / SEED_SIZE_MEDIAN) / z_edge
    out = []
    for i in range(n):
        z = NormalDist().inv_cdf((i + 0.5) / n)
        out.append(round(SEED_SIZE_MEDIAN * math.exp(z * (hi if z > 0 else lo))))
    rng.shuffle(out)
    return out


def _sentence(rng: random.Random, zh: float = 0.6) -> str:
    if rng.random() < zh:
        return rng.choice(_ZH) + "。"
    s = rng.choice(_EN)
    return s[0].upper() + s[1:] + "."


def _cut(text: str, chars: int) -> str:
    """At most ``chars`` characters of ``text``, not ending inside an English word."""
    if len(text) <= chars:
        return text
    cut = text[:chars]
    if text[chars].isascii() and text[chars].isalnum() and cut[-1].isascii():
        space = cut.rfind(" ")
        if space > chars // 2:
            cut = cut[:space]
    return cut.rstrip(" ,;:，")


def _text_of_length(rng: random.Random, chars: int, zh: float = 0.6) -> str:
    """Mixed text of at most ``chars`` characters (no newline); ``zh`` is the Chinese share."""
    parts: list[str] = []
    total = 0
    while total <= chars:
        s = _sentence(rng, zh)
        parts.append(s)
        total += len(s) + 1
    return _cut(" ".join(parts), chars)


def _title(rng: random.Random, chars: int, zh: float) -> str:
    """A short title: the first clause of a sentence, at most ``chars`` characters."""
    clause = re.split(r"[，,;；。]|\. ", _sentence(rng, zh).rstrip("。."))[0]
    return _cut(clause, chars)


def _names(n: int, rng: random.Random) -> list[str]:
    names: list[str] = []
    seen: set[str] = set()
    while len(names) < n:
        words = rng.sample(_WORDS, rng.choice((2, 2, 3)))
        roll = rng.random()
        if roll < 0.68:
            name = "-".join(words)
        elif roll < 0.97:
            name = "_".join(words)
        else:
            name = words[0].capitalize() + "".join(w.capitalize() for w in words[1:])
        if name in seen:
            name = f"{name}-{len(names)}" if "_" not in name else f"{name}_{len(names)}"
        seen.add(name)
        names.append(name)
    return names


def _yaml_str(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _memory_file(
    rng: random.Random,
    *,
    name: str,
    mtype: str | None,
    description: str | None,
    recorded: dt.date,
    size: int,
    all_names: list[str],
) -> bytes:
    head = ["---", f"name: {name}"]
    if description is not None:
        head.append(f"description: {_yaml_str(description)}")
    older = rng.random() < 0.05
    if mtype is None:
        head += ["metadata:", f"  recorded: {recorded.isoformat()}"]
    elif older:
        head += [f"type: {mtype}", "metadata:", f"  recorded: {recorded.isoformat()}"]
    else:
        head += ["metadata:", f"  type: {mtype}", f"  recorded: {recorded.isoformat()}"]
    if rng.random() < 0.3:
        head.append(f"node_type: {rng.choice(['memory', 'note', 'fact'])}")
    if rng.random() < 0.4:
        head.append(f"originSessionId: {rng.getrandbits(128):032x}")
    head.append("---")
    text = "\n".join(head) + "\n" + _sentence(rng) + "\n"
    extras: list[str] = []
    if mtype in ("feedback", "project"):
        extras.append("**Why:** " + _sentence(rng))
        extras.append("**How to apply:** " + _sentence(rng))
    links = [f"[[{rng.choice(all_names)}]]" for _ in range(rng.choice((0, 1, 1, 2)))]
    if rng.random() < 0.15:
        links.append(f"[[{rng.choice(_WORDS)}-{rng.choice(_WORDS)}-todo]]")  # worth writing
    if links:
        extras.append("Related: " + " ".join(links))
    while True:
        nxt = extras.pop(0) if extras else _sentence(rng) + " " + _sentence(rng)
        if len(text.encode("utf-8")) + len(nxt.encode("utf-8")) + 2 > size:
            break
        text += "\n" + nxt + "\n"
    # Exact size: pad the last paragraph with ASCII prose (one byte a character).
    missing = size - len(text.encode("utf-8"))
    if missing > 0:
        text = text[:-1] + (" " + _ascii_filler(rng, missing))[:missing] + "\n"
    return text.encode("utf-8")


def _ascii_filler(rng: random.Random, n: int) -> str:
    out = ""
    while len(out) < n:
        s = rng.choice(_EN)
        out += s[0].upper() + s[1:] + ". "
    return out


def generate_workspace(fs: MemFS, n_files: int = SEED_FILES, seed: int = 0) -> GeneratedWorkspace:
    """Write ``n_files`` memories shaped like the measured store, and their index, into ``fs``."""
    if n_files < 1:
        raise ValueError(
            f"n_files must be at least 1, got {n_files}; 261 is the size of the measured store."
        )
    rng = random.Random(seed)
    today = fs.today()
    names = _names(n_files, rng)
    layout = fs.layout
    paths = [layout.memory_path(n) for n in names]
    types_count = _type_counts(n_files)
    types: list[str | None] = [t for t, c in types_count.items() for _ in range(c)]
    types += [None] * (n_files - len(types))
    rng.shuffle(types)
    sizes = _sizes(n_files, rng)
    no_desc = set(rng.sample(range(n_files), min(n_files, _scaled(SEED_NO_DESCRIPTION, n_files))))

    for i, (name, path) in enumerate(zip(names, paths, strict=True)):
        desc_len = max(20, round(rng.gauss(SEED_DESCRIPTION_CHARS - 5, 24)))
        description = None if i in no_desc else _text_of_length(rng, desc_len)
        recorded = today - dt.timedelta(days=rng.randint(0, MAX_AGE_DAYS))
        data = _memory_file(
            rng,
            name=name,
            mtype=types[i],
            description=description,
            recorded=recorded,
            size=sizes[i],
            all_names=names,
        )
        fs.migrating().pipe_file(path, data)  # a store with a past: its dates are kept

    # The index: hot lines, then packed lines folding the cold memories; the rest are orphans.
    order = list(range(n_files))
    rng.shuffle(order)
    n_hot = min(n_files, max(1, _scaled(SEED_HOT, n_files)))
    n_cold = min(n_files - n_hot, _scaled(SEED_COLD, n_files))
    n_cold = n_cold if n_cold >= 2 else 0  # folding needs at least two memories
    hot, cold = order[:n_hot], order[n_hot : n_hot + n_cold]
    orphans = order[n_hot + n_cold :]
    n_packed = min(n_cold, max(1 if n_cold >= 2 else 0, _scaled(SEED_PACKED_LINES, n_files)))

    packed: list[str] = []
    if n_packed:
        groups = [cold[g::n_packed] for g in range(n_packed)]
        for g, members in enumerate(groups):
            links = []
            for m in members:
                link_path = layout.link_for(paths[m])
                title_len = max(2, SEED_COLD_COST - 4 - len(link_path) + rng.randint(-4, 4))
                title = _text_of_length(rng, title_len, INDEX_ZH).rstrip("。. ")
                links.append(f"[{title}]({link_path})")
            label = _LABELS[g % len(_LABELS)]
            sep = rng.choice(["、", " · ", "，"])
            packed.append(f"- {label}：" + sep.join(links))
    # Hot lines share what is left of the measured index size (17,652 characters).
    target_chars = _scaled(SEED_INDEX_CHARS, n_files)
    packed_chars = sum(len(p) + 1 for p in packed)
    hot_avg = max(40, (target_chars - packed_chars) / max(1, n_hot) - 1)
    hot_lines: list[str] = []
    carry = 0  # characters earlier lines fell short of their target (cuts land on word ends)
    for k, m in enumerate(hot):
        title = _title(rng, rng.randint(8, 24), INDEX_ZH)
        head = f"- [{title}]({layout.link_for(paths[m])}) — "
        want = round(hot_avg) + (18 if k % 2 else -18) + carry
        line = head + _text_of_length(rng, max(10, want - len(head)), INDEX_ZH)
        carry = want - len(line)
        hot_lines.append(line)
    # Land on the target exactly: the last line absorbs what is left.
    index_text = "\n".join(hot_lines + packed) + "\n"
    diff = target_chars - len(index_text)
    if hot_lines and diff > 0:
        hot_lines[-1] += (" " + _ascii_filler(rng, diff))[:diff]
    elif hot_lines and diff < 0:
        hot_lines[-1] = hot_lines[-1][: max(len(hot_lines[-1]) + diff, 10)]
    index_text = "\n".join(hot_lines + packed) + "\n"
    fs.pipe_file(layout.index_path, index_text.encode("utf-8"))

    return GeneratedWorkspace(
        n_files=n_files,
        seed=seed,
        today=today,
        memory_paths=paths,
        index_path=layout.index_path,
        hot_paths=[paths[i] for i in hot],
        cold_paths=[paths[i] for i in cold],
        orphan_paths=[paths[i] for i in orphans],
        packed_lines=len(packed),
        index_lines=len(hot_lines) + len(packed),
        index_chars=len(index_text),
        types=types_count,
        untyped=n_files - sum(types_count.values()),
        without_description=len(no_desc),
        sizes=sizes,
    )
