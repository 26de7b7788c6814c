# SPDX-License-Identifier: Apache-2.0
# Standard
from dataclasses import dataclass
from typing import Dict, Iterator, Tuple
import hashlib
import logging

# Third Party
import torch

logger = logging.getLogger("lmc_store")

_STORE_STREAMS: Dict[int, torch.cuda.Stream] = {}


@dataclass(frozen=True)
class CacheEngineKey:
    model_name: str
    worker_id: int
    chunk_hash: str

    def to_string(self) -> str:
        return f"{self.model_name}@{self.worker_id}@{self.chunk_hash}"


def iter_chunks(
    tokens: torch.Tensor, chunk_size: int, save_unfull_chunk: bool
) -> Iterator[Tuple[int, int, str]]:
    token_list = tokens.tolist()
    prefix = hashlib.sha256()
    for start in range(0, len(token_list), chunk_size):
        end = min(start + chunk_size, len(token_list))
        if end - start < chunk_size and not save_unfull_chunk:
            return
        prefix.update(repr(token_list[start:end]).encode())
        yield start, end, prefix.hexdigest()


def get_store_stream(device: torch.device) -> torch.cuda.Stream:
    index = device.index if device.index is not None else torch.cuda.current_device()
    stream = _STORE_STREAMS.get(index)
    if stream is None:
        stream = torch.cuda.Stream(device=index)
        _STORE_STREAMS[index] = stream
        logger.info("Created KV store stream on cuda:%d", index)
    return stream
