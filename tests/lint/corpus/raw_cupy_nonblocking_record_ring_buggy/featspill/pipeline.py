from .spiller import FeatureSpiller


def run(batches, weight, bias, sink, rows, cols):
    spiller = FeatureSpiller(4, rows, cols)
    spiller.load_weights(weight, bias)
    for host_batch in batches:
        spiller.process(host_batch)
    spiller.drain(sink)
