"""cudaMemcpyAttributes per direction, kept as plain dicts so that a deployment can override a
field from the connector's extra config without touching the copy code."""

from typing import Any, Dict, Optional

from cuda.bindings import runtime as cudart

_Order = cudart.cudaMemcpySrcAccessOrder
_Flags = cudart.cudaMemcpyFlags

COPY_ATTRIBUTES: Dict[str, Dict[str, Any]] = {
    # device KV blocks -> pinned host; the store stream already waits for the step's
    # compute-done event, so let the copy engine start as early as it can
    "store": {
        "srcAccessOrder": _Order.cudaMemcpySrcAccessOrderAny,
        "flags": _Flags.cudaMemcpyFlagPreferOverlapWithCompute,
    },
    # pinned host -> device KV blocks: nothing writes a host block while it is being loaded
    "load": {
        "srcAccessOrder": _Order.cudaMemcpySrcAccessOrderAny,
        "flags": _Flags.cudaMemcpyFlagPreferOverlapWithCompute,
    },
}


def make_attributes(direction: str, overrides: Optional[Dict[str, Any]] = None) -> cudart.cudaMemcpyAttributes:
    fields = dict(COPY_ATTRIBUTES[direction])
    fields.update(overrides or {})
    attrs = cudart.cudaMemcpyAttributes()
    for name, value in fields.items():
        setattr(attrs, name, value)
    return attrs
