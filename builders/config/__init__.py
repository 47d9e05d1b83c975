"""``config.pbtxt`` variants: the grid, the protobuf ``ModelConfig`` writer and its checks, ``model_warmup``."""
