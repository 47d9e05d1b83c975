"""Exporters (TorchScript, ONNX, TensorRT), their strategy chain, precision casts and the typed export result."""
