"""Raw CUDA kernels for the paged KV cache."""
import cupy as cp

_WRITE_KV_SRC = r'''
extern "C" __global__
void write_kv(const float* __restrict__ k, const float* __restrict__ v,
              float* __restrict__ k_cache, float* __restrict__ v_cache,
              const long long* __restrict__ slot_mapping,
              int num_tokens, int token_stride) {
    const int tok = blockIdx.x;
    if (tok >= num_tokens) return;
    const long long slot = slot_mapping[tok];
    if (slot < 0) return;  // padding token
    for (int i = threadIdx.x; i < token_stride; i += blockDim.x) {
        k_cache[slot * token_stride + i] = k[(long long)tok * token_stride + i];
        v_cache[slot * token_stride + i] = v[(long long)tok * token_stride + i];
    }
}
'''

_ZERO_BLOCKS_SRC = r'''
extern "C" __global__
void zero_blocks(float* __restrict__ cache, const int* __restrict__ block_ids,
                 long long block_numel) {
    const long long base = (long long)block_ids[blockIdx.y] * block_numel;
    for (long long i = blockIdx.x * blockDim.x + threadIdx.x; i < block_numel;
         i += (long long)gridDim.x * blockDim.x) {
        cache[base + i] = 0.0f;
    }
}
'''

write_kv = cp.RawKernel(_WRITE_KV_SRC, "write_kv")
zero_blocks = cp.RawKernel(_ZERO_BLOCKS_SRC, "zero_blocks")

THREADS = 128
