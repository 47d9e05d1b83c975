"""Triton's own rules for a model config and its release table (server, ONNX Runtime, TensorRT versions)."""
