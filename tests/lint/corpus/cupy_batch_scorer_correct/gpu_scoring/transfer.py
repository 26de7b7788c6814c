import numpy

import cupy


def upload(dev: cupy.ndarray, host: numpy.ndarray, stream: cupy.cuda.Stream) -> None:
    dev.set(host, stream=stream)
