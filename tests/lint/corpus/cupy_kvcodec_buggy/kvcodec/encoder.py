# SPDX-License-Identifier: Apache-2.0
# Standard
from collections import deque
from dataclasses import dataclass
from typing import Deque, Optional, Tuple
import logging
import queue

# Third Party
import cupy
import cupyx
import numpy as np

# First Party
from kvcodec.kernels import quantize_rows
from kvcodec.streams import get_codec_streams

logger = logging.getLogger(__name__)


@dataclass
class EncodedChunk:
    key: str
    payload: np.ndarray
    scales: np.ndarray
    # Device-side payload for peer transfer; final once ``quantized`` fires.
    device_payload: cupy.ndarray
    device_scales: cupy.ndarray
    quantized: cupy.cuda.Event
    ready: cupy.cuda.Event


class CupyChunkEncoder:
    def __init__(self, device_id: int, out_queue: "queue.Queue[Optional[EncodedChunk]]"):
        self.device_id = device_id
        self.streams = get_codec_streams(device_id)
        self.out_queue = out_queue
        self._inflight: Deque[Tuple[cupy.cuda.Event, cupy.ndarray, cupy.ndarray]] = deque()

    def _reap(self) -> None:
        while self._inflight and self._inflight[0][0].done:
            self._inflight.popleft()

    def encode(self, key: str, kv_chunk: cupy.ndarray) -> EncodedChunk:
        """``kv_chunk`` is [rows, hidden] and complete on the caller's current stream."""
        self._reap()
        rows, hidden = kv_chunk.shape
        producer_done = cupy.cuda.get_current_stream().record()

        with cupy.cuda.Device(self.device_id):
            with self.streams.compute:
                self.streams.compute.wait_event(producer_done)
                q_dev = cupy.empty((rows, hidden), dtype=cupy.int8)
                s_dev = cupy.empty((rows, 1), dtype=cupy.float32)
                quantize_rows(kv_chunk, q_dev, s_dev)
                quantized = self.streams.compute.record()

            payload = cupyx.empty_pinned((rows, hidden), dtype=np.int8)
            scales = cupyx.empty_pinned((rows, 1), dtype=np.float32)
            self.streams.d2h.wait_event(quantized)
            cupy.asnumpy(q_dev, stream=self.streams.d2h, out=payload, blocking=False)
            s_dev.get(stream=self.streams.d2h, out=scales, blocking=False)
            ready = self.streams.d2h.record()

        self._inflight.append((ready, q_dev, s_dev))
        chunk = EncodedChunk(key, payload, scales, q_dev, s_dev, quantized, ready)
        self.out_queue.put(chunk)
        logger.debug("queued %s (%d x %d)", key, rows, hidden)
        return chunk
