"""Gradient allreduce through host memory for clusters without CUDA-aware MPI.

Gradients are grouped into buckets. Each bucket is packed on the compute stream, copied to a
pinned host slot on a separate device-to-host stream, and reduced with MPI on a worker thread,
so the copy of bucket i+1 overlaps the MPI reduction of bucket i. The reduced values are copied
back on the compute stream, ahead of the optimizer update that the trainer queues there.
"""
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import cupy as cp
import mpi4py.MPI as MPI

from .memory import DeviceMemory, HostPinnedMemory
from .packing import bucketize, extract_grads, pack_grads, unpack_grads


@dataclass
class CommConfig:
    bucket_bytes: int = 32 << 20
    max_buckets: int = 16


@dataclass
class _Slot:
    dev: DeviceMemory = field(default_factory=DeviceMemory)
    host: HostPinnedMemory = field(default_factory=HostPinnedMemory)
    ready: cp.cuda.Event = field(default_factory=lambda: cp.cuda.Event(disable_timing=True))
    copied: cp.cuda.Event = field(default_factory=lambda: cp.cuda.Event(disable_timing=True))


class HostAllreduceCommunicator:

    def __init__(self, mpi_comm, compute, config=None):
        self.mpi_comm = mpi_comm
        self.compute = compute
        self.config = config or CommConfig()
        self.d2h = cp.cuda.Stream(non_blocking=True)
        self._slots = [_Slot() for _ in range(self.config.max_buckets)]
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mpi-reduce")

    def _reduce_on_host(self, slot, n_elems):
        slot.copied.synchronize()
        buf = slot.host.array(n_elems)
        self.mpi_comm.Allreduce(MPI.IN_PLACE, [buf, MPI.FLOAT], op=MPI.SUM)
        buf *= 1.0 / self.mpi_comm.size

    def allreduce_grad(self, model):
        buckets = bucketize(extract_grads(model), self.config.bucket_bytes)
        pending = []
        for bucket, slot in zip(buckets, self._slots):
            n_elems = sum(param.grad.size for param in bucket)
            nbytes = n_elems * 4
            slot.host.assign(nbytes)
            if len(bucket) == 1 and bucket[0].grad.dtype == cp.float32:
                # a lone fp32 gradient is already contiguous: send it without packing
                src = bucket[0].grad.data
            else:
                slot.dev.assign(nbytes)
                pack_grads(bucket, slot.dev, self.compute)
                src = slot.dev.memory
            # the source is written on the compute stream (by backward, or by the packing)
            slot.ready.record(self.compute)
            self.d2h.wait_event(slot.ready)
            src.copy_to_host_async(slot.host.ptr(), nbytes, self.d2h)
            slot.copied.record(self.d2h)
            pending.append((bucket, slot, self._pool.submit(self._reduce_on_host, slot, n_elems)))
        for bucket, slot, future in pending:
            future.result()
            unpack_grads(bucket, slot.host, self.compute)
