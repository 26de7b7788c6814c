"""A host/device copy bandwidth benchmark in the shape of DeepSpeed's pin-memory benchmark: for
each size it allocates a pinned host buffer and an uninitialised device buffer, then times
host-to-device and device-to-host copies issued through lambdas on a side stream. No kernel
ever writes the device buffer, so there is no producer for the copies to be ordered behind:
the timings are all it reads."""

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
        h2d = time_copy(lambda: device.copy_(host, non_blocking=True), stream, iters)
        d2h = time_copy(lambda: host.copy_(device, non_blocking=True), stream, iters)
        print(json.dumps({"size_mib": size_mib, "h2d_s": h2d, "d2h_s": d2h}))
