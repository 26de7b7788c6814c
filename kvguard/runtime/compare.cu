// kvguard's verification kernel: compares pairs of memory ranges byte for byte, each a GPU
// source block and its pinned host copy, read in place through unified addressing (nothing is
// copied to compare them). Grid: x = 16 KiB chunk of a pair, y = pair; 256 threads a block.
// differs[pair] is set to 1 when any byte of the pair differs (the host zeroes it before the
// launch); a pair that matches is not written. Compiled to compare.ptx by
// `python3 -m kvguard.runtime.build_compare` (NVRTC 12.8, compute_50); a test checks it is current.
#define CHUNK 16384ULL

extern "C" __global__ void kvguard_compare_pairs(
    const unsigned long long* __restrict__ src, const unsigned long long* __restrict__ dst,
    const unsigned long long* __restrict__ size, unsigned int* __restrict__ differs)
{
    const unsigned int pair = blockIdx.y;
    const unsigned long long bytes = size[pair];
    const unsigned long long begin = (unsigned long long)blockIdx.x * CHUNK;
    if (begin >= bytes) return;
    const unsigned long long end = begin + CHUNK < bytes ? begin + CHUNK : bytes;
    const unsigned long long a = src[pair], b = dst[pair];
    unsigned int found = 0;
    if (((a | b | begin | end) & 15ULL) == 0) {
        const uint4* x = (const uint4*)(a + begin);
        const uint4* y = (const uint4*)(b + begin);
        const unsigned long long words = (end - begin) >> 4;
        for (unsigned long long w = threadIdx.x; w < words; w += blockDim.x) {
            const uint4 p = x[w], q = y[w];
            found |= (p.x ^ q.x) | (p.y ^ q.y) | (p.z ^ q.z) | (p.w ^ q.w);
        }
    } else {
        const unsigned char* x = (const unsigned char*)a;
        const unsigned char* y = (const unsigned char*)b;
        for (unsigned long long k = begin + threadIdx.x; k < end; k += blockDim.x) {
            found |= x[k] ^ y[k];
        }
    }
    if (__syncthreads_or(found != 0) && threadIdx.x == 0) differs[pair] = 1;
}
