"""Layout, policy and backend names shared by the hierarchical cache."""

LAYOUT_LAYER_FIRST = "layer_first"
LAYOUT_PAGE_FIRST = "page_first"
SUPPORTED_LAYOUTS = (LAYOUT_LAYER_FIRST, LAYOUT_PAGE_FIRST)

WRITE_THROUGH = "write_through"
WRITE_THROUGH_SELECTIVE = "write_through_selective"
WRITE_BACK = "write_back"
SUPPORTED_WRITE_POLICIES = (WRITE_THROUGH, WRITE_THROUGH_SELECTIVE, WRITE_BACK)

IO_BACKEND_DIRECT = "direct"

# Host pool size relative to the device pool when no explicit size is given.
DEFAULT_HOST_TO_DEVICE_RATIO = 2.0
