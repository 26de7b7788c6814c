from collections import deque
from dataclasses import dataclass

import torch


@dataclass
class Transfer:
    job_id: int
    stream: torch.cuda.Stream
    end_event: torch.cuda.Event
    src_blocks: list[int]
    dst_blocks: list[int]


class TransferHandlerBase:
    """Transfers of one direction run in submission order, each on a stream from a pool.

    Subclasses implement ``_copy``; ``transfer_async`` orders the stream and issues it."""

    def __init__(self, src_tensors: list[torch.Tensor], dst_tensors: list[torch.Tensor]):
        self.src_tensors = src_tensors
        self.dst_tensors = dst_tensors
        self._transfers: deque[Transfer] = deque()
        self._stream_pool: list[torch.cuda.Stream] = []

    def _copy(self, src_blocks: list[int], dst_blocks: list[int]) -> None:
        raise NotImplementedError

    def _order(self, stream: torch.cuda.Stream) -> None:
        # Stores read KV the model may still be writing (async scheduling keeps the previous
        # step in flight); loads overwrite blocks whose last readers may still be queued.
        stream.wait_stream(torch.cuda.current_stream())
        if self._transfers:
            stream.wait_event(self._transfers[-1].end_event)

    def transfer_async(self, job_id: int, src_blocks: list[int], dst_blocks: list[int]) -> bool:
        stream = self._stream_pool.pop() if self._stream_pool else torch.cuda.Stream()
        end_event = torch.cuda.Event()
        self._order(stream)
        with torch.cuda.stream(stream):
            self._copy(src_blocks, dst_blocks)
            end_event.record(stream)
        self._transfers.append(Transfer(job_id, stream, end_event, src_blocks, dst_blocks))
        return True

    def get_finished(self) -> list[Transfer]:
        done = []
        while self._transfers and self._transfers[0].end_event.query():
            transfer = self._transfers.popleft()
            self._stream_pool.append(transfer.stream)
            done.append(transfer)
        return done
