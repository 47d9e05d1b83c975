"""What a request the server refused becomes: one :class:`~core.errors.ClientError` in the toolkit's words."""

from __future__ import annotations

import numpy as np

from core.errors import ClientError

#: gRPC's default message limit is 4 MiB; responses of large tensors need more.
GRPC_MAX_MESSAGE_BYTES = 1 << 30

#: How runtimes say an integer input indexed past a table (torch; ONNX Runtime's Gather).
INDEX_PAST_TABLE = ("index out of range", "out of data bounds")


def refusal(model: str, message: str, inputs: dict[str, np.ndarray], log: str) -> ClientError:
    """The error for a request the server refused (``log``: where that server's log is, in words:
    :func:`clients.runtimes.host.log_where`): its message, or, for an integer value past a
    table the model indexes (torch's ``index out of range in self``, under a TorchScript
    traceback; ONNX Runtime's Gather ``indices element out of data bounds``), one line naming the
    integer inputs' values sent and what to send instead."""
    if not any(s in message.lower() for s in INDEX_PAST_TABLE):
        return ClientError(
            f"{model}: request refused: {message}",
            hint=_hint(message)
            or "the server's words above say which input or setting it refused; without --input-data, "
            f"`clients infer` sends inputs the build verified; for the rest, {log}",
        )
    sent = "; ".join(
        f"{k!r} {int(v.min())}..{int(v.max())}" for k, v in inputs.items() if np.issubdtype(v.dtype, np.integer) and v.size
    )
    last = next((ln.strip() for ln in reversed(message.strip().splitlines()) if ln.strip()), message)
    return ClientError(
        f"{model}: request refused: an integer input holds an index past a table the model indexes (an embedding's "
        f"num_embeddings): integer inputs sent: {sent or 'none'} (the server: {last})",
        hint="send values the model accepts (token ids 0..num_embeddings-1); the build's value_range of each input, which "
        "its verification used, is what `clients infer -r REPOSITORY` draws from without --input-data",
    )


def _hint(message: str) -> str | None:
    m = message.lower()
    if "received message larger than max" in m or "resource_exhausted" in m:
        return f"the response exceeds the gRPC message limit; make_client raises it to {GRPC_MAX_MESSAGE_BYTES} bytes, use HTTP or smaller batches"
    return None
