"""Split-K decode attention over one KV chunk: each chunk yields a partial (max, sum, acc)
per head, merged on the host side of the loop by ``merge_partials``."""
import math

from numba import cuda, float32


@cuda.jit
def chunk_attention(q, k_chunk, v_chunk, n_valid, m_out, l_out, acc_out):
    h = cuda.blockIdx.x
    d = cuda.threadIdx.x
    head_dim = q.shape[1]
    m = float32(-1e30)
    l = float32(0.0)
    acc = float32(0.0)
    for t in range(n_valid):
        s = float32(0.0)
        for j in range(head_dim):
            s += q[h, j] * k_chunk[t, h, j]
        m_new = max(m, s)
        scale = math.exp(m - m_new)
        p = math.exp(s - m_new)
        l = l * scale + p
        if d < head_dim:
            acc = acc * scale + p * v_chunk[t, h, d]
        m = m_new
    if d < head_dim:
        acc_out[h, d] = acc
    if d == 0:
        m_out[h] = m
        l_out[h] = l


@cuda.jit
def merge_partials(m_run, l_run, acc_run, m_new, l_new, acc_new):
    h = cuda.blockIdx.x
    d = cuda.threadIdx.x
    if d >= acc_run.shape[1]:
        return
    m = max(m_run[h], m_new[h])
    a = math.exp(m_run[h] - m)
    b = math.exp(m_new[h] - m)
    acc_run[h, d] = acc_run[h, d] * a + acc_new[h, d] * b
    cuda.syncthreads()
    if d == 0:
        l_run[h] = l_run[h] * a + l_new[h] * b
        m_run[h] = m
