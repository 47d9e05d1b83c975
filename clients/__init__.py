"""Launching tritonserver and talking to it (tritonclient HTTP/gRPC)."""
