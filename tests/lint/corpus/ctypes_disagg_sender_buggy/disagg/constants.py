CUDART_SONAME = "libcudart.so.12"

cudaMemcpyDeviceToHost = 2
cudaStreamNonBlocking = 0x01
cudaEventDisableTiming = 0x02

cudaMemcpySrcAccessOrderStream = 1
cudaMemcpySrcAccessOrderDuringApiCall = 2
cudaMemcpySrcAccessOrderAny = 3

cudaMemcpyFlagPreferOverlapWithCompute = 0x1

GATHER_SRC_ORDER = cudaMemcpySrcAccessOrderDuringApiCall
WIRE_HEADER_FMT = "<QQ"
