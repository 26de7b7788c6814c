"""GPU <-> CPU block transfers for the offloading worker, one handler per direction. Each
transfer gets a stream from a small pool; transfers of one direction run in submission order."""

from collections import deque
from dataclasses import dataclass

import torch


@dataclass
class Transfer:
    job_id: int
    stream: torch.cuda.Stream
    end_event: torch.Event
    num_blocks: int


class SingleDirectionHandler:
    def __init__(self, gpu_tensors, cpu_tensors, gpu_to_cpu):
        for gpu_tensor, cpu_tensor in zip(gpu_tensors, cpu_tensors):
            assert gpu_tensor.is_cuda
            assert cpu_tensor.device.type == "cpu"
        self.src_tensors = gpu_tensors if gpu_to_cpu else cpu_tensors
        self.dst_tensors = cpu_tensors if gpu_to_cpu else gpu_tensors
        self.gpu_to_cpu = gpu_to_cpu
        self._transfers: deque[Transfer] = deque()
        self._stream_pool: list[torch.cuda.Stream] = []
        self._event_pool: list[torch.Event] = []

    def transfer_async(self, job_id, src_blocks, dst_blocks):
        stream = self._stream_pool.pop() if self._stream_pool else torch.cuda.Stream()
        end_event = self._event_pool.pop() if self._event_pool else torch.Event()
        # stores read blocks the model just wrote, loads overwrite blocks it may still read
        stream.wait_stream(torch.cuda.current_stream())
        if self._transfers:
            stream.wait_event(self._transfers[-1].end_event)
        with torch.cuda.stream(stream):
            for src_tensor, dst_tensor in zip(self.src_tensors, self.dst_tensors):
                for src_block, dst_block in zip(src_blocks, dst_blocks):
                    dst_tensor[dst_block].copy_(src_tensor[src_block], non_blocking=True)
            end_event.record(stream)
        self._transfers.append(Transfer(job_id, stream, end_event, len(src_blocks)))

    def get_finished(self):
        finished = []
        while self._transfers and self._transfers[0].end_event.query():
            transfer = self._transfers.popleft()
            finished.append(transfer.job_id)
            self._stream_pool.append(transfer.stream)
            self._event_pool.append(transfer.end_event)
        return finished
