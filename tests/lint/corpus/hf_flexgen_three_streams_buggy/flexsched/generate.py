"""The overlapped generation loop over steps, layers and micro-batches."""

from .engine import OverlapEngine


def generation_loop(engine: OverlapEngine, steps):
    nl, nb = engine.num_layers, engine.num_batches
    for step in range(steps):
        engine.pos = engine.prompt_len + step
        engine.load_weight(0)
        engine.load_cache(0, 0)
        engine.sync()
        for j in range(nl):
            for b in range(nb):
                nj, nxt = (j, b + 1) if b + 1 < nb else (j + 1, 0)
                pj, prv = (j, b - 1) if b > 0 else (j - 1, nb - 1)
                if b == 0:
                    engine.load_weight(j + 1)
                engine.load_cache(nj, nxt)
                engine.compute_layer(j, b)
                engine.store_cache(pj, prv)
                engine.sync()
        engine.store_cache(nl - 1, nb - 1)
        engine.sync()
    return engine.hidden


def run(cpu_weights, num_batches, batch_size, max_len, hidden, prompt_len, steps):
    engine = OverlapEngine(cpu_weights, num_batches, batch_size, max_len, hidden, prompt_len)
    return generation_loop(engine, steps)
