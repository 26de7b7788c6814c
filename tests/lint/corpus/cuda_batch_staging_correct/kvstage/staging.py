# SPDX-License-Identifier: Apache-2.0
# Standard
from dataclasses import dataclass
from typing import Dict, List
import ctypes
import logging
import threading

# Third Party
from cuda.bindings import driver

# First Party
from kvstage.batch_copy import copy_blocks_from_host, copy_blocks_to_host
from kvstage.constants import LOAD_SRC_ACCESS_ORDER, STAGING_ALIGNMENT, STORE_SRC_ACCESS_ORDER
from kvstage.cuda_utils import check, create_event, create_stream, make_memcpy_attrs

logger = logging.getLogger(__name__)

_DEVICE = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
_HOST = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST


@dataclass
class StagedEntry:
    host_ptr: int
    block_bytes: int
    num_blocks: int
    event: driver.CUevent

    @property
    def nbytes(self) -> int:
        return self.block_bytes * self.num_blocks

    def host_ptrs(self) -> List[int]:
        return [self.host_ptr + i * self.block_bytes for i in range(self.num_blocks)]


class PinnedStagingBackend:
    def __init__(self, device_id: int, capacity_bytes: int):
        self.device_id = device_id
        self._stream = create_stream()
        self._ready = create_event()
        self._loaded = create_event()
        self._store_attrs = [make_memcpy_attrs(STORE_SRC_ACCESS_ORDER, _DEVICE, _HOST, device_id)]
        self._load_attrs = [make_memcpy_attrs(LOAD_SRC_ACCESS_ORDER, _HOST, _DEVICE, device_id)]
        self._arena = int(check(driver.cuMemHostAlloc(capacity_bytes, 0)))
        self._capacity = capacity_bytes
        self._offset = 0
        self._entries: Dict[str, StagedEntry] = {}
        self._lock = threading.Lock()

    def _alloc(self, nbytes: int) -> int:
        with self._lock:
            start = -(-self._offset // STAGING_ALIGNMENT) * STAGING_ALIGNMENT
            if start + nbytes > self._capacity:
                raise MemoryError(f"staging arena full ({self._capacity} bytes)")
            self._offset = start + nbytes
        return self._arena + start

    def contains(self, key: str) -> bool:
        return key in self._entries

    def store(self, key: str, block_ptrs: List[int], block_bytes: int, compute_stream: driver.CUstream) -> None:
        entry = StagedEntry(self._alloc(len(block_ptrs) * block_bytes), block_bytes, len(block_ptrs), create_event())
        check(driver.cuEventRecord(self._ready, compute_stream))
        check(driver.cuStreamWaitEvent(self._stream, self._ready, 0))
        sizes = [block_bytes] * entry.num_blocks
        copy_blocks_to_host(entry.host_ptrs(), block_ptrs, sizes, self._store_attrs, self._stream)
        check(driver.cuEventRecord(entry.event, self._stream))
        self._entries[key] = entry

    def load(self, key: str, block_ptrs: List[int], compute_stream: driver.CUstream) -> None:
        entry = self._entries[key]
        if len(block_ptrs) != entry.num_blocks:
            raise ValueError(f"{key}: expected {entry.num_blocks} blocks, got {len(block_ptrs)}")
        check(driver.cuEventSynchronize(entry.event))
        check(driver.cuEventRecord(self._ready, compute_stream))
        check(driver.cuStreamWaitEvent(self._stream, self._ready, 0))
        sizes = [entry.block_bytes] * entry.num_blocks
        copy_blocks_from_host(block_ptrs, entry.host_ptrs(), sizes, self._load_attrs, self._stream)
        check(driver.cuEventRecord(self._loaded, self._stream))
        check(driver.cuStreamWaitEvent(compute_stream, self._loaded, 0))

    def read_bytes(self, key: str) -> bytes:
        entry = self._entries[key]
        check(driver.cuEventSynchronize(entry.event))
        return ctypes.string_at(entry.host_ptr, entry.nbytes)

    def close(self) -> None:
        check(driver.cuStreamSynchronize(self._stream))
        check(driver.cuMemFreeHost(self._arena))
        logger.info("released %d staged entries", len(self._entries))
        self._entries.clear()
