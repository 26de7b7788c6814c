"""Double-buffered layer prefetch: the K/V of layer i+1 are uploaded on a private runtime
stream into one of two device slots while layer i attends out of the other."""
import torch
from cuda.bindings import runtime as cudart

from .cudart_util import check, h2d_async, new_event, new_stream


class LayerPrefetcher:
    NUM_SLOTS = 2

    def __init__(self, host_kv, device):
        self._host = host_kv
        shape, dtype = host_kv.layer_shape, host_kv.dtype
        self._k = [torch.empty(shape, dtype=dtype, device=device) for _ in range(self.NUM_SLOTS)]
        self._v = [torch.empty(shape, dtype=dtype, device=device) for _ in range(self.NUM_SLOTS)]
        self._stream = new_stream()
        self._loaded = [new_event() for _ in range(self.NUM_SLOTS)]
        # recorded on the compute stream once a slot may be overwritten
        self._reusable = [new_event() for _ in range(self.NUM_SLOTS)]
        self._layer_in_slot = [None] * self.NUM_SLOTS
        # the slots come from torch's caching allocator on the current stream
        current = torch.cuda.current_stream().cuda_stream
        for ev in self._reusable:
            check(cudart.cudaEventRecord(ev, current))

    def prefetch(self, layer):
        slot = layer % self.NUM_SLOTS
        check(cudart.cudaStreamWaitEvent(self._stream, self._reusable[slot], 0))
        k_src, v_src = self._host.layer(layer)
        for dst, src in ((self._k[slot], k_src), (self._v[slot], v_src)):
            h2d_async(dst, src, self._stream)
        check(cudart.cudaEventRecord(self._loaded[slot], self._stream))
        self._layer_in_slot[slot] = layer

    def acquire(self, layer):
        """K/V of `layer`, usable on the current stream."""
        slot = layer % self.NUM_SLOTS
        if self._layer_in_slot[slot] != layer:
            raise RuntimeError(f"layer {layer} was not prefetched")
        compute = torch.cuda.current_stream().cuda_stream
        check(cudart.cudaStreamWaitEvent(compute, self._loaded[slot], 0))
        # hand the slot over to the compute stream: the next prefetch into it waits for this
        check(cudart.cudaEventRecord(self._reusable[slot], compute))
        return self._k[slot], self._v[slot]

    def close(self):
        check(cudart.cudaStreamSynchronize(self._stream))
        for ev in self._loaded + self._reusable:
            check(cudart.cudaEventDestroy(ev))
        check(cudart.cudaStreamDestroy(self._stream))
