"""The model and its I/O: built-in models, loading a user's model, the input spec, outputs, and what an artifact file declares."""
