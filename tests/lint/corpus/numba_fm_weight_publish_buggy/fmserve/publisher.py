"""Moves weights from the online trainer to the scorer."""
import logging
import queue
import threading

log = logging.getLogger(__name__)


class WeightPublisher(threading.Thread):
    def __init__(self, scorer, updates: "queue.Queue"):
        super().__init__(name="fm-publisher", daemon=True)
        self.scorer = scorer
        self.updates = updates

    def run(self):
        while True:
            item = self.updates.get()
            if item is None:
                break
            version, bias, w, v = item
            # coalesce: only the newest pending version is worth uploading
            while True:
                try:
                    newer = self.updates.get_nowait()
                except queue.Empty:
                    break
                if newer is None:
                    return
                version, bias, w, v = newer
            self.scorer.publish(bias, w, v)
            log.info("serving FM weights v%d", version)
