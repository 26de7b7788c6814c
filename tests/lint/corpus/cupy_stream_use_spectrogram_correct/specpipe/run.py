"""Splits a long recording into chunks and spreads them over the GPUs."""

import sys

import cupy
import numpy as np

from specpipe.sink import SpectrogramSink
from specpipe.worker import Chunk, GpuWorker


def main(wav_path: str, out_path: str, chunk_seconds: float = 30.0, rate: int = 48000) -> None:
    audio = np.load(wav_path, mmap_mode="r")
    sink = SpectrogramSink(out_path)
    workers = [GpuWorker(d, sink) for d in range(cupy.cuda.runtime.getDeviceCount())]
    for w in workers:
        w.start()
    step = int(chunk_seconds * rate)
    for i, lo in enumerate(range(0, len(audio), step)):
        workers[i % len(workers)].submit(Chunk(i, np.ascontiguousarray(audio[lo:lo + step])))
    for w in workers:
        w.submit(None)
    for w in workers:
        w.join()
    sink.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
