# SPDX-License-Identifier: Apache-2.0
import hashlib
import struct
from collections.abc import Sequence
from dataclasses import dataclass, field

from .constants import ROOT_HASH_SEED

BlockHash = bytes
ROOT_HASH: BlockHash = hashlib.sha256(ROOT_HASH_SEED).digest()


def hash_block_tokens(parent: BlockHash, token_ids: Sequence[int]) -> BlockHash:
    h = hashlib.sha256(parent)
    h.update(struct.pack(f"<{len(token_ids)}q", *token_ids))
    return h.digest()


def prefix_block_hashes(token_ids: Sequence[int], block_size: int) -> list[BlockHash]:
    hashes: list[BlockHash] = []
    parent = ROOT_HASH
    for start in range(0, len(token_ids) - block_size + 1, block_size):
        parent = hash_block_tokens(parent, token_ids[start:start + block_size])
        hashes.append(parent)
    return hashes


@dataclass
class TransferSpec:
    src_block_ids: list[int]
    dst_block_ids: list[int]


@dataclass
class OffloadConnectorMetadata:
    reqs_to_load: dict[str, TransferSpec] = field(default_factory=dict)
    reqs_to_store: dict[str, TransferSpec] = field(default_factory=dict)
