WRITE_POLICIES = ("write_through", "write_through_selective", "write_back")
IO_BACKENDS = ("direct",)
HOST_LAYOUTS = ("page_first",)

DEFAULT_PAGE_SIZE = 64
DEFAULT_HICACHE_RATIO = 2.0
