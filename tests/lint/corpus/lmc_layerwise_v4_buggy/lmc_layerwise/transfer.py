# SPDX-License-Identifier: Apache-2.0
# Standard
from typing import List, Sequence, Tuple

# Third Party
import torch

# First Party
from lmc_layerwise.memory import MemoryObj

Span = Tuple[int, int]


def stage_layer(
    staging: torch.Tensor,
    kv_layer: torch.Tensor,
    token_spans: Sequence[Span],
) -> List[Span]:
    """Pack the token spans of one layer contiguously into ``staging``.

    Returns the spans inside the staging buffer.
    """
    buf_spans: List[Span] = []
    offset = 0
    for start, end in token_spans:
        n = end - start
        staging[:, offset : offset + n].copy_(kv_layer[:, start:end])
        buf_spans.append((offset, offset + n))
        offset += n
    return buf_spans


def copy_spans_to_host(
    memory_objs: Sequence[MemoryObj],
    src: torch.Tensor,
    spans: Sequence[Span],
) -> None:
    for mem_obj, (start, end) in zip(memory_objs, spans, strict=True):
        assert mem_obj.tensor.is_pinned()
        # expect: KVG001
        mem_obj.tensor.copy_(src[:, start:end], non_blocking=True)
