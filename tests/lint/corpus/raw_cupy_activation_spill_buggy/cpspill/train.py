"""A training loop that checkpoints the activation and restores it before backward."""

import cupy
import cupyx

from cpspill.spiller import ActivationSpiller


def backward(act, grad, out):
    cupy.multiply(grad, act > 0, out=out)


def run(x, w, grads, path):
    spiller = ActivationSpiller((x.shape[0], w.shape[1]))
    saved = cupyx.empty_pinned((x.shape[0], w.shape[1]), dtype=cupy.float32)
    out = cupy.empty((x.shape[0], w.shape[1]), dtype=cupy.float32)
    for grad in grads:
        spiller.forward(x, w)
        spiller.checkpoint(path)
        # expect: KVG003
        saved[...] = spiller.host
        with spiller.compute:
            backward(spiller.act, grad, out)
        act = spiller.restore(saved)
        with spiller.compute:
            backward(act, grad, out)
    return out
