from cuda.bindings import runtime as cudart


def check_cudart(result):
    err = result[0]
    if err != cudart.cudaError_t.cudaSuccess:
        _, name = cudart.cudaGetErrorName(err)
        raise RuntimeError(f"CUDA runtime call failed: {name}")
    return result[1] if len(result) == 2 else result[1:]


def make_copy_attributes(src_access_order, overlap_with_compute=True):
    attrs = cudart.cudaMemcpyAttributes()
    attrs.srcAccessOrder = src_access_order
    if overlap_with_compute:
        attrs.flags = cudart.cudaMemcpyFlags.cudaMemcpyFlagPreferOverlapWithCompute
    return attrs
