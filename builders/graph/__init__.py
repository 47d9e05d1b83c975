"""Graph health of exports (ONNX and TorchScript facts, ``builders inspect``)."""
