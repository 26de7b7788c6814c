"""Writes signatures and their LSH band keys for the near-duplicate join."""
import hashlib
import struct


class SignatureSink:
    def __init__(self, path, bands, rows_per_band):
        self.bands = bands
        self.rows = rows_per_band
        self._fh = open(path, "ab")
        self.buckets = {}

    def write_batch(self, doc_ids, signatures):
        for doc_id, sig in zip(doc_ids, signatures):
            self._fh.write(struct.pack("<Q", doc_id))
            # expect: KVG003
            self._fh.write(sig.tobytes())
            for band in range(self.bands):
                part = sig[band * self.rows:(band + 1) * self.rows]
                # expect: KVG003
                key = hashlib.blake2b(part.tobytes(), digest_size=8).digest()
                self.buckets.setdefault((band, key), []).append(doc_id)

    def close(self):
        self._fh.close()
