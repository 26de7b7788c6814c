"""Data-parallel training loop: every rank runs its kernels on one non-blocking stream."""
import chainer
import chainer.functions as F
import cupy as cp
import mpi4py.MPI as MPI

from mnhost import HostAllreduceCommunicator


def train(model, optimizer, batches, epochs=1):
    compute = cp.cuda.Stream(non_blocking=True)
    comm = HostAllreduceCommunicator(MPI.COMM_WORLD, compute)
    for _ in range(epochs):
        for x, t in batches:
            with compute:
                x = cp.asarray(x)
                t = cp.asarray(t)
                loss = F.softmax_cross_entropy(model(x), t)
                model.cleargrads()
                loss.backward()
            comm.allreduce_grad(model)
            with compute:
                optimizer.update()
    compute.synchronize()
    return model
