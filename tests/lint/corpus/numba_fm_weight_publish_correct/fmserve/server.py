import queue

from .publisher import WeightPublisher
from .scorer import FMScorer


def serve(initial, batches, updates: "queue.Queue", emit):
    bias, w, v = initial
    scorer = FMScorer(bias, w, v)
    publisher = WeightPublisher(scorer, updates)
    publisher.start()
    previous = None
    for request_ids, indices, values, nnz in batches:
        pending = scorer.score_async(indices, values, nnz)
        if previous is not None:
            emit(previous[0], previous[1].result())
        previous = (request_ids, pending)
    if previous is not None:
        emit(previous[0], previous[1].result())
    updates.put(None)
    publisher.join()
