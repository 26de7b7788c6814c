"""Copies finished lattice chunks to pinned host memory and appends them to a file,
on a worker thread, so that the decoder never blocks on the PCIe transfer."""
import logging
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

import cupy
import cupyx

from .config import SpillConfig

logger = logging.getLogger(__name__)


@dataclass
class SpillJob:
    chunk_index: int
    lattice: cupy.ndarray       # device view, [frames, vocab]
    ready: cupy.cuda.Event      # recorded on the decoder's compute stream


class LatticeSpiller:
    def __init__(self, cfg: SpillConfig, utt_id: str):
        self.cfg = cfg
        self._d2h = cupy.cuda.Stream(non_blocking=True)
        self._host = cupyx.empty_pinned((cfg.chunk_frames, cfg.vocab), dtype=cupy.float32)
        cfg.out_dir.mkdir(parents=True, exist_ok=True)
        self._sink = open(cfg.out_dir / f"{utt_id}.lat", "wb")
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lattice-spill")

    def submit(self, job: SpillJob) -> Future:
        return self._pool.submit(self._spill, job)

    def _spill(self, job: SpillJob) -> int:
        # the chunk is produced on the compute stream; order the copy behind it
        self._d2h.wait_event(job.ready)
        # expect: KVG001
        job.lattice.get(stream=self._d2h, out=self._host, blocking=False)
        self._d2h.synchronize()
        n = self._sink.write(self._host.tobytes())
        logger.debug("spilled chunk %d (%d bytes)", job.chunk_index, n)
        return n

    def close(self) -> None:
        self._pool.shutdown(wait=True)
        self._sink.close()
