import logging
import math

from numba import cuda

logger = logging.getLogger(__name__)


class CudaRuntime:
    """Owns the streams used by the dumper: one for kernels, one for D2H."""

    def __init__(self, device_id: int = 0):
        cuda.select_device(device_id)
        self.compute = cuda.stream()
        self.xfer = cuda.stream()
        logger.debug("streams compute=%s xfer=%s", self.compute, self.xfer)

    def record_on(self, stream) -> "cuda.cudadrv.driver.Event":
        evt = cuda.event(timing=False)
        evt.record(stream=stream)
        return evt

    def staging(self, n_slots: int, shape: tuple, dtype) -> list:
        host = [cuda.pinned_array(shape, dtype=dtype) for _ in range(n_slots)]
        dev = [cuda.device_array(shape, dtype=dtype) for _ in range(n_slots)]
        return list(zip(dev, host))


@cuda.jit
def log_softmax_rows(logits, out, temperature):
    row = cuda.blockIdx.x
    if row >= logits.shape[0]:
        return
    if cuda.threadIdx.x != 0:
        return
    vocab = logits.shape[1]
    m = logits[row, 0] / temperature
    for j in range(1, vocab):
        v = logits[row, j] / temperature
        if v > m:
            m = v
    acc = 0.0
    for j in range(vocab):
        acc += math.exp(logits[row, j] / temperature - m)
    lse = m + math.log(acc)
    for j in range(vocab):
        out[row, j] = logits[row, j] / temperature - lse
