import os
import queue
import threading

import torch


class FrameEncoder:
    """Streams [3, t, H, W] frames to a raw file: the job thread converts each chunk on the
    GPU and queues it with an event; a writer thread stages it in pinned memory and writes it."""

    def __init__(self, path: str, height: int, width: int, chunk_frames: int = 8):
        self.path = path
        self._height = height
        self._width = width
        self._chunk_frames = chunk_frames
        self._queue: queue.Queue = queue.Queue(maxsize=4)
        self._staging = torch.empty((chunk_frames, height, width, 3), dtype=torch.uint8, pin_memory=True)
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        self._thread = threading.Thread(target=self._drain, name="frame-writer", daemon=True)
        self._thread.start()

    def write(self, frames: torch.Tensor) -> None:
        stream = torch.cuda.current_stream(frames.device)
        total = int(frames.shape[1])
        for start in range(0, total, self._chunk_frames):
            end = min(start + self._chunk_frames, total)
            chunk = (frames[:, start:end] * 255).clamp_(0, 255).to(torch.uint8)
            chunk = chunk.permute(1, 2, 3, 0).contiguous()
            ready = torch.cuda.Event()
            ready.record(stream)
            self._queue.put((chunk, ready))

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join()
        os.close(self._fd)

    def _drain(self) -> None:
        copy_stream = torch.cuda.Stream()
        while (item := self._queue.get()) is not None:
            chunk, ready = item
            count = int(chunk.shape[0])
            with torch.cuda.stream(copy_stream):
                # expect: KVG001
                self._staging[:count].copy_(chunk, non_blocking=True)
            copy_stream.synchronize()
            os.write(self._fd, self._staging[:count].numpy().tobytes())
