import queue
from typing import Iterable

import numpy as np

from tiledrain.drain import DrainWorker
from tiledrain.producer import TileProducer
from tiledrain.settings import QUEUE_DEPTH, TILES_PER_BATCH


def run_pipeline(tiles: Iterable[np.ndarray], out_dir: str, tiles_per_batch: int = TILES_PER_BATCH) -> int:
    handoff: queue.Queue = queue.Queue(maxsize=QUEUE_DEPTH)
    writer = DrainWorker(handoff, out_dir, max_rows=tiles_per_batch)
    writer.start()
    producer = TileProducer(tiles_per_batch, handoff)
    for tile in tiles:
        producer.push(np.asarray(tile, dtype=np.float32))
    producer.flush()
    writer.join()
    return writer.written
