"""Sparse SGD over the rows of a device embedding cache."""

import cupy

_SPARSE_SGD = cupy.RawKernel(
    r"""
extern "C" __global__
void sparse_sgd(float* table, const int* slots, const float* grads, float lr, int n, int dim) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n * dim) return;
    int row = slots[i / dim];
    table[row * dim + i % dim] -= lr * grads[i];
}
""",
    "sparse_sgd",
)


def sparse_sgd(table, slots, grads, lr):
    n, dim = grads.shape
    threads = 256
    blocks = (n * dim + threads - 1) // threads
    _SPARSE_SGD((blocks,), (threads,), (table, slots, grads, cupy.float32(lr), cupy.int32(n), cupy.int32(dim)))
