import logging
from concurrent.futures import Future, ThreadPoolExecutor

import cupy
import torch

from fs_offload.config import FsOffloadConfig
from fs_offload.file_io import write_block_files
from fs_offload.gpu_io import stage_blocks_to_host
from fs_offload.staging import PinnedStagingPool

logger = logging.getLogger(__name__)


class FsOffloadingWorker:
    def __init__(self, config: FsOffloadConfig, kv_caches: list[torch.Tensor]):
        self.config = config
        self._gpu_layers = [cupy.asarray(t) for t in kv_caches]
        block_shape = self._gpu_layers[0].shape[1:]
        staging_shape = (len(kv_caches), config.max_blocks_per_job, *block_shape)
        self._staging = PinnedStagingPool(
            config.num_staging_buffers, staging_shape, self._gpu_layers[0].dtype
        )
        self._stream = cupy.cuda.Stream(non_blocking=True)
        self._io_pool = ThreadPoolExecutor(
            max_workers=config.num_io_threads, thread_name_prefix="kv-fs-writer"
        )
        self._pending: dict[int, tuple[Future, cupy.cuda.Event]] = {}

    def store(self, job_id: int, block_ids: list[int], block_hashes: list[str]) -> None:
        assert len(block_ids) <= self.config.max_blocks_per_job
        buf = self._staging.acquire()
        compute_stream = cupy.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream)
        ready = cupy.cuda.Event(disable_timing=True)
        ready.record(compute_stream)
        self._stream.wait_event(ready)
        stage_blocks_to_host(self._gpu_layers, block_ids, buf, self._stream)
        copy_done = cupy.cuda.Event(disable_timing=True)
        copy_done.record(self._stream)

        paths = [self.config.path_for(h) for h in block_hashes]
        future = self._io_pool.submit(
            write_block_files, paths, buf[:, : len(block_ids)], copy_done
        )
        future.add_done_callback(lambda _f, b=buf: self._staging.release(b))
        self._pending[job_id] = (future, copy_done)

    def get_finished(self) -> list[tuple[int, bool]]:
        finished = []
        for job_id, (future, copy_done) in list(self._pending.items()):
            if not (future.done() and copy_done.done):
                continue
            del self._pending[job_id]
            ok = future.exception() is None
            if not ok:
                logger.warning("KV store job %d failed: %s", job_id, future.exception())
            finished.append((job_id, ok))
        return finished

    def shutdown(self) -> None:
        self._io_pool.shutdown(wait=True)
        self._stream.synchronize()
