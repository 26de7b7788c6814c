import json

from .config import MinHashConfig
from .signer import GpuMinHasher
from .sink import SignatureSink


def run(jsonl_path, out_path, config=None):
    config = config or MinHashConfig()
    hasher = GpuMinHasher(config)
    sink = SignatureSink(out_path, config.bands, config.rows_per_band)
    ids, texts = [], []
    with open(jsonl_path) as fh:
        for line in fh:
            doc = json.loads(line)
            ids.append(doc["id"])
            texts.append(doc["text"])
            if len(texts) == config.batch_docs:
                hasher.sign_batch(ids, texts, sink)
                ids, texts = [], []
    if texts:
        hasher.sign_batch(ids, texts, sink)
    sink.close()
    return sink.buckets
