import cupy
import numpy


def download_async(src: cupy.ndarray, out: numpy.ndarray,
                   stream: cupy.cuda.Stream) -> numpy.ndarray:
    # expect: KVG001
    return cupy.asnumpy(src, stream=stream, out=out, blocking=False)
