# Values mirror cuda_runtime_api.h / driver_types.h (CUDA 12.8+).
cudaSuccess = 0
cudaErrorNotReady = 600

cudaStreamNonBlocking = 0x01
cudaEventDisableTiming = 0x02

cudaMemLocationTypeDevice = 1
cudaMemLocationTypeHost = 2

cudaMemcpySrcAccessOrderStream = 1
cudaMemcpyFlagPreferOverlapWithCompute = 0x1

SWAP_OUT_ACCESS_ORDER = cudaMemcpySrcAccessOrderStream
