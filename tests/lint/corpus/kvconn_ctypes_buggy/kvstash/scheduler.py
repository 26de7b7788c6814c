# SPDX-License-Identifier: Apache-2.0
import hashlib
from dataclasses import dataclass, field

from .backend import FileStash
from .constants import HASH_DIGEST_SIZE


def chain_hashes(token_ids: list[int], block_size: int, pad_tail: bool) -> list[bytes]:
    out: list[bytes] = []
    parent = b""
    for start in range(0, len(token_ids), block_size):
        chunk = token_ids[start:start + block_size]
        if len(chunk) < block_size and not pad_tail:
            break
        h = hashlib.blake2b(parent, digest_size=HASH_DIGEST_SIZE)
        h.update(repr(tuple(chunk)).encode())
        parent = h.digest()
        out.append(parent)
    return out


@dataclass
class BlockTransfer:
    req_id: str
    block_ids: list[int]
    hashes: list[bytes]
    is_tail: bool = False


@dataclass
class StashMetadata:
    saves: list[BlockTransfer] = field(default_factory=list)
    loads: list[BlockTransfer] = field(default_factory=list)


class StashScheduler:
    def __init__(self, stash: FileStash, block_size: int, probe_layer: str) -> None:
        self.stash = stash
        self.block_size = block_size
        self.probe_layer = probe_layer
        self._meta = StashMetadata()

    def get_num_new_matched_tokens(self, token_ids: list[int], num_computed: int) -> int:
        hashes = chain_hashes(token_ids, self.block_size, pad_tail=False)
        hit = num_computed // self.block_size
        while hit < len(hashes) and self.stash.contains(self.probe_layer, hashes[hit]):
            hit += 1
        return max(0, hit * self.block_size - num_computed)

    def add_load(self, req_id: str, token_ids: list[int], block_ids: list[int],
                 first: int, count: int) -> None:
        hashes = chain_hashes(token_ids, self.block_size, pad_tail=False)
        self._meta.loads.append(BlockTransfer(
            req_id, block_ids[first:first + count], hashes[first:first + count]))

    def add_save(self, req_id: str, token_ids: list[int], block_ids: list[int],
                 first: int, finished: bool) -> None:
        hashes = chain_hashes(token_ids, self.block_size, pad_tail=finished)
        if first < len(hashes):
            self._meta.saves.append(BlockTransfer(
                req_id, block_ids[first:len(hashes)], hashes[first:], is_tail=finished))

    def build_connector_meta(self) -> StashMetadata:
        meta, self._meta = self._meta, StashMetadata()
        return meta
