import dataclasses
import logging
import queue

import cupy
import numpy as np

from .staging import drain_current_stream, pinned_staging, staging_view

logger = logging.getLogger(__name__)


@dataclasses.dataclass
class SpillJob:
    path: str
    packed: cupy.ndarray
    ready: cupy.cuda.Event


def write_record(path: str, host: np.ndarray) -> None:
    with open(path, "wb") as fh:
        fh.write(host.tobytes())


def copy_worker_func(jobs: "queue.Queue[SpillJob | None]", cuda_id: int, staging_elems: int, dtype: type) -> None:
    cupy.cuda.Device(cuda_id).use()
    stream = cupy.cuda.Stream(non_blocking=True)
    staging = pinned_staging(staging_elems, dtype)

    while True:
        job = jobs.get()
        if job is None:
            jobs.task_done()
            return
        try:
            host = staging_view(staging, job.packed.shape)
            with stream:
                stream.wait_event(job.ready)
                job.packed.get(stream=stream, out=host, blocking=False)
                drain_current_stream()
            write_record(job.path, host)
        except Exception:
            logger.exception("failed to spill %s", job.path)
        finally:
            jobs.task_done()
