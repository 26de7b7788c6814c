import cupy
import cupyx

from kvspill.constants import QUANT_GROUP, SCALE_DTYPE
from kvspill.pinned import PinnedSlabPool
from kvspill.stream_pool import CopyStreamPool

_quantize = cupy.ElementwiseKernel(
    "T x, float32 scale", "int8 q",
    "q = (signed char)max(-127.0f, min(127.0f, rintf((float)x / scale)))",
    "kvspill_quantize_int8",
)


def quantize_int8(chunk):
    grouped = chunk.reshape(-1, QUANT_GROUP)
    scales = (cupy.abs(grouped).max(axis=1) / 127.0).astype(SCALE_DTYPE)
    scales = cupy.maximum(scales, 1e-8)
    q = _quantize(grouped, scales[:, None])
    return q.reshape(chunk.shape), scales


class ChunkOffloader:
    """Spills KV chunks from device memory to a sink without blocking the producer."""

    def __init__(self, sink, quantize=True, num_slabs=8, device_id=None):
        self._sink = sink
        self._quantize = quantize
        self._streams = CopyStreamPool(device_id)
        self._slabs = PinnedSlabPool(num_slabs)

    def _on_copied(self, item):
        self._sink.submit(item)

    def offload(self, key, chunk):
        producer = cupy.cuda.get_current_stream()
        if self._quantize:
            payload, scales = quantize_int8(chunk)
        else:
            payload, scales = chunk.swapaxes(0, 1).copy(order="C"), None
        ready = producer.record()

        copy_stream = self._streams.acquire()
        copy_stream.wait_event(ready)
        mem, host = self._slabs.take(payload.shape, payload.dtype)
        host_scales = None
        payload.get(stream=copy_stream, out=host, blocking=False)
        if scales is not None:
            host_scales = cupyx.empty_pinned(scales.shape, scales.dtype)
            scales.get(stream=copy_stream, out=host_scales, blocking=False)
        copy_stream.launch_host_func(self._on_copied, (key, mem, host, host_scales, (payload, scales)))
        return ready

    def flush(self):
        self._streams.synchronize_all()
