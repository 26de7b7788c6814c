cudaSuccess = 0
cudaMemcpyDeviceToHost = 2
cudaStreamNonBlocking = 0x01
cudaEventDisableTiming = 0x02
cudaHostAllocDefault = 0x00

SNAPSHOT_SLOTS = 2
LIBCUDART_CANDIDATES = ("libcudart.so.12", "libcudart.so")
