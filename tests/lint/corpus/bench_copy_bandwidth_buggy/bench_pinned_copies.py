"""A host/device copy bandwidth benchmark in the shape of DeepSpeed's pin-memory benchmark: for
each size it fills a device buffer with a kernel on the compute stream, then times host-to-device
and device-to-host copies issued through lambdas on a side stream. Bug: the side stream never
waits for the fill, so the first device-to-host copies can read the buffer before the kernel
has written it (KVG001), and the host-to-device copies can overwrite it while the fill still
runs (KVG004): synchronizing the side stream orders nothing on the compute stream."""

import json

import torch


def time_copy(copy_fn, stream, iters):
    with torch.cuda.stream(stream):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record(stream)
        for _ in range(iters):
            copy_fn()
        end.record(stream)
    stream.synchronize()
    return start.elapsed_time(end) / 1000.0 / iters


def run(sizes_mib, iters=20):
    stream = torch.cuda.Stream()
    for size_mib in sizes_mib:
        numel = size_mib * 1024 * 1024 // 4
        host = torch.empty(numel, dtype=torch.float32, pin_memory=True)
        device = torch.empty(numel, dtype=torch.float32, device="cuda")
        device.uniform_()
        # expect: KVG001
        d2h = time_copy(lambda: host.copy_(device, non_blocking=True), stream, iters)
        # expect: KVG004
        h2d = time_copy(lambda: device.copy_(host, non_blocking=True), stream, iters)
        print(json.dumps({"size_mib": size_mib, "h2d_s": h2d, "d2h_s": d2h}))
