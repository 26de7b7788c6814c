"""Transfer backends with a template method: ``store`` and ``load`` call the overridable
``_order_behind_compute`` hook, then copy block by block on ``self.stream``. The base class
copies on the compute stream itself (stream order is enough, the hook does nothing); the
side-stream subclass copies on its own stream and its hook waits on the compute stream. Bug:
the "deferred" subclass drops the wait, reasoning that stores only cover finished requests
and loads only fill fresh blocks; neither holds while the last forward is still running."""

import torch


class InlineTransferBackend:
    def __init__(self, gpu_caches, num_cpu_blocks):
        self.gpu_caches = gpu_caches
        self.cpu_caches = [
            torch.empty((num_cpu_blocks,) + tuple(t.shape[1:]), dtype=t.dtype, pin_memory=True)
            for t in gpu_caches
        ]
        self.stream = torch.cuda.current_stream()

    def _order_behind_compute(self):
        pass

    def store(self, gpu_blocks, cpu_blocks):
        self._order_behind_compute()
        with torch.cuda.stream(self.stream):
            for gpu_cache, cpu_cache in zip(self.gpu_caches, self.cpu_caches):
                for g, c in zip(gpu_blocks, cpu_blocks):
                    # expect: KVG001
                    cpu_cache[c].copy_(gpu_cache[g], non_blocking=True)
            done = torch.cuda.Event()
            done.record()
        return done

    def load(self, cpu_blocks, gpu_blocks):
        self._order_behind_compute()
        with torch.cuda.stream(self.stream):
            for gpu_cache, cpu_cache in zip(self.gpu_caches, self.cpu_caches):
                for c, g in zip(cpu_blocks, gpu_blocks):
                    # expect: KVG004
                    gpu_cache[g].copy_(cpu_cache[c], non_blocking=True)
            done = torch.cuda.Event()
            done.record()
        return done


class SideStreamTransferBackend(InlineTransferBackend):
    def __init__(self, gpu_caches, num_cpu_blocks):
        super().__init__(gpu_caches, num_cpu_blocks)
        self.stream = torch.cuda.Stream(device=gpu_caches[0].device, priority=-1)

    def _order_behind_compute(self):
        self.stream.wait_stream(torch.cuda.current_stream())


class DeferredTransferBackend(SideStreamTransferBackend):
    def _order_behind_compute(self):
        # Stores only cover finished requests and loads fill fresh blocks: no wait needed.
        pass
