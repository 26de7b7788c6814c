"""Export service: queue of exported slots drained by a writer thread."""

import queue
import threading


class ExportService:
    def __init__(self, agent, spill_path):
        self.agent = agent
        self.spill_path = spill_path
        self.pending = queue.Queue(maxsize=64)
        self.free_slots = queue.Queue()
        for slot_id in range(len(agent.slots)):
            self.free_slots.put(slot_id)
        self.writer = threading.Thread(target=self._drain, name="kv-export-writer", daemon=True)
        self.writer.start()

    def export(self, block_id):
        slot_id = self.free_slots.get()
        done = self.agent.export_block(block_id, slot_id)
        self.pending.put((block_id, slot_id, done))

    def close(self):
        self.pending.put(None)
        self.writer.join()

    def _drain(self):
        with open(self.spill_path, "ab") as f:
            while True:
                item = self.pending.get()
                if item is None:
                    break
                block_id, slot_id, done = item
                f.write(block_id.to_bytes(8, "little"))
                # expect: KVG003
                f.write(self.agent.slots[slot_id].tobytes())
                self.free_slots.put(slot_id)
