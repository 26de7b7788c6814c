"""Exponential moving average of the weights, kept on the GPU and snapshotted to pinned host
memory every few hundred steps on a driver-API copy stream, so that training never stalls on a
device-to-host copy."""
import functools

import torch
from cuda.bindings import driver

from .cuda_utils import check, new_event, new_stream
from .writer import SnapshotWriter


class EmaSnapshotter:
    def __init__(self, model, out_dir, decay=0.9999, every=500):
        self.decay = decay
        self.every = every
        names, self.ema = [], []
        for name, param in model.named_parameters():
            names.append(name)
            self.ema.append(param.detach().clone())
        self.host = [torch.empty(t.shape, dtype=t.dtype, pin_memory=True) for t in self.ema]
        self.stream = new_stream()
        self.ready = new_event()
        self.copied = new_event()
        self.writer = SnapshotWriter(out_dir, names, self.host)
        self.writer.start()

    @functools.cached_property
    def copy_attr(self):
        attr = driver.CUmemcpyAttributes()
        # The EMA is only written by update(), and the copy stream waits for the training
        # stream before every snapshot, so the driver may fetch the source at submission.
        attr.srcAccessOrder = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL
        attr.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
        return attr

    @torch.no_grad()
    def update(self, model):
        params = [p.detach() for p in model.parameters()]
        torch._foreach_mul_(self.ema, self.decay)
        torch._foreach_add_(self.ema, params, alpha=1.0 - self.decay)

    def maybe_snapshot(self, step):
        if step % self.every:
            return
        # the writer may still be saving the previous snapshot out of self.host
        self.writer.wait_idle()
        training = torch.cuda.current_stream().cuda_stream
        check(driver.cuEventRecord(self.ready, training))
        check(driver.cuStreamWaitEvent(self.stream, self.ready, 0))
        for src, dst in zip(self.ema, self.host):
            nbytes = src.numel() * src.element_size()
            # expect: KVG002
            check(driver.cuMemcpyWithAttributesAsync(
                dst.data_ptr(), src.data_ptr(), nbytes, self.copy_attr, self.stream))
        check(driver.cuEventRecord(self.copied, self.stream))
        # the next update() must not overwrite the EMA while it is being copied
        check(driver.cuStreamWaitEvent(training, self.copied, 0))
        self.writer.submit(step, self.copied)
