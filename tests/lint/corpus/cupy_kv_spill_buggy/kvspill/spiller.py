import hashlib
import logging
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

import cupy
import numpy

from .config import SpillConfig
from .constants import DIGEST_SIZE, IO_THREAD_PREFIX
from .pool import DeviceBlockPool, PinnedStagingRing, make_transfer_streams

logger = logging.getLogger(__name__)


@dataclass
class SpillJob:
    request_id: int
    block_id: int
    ready: cupy.cuda.Event
    path: str


class BlockSpiller:

    def __init__(self, cfg: SpillConfig, pool: DeviceBlockPool, staging: PinnedStagingRing):
        self._cfg = cfg
        self._pool = pool
        self._staging = staging
        self._spill_stream, self._load_stream = make_transfer_streams(cfg.device_id)
        self._executor = ThreadPoolExecutor(
            max_workers=cfg.io_workers, thread_name_prefix=IO_THREAD_PREFIX
        )

    def submit(self, job: SpillJob) -> "Future[str]":
        return self._executor.submit(self._spill_one, job)

    def _spill_one(self, job: SpillJob) -> str:
        buf = self._staging.acquire()
        try:
            with cupy.cuda.Device(self._cfg.device_id):
                stream = self._spill_stream
                stream.wait_event(job.ready)
                self._pool.kv[job.block_id].get(stream=stream, out=buf, blocking=False)
                digest = ""
                if self._cfg.verify_digest:
                    # expect: KVG003
                    digest = hashlib.blake2b(buf, digest_size=DIGEST_SIZE).hexdigest()
                stream.synchronize()
                with open(job.path, "wb") as fh:
                    fh.write(buf)
            self._pool.release(job.block_id)
        finally:
            self._staging.release(buf)
        logger.debug("spilled req=%d block=%d -> %s", job.request_id, job.block_id, job.path)
        return digest

    def _recycle_after(self, done: cupy.cuda.Event, buf: numpy.ndarray) -> None:
        done.synchronize()
        self._staging.release(buf)

    def reload(self, path: str, compute_stream: cupy.cuda.Stream) -> int:
        block_id = self._pool.allocate()
        buf = self._staging.acquire()
        with open(path, "rb") as fh:
            fh.readinto(buf)
        with cupy.cuda.Device(self._cfg.device_id):
            # expect: KVG004
            self._pool.kv[block_id].set(buf, stream=self._load_stream)
            loaded = cupy.cuda.Event()
            loaded.record(self._load_stream)
            compute_stream.wait_event(loaded)
        self._executor.submit(self._recycle_after, loaded, buf)
        return block_id

    def shutdown(self) -> None:
        self._executor.shutdown(wait=True)
