"""ZeRO-Infinity style optimizer-state swapping for a GPU optimizer: sub-groups are stepped one at
a time in a single reusable HBM work buffer; their fp32 master weights and Adam moments are
swapped between NVMe and that buffer through aligned pinned swap buffers."""
