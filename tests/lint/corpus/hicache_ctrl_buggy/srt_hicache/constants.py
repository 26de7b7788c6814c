WRITE_THROUGH = "write_through"
WRITE_THROUGH_SELECTIVE = "write_through_selective"
WRITE_BACK = "write_back"
SUPPORTED_WRITE_POLICIES = (WRITE_THROUGH, WRITE_THROUGH_SELECTIVE, WRITE_BACK)

LAYOUT_LAYER_FIRST = "layer_first"
LAYOUT_PAGE_FIRST = "page_first"

# hits needed before a node is backed up under write_through_selective
WRITE_THROUGH_HIT_THRESHOLD = 2
