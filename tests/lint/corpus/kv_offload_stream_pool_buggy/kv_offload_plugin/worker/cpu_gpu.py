"""GPU<->CPU handlers. vLLM's KV blocks are moved with its ``swap_blocks`` op, which runs on
the current stream: each job gets a stream from a pool, so jobs of one direction overlap with
the forward but run in submission order."""

from collections import deque
from dataclasses import dataclass

import numpy as np
import torch
from vllm import _custom_ops as ops

from kv_offload_plugin.mediums import CPULoadStoreSpec, GPULoadStoreSpec
from kv_offload_plugin.worker.worker import OffloadingHandler, TransferResult


@dataclass
class Transfer:
    job_id: int
    stream: torch.cuda.Stream
    end_event: torch.Event


def expand_block_ids(block_ids, factor):
    """A CPU block holds ``factor`` GPU blocks: block b covers GPU-sized blocks b*factor ..."""
    return (block_ids[:, None] * factor + np.arange(factor)[None, :]).reshape(-1)


class SingleDirectionOffloadingHandler(OffloadingHandler):
    def __init__(self, gpu_tensors, cpu_tensors, block_size_factor, gpu_to_cpu):
        self.src_tensors = gpu_tensors if gpu_to_cpu else cpu_tensors
        self.dst_tensors = cpu_tensors if gpu_to_cpu else gpu_tensors
        self.gpu_to_cpu = gpu_to_cpu
        self.block_size_factor = block_size_factor
        self.block_size_in_bytes = [t.shape[1] for t in gpu_tensors]
        self._transfers = deque()
        self._transfer_events = {}
        self._stream_pool = []
        self._event_pool = []

    def _mapping(self, src_spec, dst_spec):
        if self.gpu_to_cpu:
            src = src_spec.block_ids
            dst = expand_block_ids(dst_spec.block_ids, self.block_size_factor)[: src.size]
        else:
            src = expand_block_ids(src_spec.block_ids, self.block_size_factor)
            dst = dst_spec.block_ids
            src = src[src.size - dst.size :]
        return torch.from_numpy(np.stack([src, dst], axis=1).astype(np.int64))

    def transfer_async(self, job_id, transfer_spec) -> bool:
        src_spec, dst_spec = transfer_spec
        src_to_dst = self._mapping(src_spec, dst_spec)

        stream = self._stream_pool.pop() if self._stream_pool else torch.cuda.Stream()
        end_event = self._event_pool.pop() if self._event_pool else torch.Event()

        if self._transfers:
            # jobs of a direction run in order: this one starts after the previous one ended,
            # and that one was already ordered behind the model
            stream.wait_event(self._transfers[-1].end_event)
        else:
            stream.wait_stream(torch.cuda.current_stream())

        with torch.cuda.stream(stream):
            for src_tensor, dst_tensor, block_size_in_bytes in zip(
                self.src_tensors, self.dst_tensors, self.block_size_in_bytes
            ):
                # expect: KVG001, KVG004
                ops.swap_blocks(src_tensor, dst_tensor, block_size_in_bytes, src_to_dst)
            end_event.record(stream)

        self._transfer_events[job_id] = end_event
        self._transfers.append(Transfer(job_id=job_id, stream=stream, end_event=end_event))
        return True

    def get_finished(self):
        results = []
        while self._transfers and self._transfers[0].end_event.query():
            transfer = self._transfers.popleft()
            results.append(TransferResult(transfer.job_id, True))
            self._stream_pool.append(transfer.stream)
            self._event_pool.append(transfer.end_event)
            del self._transfer_events[transfer.job_id]
        return results

    def wait(self, job_ids):
        for job_id in job_ids:
            event = self._transfer_events.get(job_id)
            if event is not None:
                event.synchronize()


class CpuGpuOffloadingHandlers:
    def __init__(self, gpu_caches, block_size_factor, num_cpu_blocks):
        gpu_tensors, cpu_tensors = [], []
        for cache in gpu_caches:
            gpu_tensor = cache.view(torch.int8).view(cache.shape[0], -1)
            gpu_tensors.append(gpu_tensor)
            cpu_tensors.append(
                torch.zeros(
                    (num_cpu_blocks, gpu_tensor.shape[1] * block_size_factor),
                    dtype=torch.int8,
                    device="cpu",
                    pin_memory=True,
                )
            )
        self.gpu_to_cpu_handler = SingleDirectionOffloadingHandler(
            gpu_tensors, cpu_tensors, block_size_factor, gpu_to_cpu=True
        )
        self.cpu_to_gpu_handler = SingleDirectionOffloadingHandler(
            gpu_tensors, cpu_tensors, block_size_factor, gpu_to_cpu=False
        )

    def register(self, worker):
        worker.register_handler(GPULoadStoreSpec, CPULoadStoreSpec, self.gpu_to_cpu_handler)
        worker.register_handler(CPULoadStoreSpec, GPULoadStoreSpec, self.cpu_to_gpu_handler)
