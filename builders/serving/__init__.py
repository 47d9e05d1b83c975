"""Running an exported artifact as the served python-backend model does: runners, batching requests, the TensorRT environment."""
