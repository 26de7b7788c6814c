"""CPU tier for a vLLM fork's KV offloading connector.

A spec yields one handler per direction; the connector's worker registers them by
(source medium, destination medium) and routes each transfer job to its handler. Each
handler moves blocks with vLLM's batched swap op over pinned descriptor tables, on a
stream taken from a pool.
"""
