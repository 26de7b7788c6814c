"""Copy thread for the CPU offload connector: the worker hands TransferJobs over a queue, each
tagged "store" (GPU -> pinned host) or "load" (pinned host -> GPU) and carrying the event the
side stream must wait on before it touches the GPU blocks."""

import queue
import threading
from dataclasses import dataclass, field

import torch
from cuda.bindings import driver as cuda_drv


@dataclass
class TransferJob:
    tag: str
    req_id: str
    src_blocks: list
    dst_blocks: list
    ready: torch.cuda.Event
    done: torch.cuda.Event = field(default_factory=torch.cuda.Event)


def _block_ptrs(caches, blocks):
    ptrs, sizes = [], []
    for cache in caches:
        nbytes = cache.stride(0) * cache.element_size()
        base = cache.data_ptr()
        ptrs.extend(base + b * nbytes for b in blocks)
        sizes.extend([nbytes] * len(blocks))
    return ptrs, sizes


def _copy_attrs(order):
    attrs = cuda_drv.CUmemcpyAttributes()
    attrs.srcAccessOrder = order
    attrs.flags = cuda_drv.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    return attrs


class TransferThread:
    def __init__(self, gpu_caches, cpu_caches, device):
        self.gpu_caches = gpu_caches
        self.cpu_caches = cpu_caches
        self.device = device
        self.store_stream = torch.cuda.Stream(device=device)
        self.load_stream = torch.cuda.Stream(device=device)
        self.store_attrs = _copy_attrs(cuda_drv.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY)
        self.load_attrs = _copy_attrs(cuda_drv.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY)
        self.jobs: "queue.Queue[TransferJob | None]" = queue.Queue()
        self.in_flight: list = []
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._loop, name="kv-transfer", daemon=True)
        self._thread.start()

    def submit(self, job):
        self.jobs.put(job)

    def shutdown(self):
        self.jobs.put(None)
        self._thread.join()

    def _loop(self):
        torch.cuda.set_device(self.device)
        while True:
            job = self.jobs.get()
            if job is None:
                break
            if job.tag == "store":
                stream, attrs = self.store_stream, self.store_attrs
                src, dst = self.gpu_caches, self.cpu_caches
            else:
                stream, attrs = self.load_stream, self.load_attrs
                src, dst = self.cpu_caches, self.gpu_caches
            job.ready.wait(stream)
            srcs, sizes = _block_ptrs(src, job.src_blocks)
            dsts, _ = _block_ptrs(dst, job.dst_blocks)
            # expect: KVG001, KVG004, KVG002
            err, fail_idx = cuda_drv.cuMemcpyBatchAsync(
                dsts, srcs, sizes, len(srcs), [attrs], [0], 1, stream.cuda_stream
            )
            if err != cuda_drv.CUresult.CUDA_SUCCESS:
                raise RuntimeError(f"cuMemcpyBatchAsync failed at {fail_idx}: {err}")
            job.done.record(stream)
            with self._lock:
                self.in_flight.append(job)

    def poll_done(self):
        with self._lock:
            done = [j for j in self.in_flight if j.done.query()]
            self.in_flight = [j for j in self.in_flight if j not in done]
        return done
