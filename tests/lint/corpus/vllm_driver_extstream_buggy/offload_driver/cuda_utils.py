"""cuda-python helpers: unwrap (err, value) results and make non-blocking driver streams that
torch can use (wrapped as ExternalStream, so wait_stream / events work on them)."""

import torch
from cuda.bindings import driver


def check(result):
    err, *values = result
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"CUDA driver call failed: {err}")
    return values[0] if len(values) == 1 else values


def create_stream(device: torch.device) -> torch.cuda.ExternalStream:
    # created through the driver so the copy streams never share torch's stream pool
    handle = check(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING.value))
    return torch.cuda.ExternalStream(int(handle), device=device)
