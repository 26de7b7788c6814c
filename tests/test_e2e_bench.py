"""The end-to-end benchmark's own logic (no engine): the workload and the answer comparison."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "e2e" / "run_e2e.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("run_e2e", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["run_e2e"] = module  # dataclasses resolve their module by name
    spec.loader.exec_module(module)
    return module


run_e2e = _load()


def test_repeats_keep_the_prefix_and_replace_the_tail() -> None:
    workload = run_e2e.Workload()
    rounds = workload.rounds()
    assert [name for name, _ in rounds] == [
        "set0",
        "set1",
        "set2",
        "set0-repeat",
        "set1-repeat",
        "set2-repeat",
        "set3",
        "set4",
        "set5",
        "set0-repeat-again",
        "set1-repeat-again",
        "set2-repeat-again",
    ]
    assert [p for _, p in rounds[9:]] == [p for _, p in rounds[3:6]]  # asked again unchanged
    assert rounds[:6] == run_e2e.Workload(evict_sets=0).rounds()[:6]  # earlier calls' rounds kept
    for index in range(workload.sets):
        first, repeat = rounds[index][1], rounds[workload.sets + index][1]
        assert len(first) == len(repeat) == workload.prompts
        for prompt, again in zip(first, repeat, strict=True):
            assert len(prompt) == len(again) == workload.prompt_len
            assert again[: workload.prefix_len] == prompt[: workload.prefix_len]
            assert again[workload.prefix_len :] != prompt[workload.prefix_len :]
            assert all(3 <= token < workload.vocab for token in again)
    assert rounds == run_e2e.Workload().rounds()  # the same seed gives the same prompts


def test_answers_match_counts_restored_requests_apart() -> None:
    def run(*answers: list[int]) -> dict[str, object]:
        return {
            "rounds": [
                {"name": "set0", "answers": [answers[0]]},
                {"name": "set0-repeat", "answers": [answers[1]]},
                {"name": "set0-repeat-again", "answers": [answers[2]]},
            ]
        }

    match = run_e2e.answers_match(run([1, 2], [3, 4], [5]), run([1, 2], [3, 5], [5]))
    assert match == {"restored_requests": 2, "restored_equal": 1, "requests": 3, "equal": 2}


def test_percentile_picks_the_nearest_rank() -> None:
    values = [float(v) for v in range(1, 11)]
    assert run_e2e.percentile(values, 0.9) == 9.0
    assert run_e2e.percentile(values, 0.0) == 1.0
