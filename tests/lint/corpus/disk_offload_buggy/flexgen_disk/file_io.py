import logging
import queue
from concurrent.futures import Future

from . import cudart

logger = logging.getLogger(__name__)


def flush_job_to_file(relays: "queue.Queue", job, future: Future) -> None:
    """Done-callback: persist the relay contents of a finished store job."""
    if future.cancelled() or future.exception() is not None:
        logger.error("store job for %s failed: %s", job.path, future.exception())
        job.flushed.set()
        return
    try:
        with open(job.path, "wb") as fh:
            # expect: KVG003
            fh.write(job.relay.view(job.nbytes))
    finally:
        cudart.event_destroy(job.ready_event)
        job.src = None
        relays.put(job.relay)
        job.relay = None
        job.flushed.set()
