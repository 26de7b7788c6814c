"""Write-through of offloaded CPU blocks to local NVMe."""

from __future__ import annotations

import os
import struct

import torch


def spill_header(layer_count: int, block_ids: list[int]) -> bytes:
    return struct.pack(f"<II{len(block_ids)}I", layer_count, len(block_ids), *block_ids)


def write_blocks(
    path: str,
    cpu_layers: list[torch.Tensor],
    cpu_block_ids: list[int],
    header: bytes,
    done_event: torch.cuda.Event,
) -> str:
    done_event.synchronize()
    tmp = path + ".tmp"
    with open(tmp, "wb") as fh:
        fh.write(header)
        for layer in cpu_layers:
            for block_id in cpu_block_ids:
                fh.write(layer[block_id].numpy().tobytes())
    os.replace(tmp, path)
    return path
