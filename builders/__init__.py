"""PyTorch -> TorchScript / ONNX / TensorRT exports and Triton model-repository variants."""
