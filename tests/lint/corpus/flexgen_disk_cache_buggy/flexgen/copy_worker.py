import logging
import queue

import numpy as np
import torch

from . import cudart

logger = logging.getLogger(__name__)

GB = 1 << 30


def copy_worker_func(copy_queue: "queue.Queue", cuda_id: int) -> None:
    """The copy worker thread: moves device tensors into files through a pinned relay buffer."""
    cudart.set_device(cuda_id)
    torch.cuda.set_device(cuda_id)

    relay = torch.empty((1 * GB,), dtype=torch.uint8, pin_memory=True)
    relay_np = relay.numpy()
    stream = cudart.stream_create()

    while True:
        item = copy_queue.get()
        if item is None:
            copy_queue.task_done()
            return

        filename, byte_offset, src, ready = item
        nbytes = src.numel() * src.element_size()
        cudart.stream_wait_event(stream, ready)
        cudart.memcpy_async(relay.data_ptr(), src.data_ptr(), nbytes, cudart.cudaMemcpyDeviceToHost, stream)

        if byte_offset is None:
            cudart.stream_synchronize(stream)
            np.save(filename, relay_np[:nbytes].view(np.float16).reshape(src.shape))
        else:
            with open(filename, "r+b") as fout:
                fout.seek(byte_offset)
                # expect: KVG003
                fout.write(memoryview(relay_np[:nbytes]))
            cudart.stream_synchronize(stream)

        cudart.event_destroy(ready)
        copy_queue.task_done()
