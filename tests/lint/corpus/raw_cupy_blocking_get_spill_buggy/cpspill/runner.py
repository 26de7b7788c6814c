import cupy as cp

from cpspill.spill import CupySpiller

_scale = cp.ElementwiseKernel("uint8 x", "uint8 y", "y = x * 2", "scale2")


def run(n, path):
    spiller = CupySpiller(n)
    buf = cp.arange(n, dtype=cp.uint8)
    _scale(buf, buf)
    total = spiller.checksum(buf)
    spiller.spill(buf, path)
    return total
