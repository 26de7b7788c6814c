"""Moves fixed-size KV blocks between a device pool and a pinned host pool
with the CUDA driver API."""
import logging
from typing import Any, Dict, List, Sequence

from cuda.bindings import driver as cu

from .config import load_config

logger = logging.getLogger(__name__)


class DriverError(RuntimeError):
    pass


def _ck(ret):
    """Unwrap a cuda-python driver return: raise on error, return the value(s)."""
    if isinstance(ret, tuple):
        err, vals = ret[0], ret[1:]
    else:
        err, vals = ret, ()
    if err != cu.CUresult.CUDA_SUCCESS:
        _, name = cu.cuGetErrorName(err)
        raise DriverError(name.decode() if name else str(err))
    if not vals:
        return None
    return vals[0] if len(vals) == 1 else vals


class BlockMover:
    """compute_stream is the CUstream the model's kernels run on; the mover
    issues its copies on a stream of its own."""

    def __init__(self, compute_stream: cu.CUstream, cfg: Dict[str, Any]) -> None:
        self._compute = compute_stream
        self._block_bytes = int(cfg["block_bytes"])
        self._batch_threshold = int(cfg["batch_threshold"])
        self._copy = _ck(cu.cuStreamCreate(cu.CUstream_flags.CU_STREAM_NON_BLOCKING))
        flags = cu.CUevent_flags.CU_EVENT_DISABLE_TIMING
        self._ready = _ck(cu.cuEventCreate(flags))
        self._done = _ck(cu.cuEventCreate(flags))
        self._dev_base = _ck(cu.cuMemAlloc(cfg["num_device_blocks"] * self._block_bytes))
        self._host_base = _ck(cu.cuMemAllocHost(cfg["num_host_blocks"] * self._block_bytes))
        self._store_attrs = self._make_attrs(cfg["store_src_access_order"])
        self._load_attrs = self._make_attrs(cfg["load_src_access_order"])
        logger.info("block mover: %d B blocks", self._block_bytes)

    @classmethod
    def create(cls, compute_stream: cu.CUstream, **overrides: Any) -> "BlockMover":
        return cls(compute_stream, load_config(overrides))

    @staticmethod
    def _make_attrs(order) -> cu.CUmemcpyAttributes:
        attrs = cu.CUmemcpyAttributes()
        attrs.srcAccessOrder = order
        attrs.flags = cu.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
        return attrs

    def _dev(self, idx: int) -> int:
        return int(self._dev_base) + idx * self._block_bytes

    def _host(self, idx: int) -> int:
        return int(self._host_base) + idx * self._block_bytes

    def _batch(self, dsts: List[int], srcs: List[int], attrs: cu.CUmemcpyAttributes) -> None:
        n = len(dsts)
        # expect: KVG004, KVG002
        _ck(cu.cuMemcpyBatchAsync(dsts, srcs, [self._block_bytes] * n, n,
                                  [attrs], [0], 1, self._copy))

    def store(self, dev_ids: Sequence[int], host_ids: Sequence[int]) -> None:
        """Device blocks -> host blocks, behind the compute stream's work so far."""
        _ck(cu.cuEventRecord(self._ready, self._compute))
        _ck(cu.cuStreamWaitEvent(self._copy, self._ready, 0))
        if len(dev_ids) < self._batch_threshold:
            for d, h in zip(dev_ids, host_ids):
                _ck(cu.cuMemcpyDtoHAsync(self._host(h), self._dev(d), self._block_bytes, self._copy))
        else:
            self._batch([self._host(h) for h in host_ids],
                        [self._dev(d) for d in dev_ids], self._store_attrs)
        _ck(cu.cuEventRecord(self._done, self._copy))

    def load(self, host_ids: Sequence[int], dev_ids: Sequence[int]) -> None:
        """Host blocks -> device blocks; the compute stream waits for them."""
        if len(dev_ids) < self._batch_threshold:
            for h, d in zip(host_ids, dev_ids):
                # expect: KVG004
                _ck(cu.cuMemcpyHtoDAsync(self._dev(d), self._host(h), self._block_bytes, self._copy))
        else:
            self._batch([self._dev(d) for d in dev_ids],
                        [self._host(h) for h in host_ids], self._load_attrs)
        _ck(cu.cuEventRecord(self._done, self._copy))
        _ck(cu.cuStreamWaitEvent(self._compute, self._done, 0))

    def wait_stores(self) -> None:
        _ck(cu.cuEventSynchronize(self._done))

    def close(self) -> None:
        _ck(cu.cuStreamSynchronize(self._copy))
        _ck(cu.cuMemFree(self._dev_base))
        _ck(cu.cuMemFreeHost(self._host_base))
        _ck(cu.cuEventDestroy(self._ready))
        _ck(cu.cuEventDestroy(self._done))
        _ck(cu.cuStreamDestroy(self._copy))
