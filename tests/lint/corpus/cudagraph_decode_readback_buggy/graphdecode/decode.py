from __future__ import annotations

from typing import List, Sequence

from .runner import GraphDecodeRunner


def generate(
    runner: GraphDecodeRunner,
    last_ids: Sequence[int],
    positions: Sequence[int],
    max_new_tokens: int,
) -> List[List[int]]:
    eos = runner.cfg.eos_token_id
    ids, pos = list(last_ids), list(positions)
    outputs: List[List[int]] = [[] for _ in ids]
    live = [True] * len(ids)
    for _ in range(max_new_tokens):
        next_ids = runner.step(ids, pos).result()
        for i, tok in enumerate(next_ids):
            if live[i]:
                outputs[i].append(tok)
                live[i] = tok != eos
        if not any(live):
            break
        ids = next_ids
        pos = [p + 1 for p in pos]
    return outputs
