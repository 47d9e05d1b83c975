"""Whose models are on a server: :class:`Tenancy`.

A server the toolkit did not start is someone else's. Before the toolkit loads anything it
records the models loaded there (:func:`loaded_models`); it never replaces, reloads or unloads
one of them: a variant whose name is already loaded is refused (:meth:`Tenancy.claim`) unless
the user allows it by name (``--replace-models``), and then the model is loaded again from the
server's own repository when the toolkit is done (:meth:`Tenancy.restore`), so that the server
is left with the model set it was found with. Only models the toolkit loaded itself are
unloaded (:meth:`Tenancy.may_unload`).

Loaded models are listed from the statistics endpoint (every model loaded, uploaded ones
included) together with the repository index (which lists only the server's own repository:
on the bundled Triton 2.51 a model uploaded through the repository API is loaded and served
but absent from the index).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from clients.runtimes.host import log_where
from clients.runtimes.identity import upload_problem
from clients.runtimes.models import PRESENT_STATES
from clients.runtimes.served import Delivery, Loaded, ServedModel, read_served, variant_differences
from core.errors import ServerError

log = logging.getLogger(__name__)

#: The flag that lets the toolkit replace a model of the same name (said in the refusal).
REPLACE_FLAG = "--replace-models"


def loaded_models(client: Any) -> dict[str, str]:
    """The models loaded on the server behind ``client`` (tritonclient HTTP) now: name -> state
    (``READY``, or ``LOADING``/``UNLOADING`` from the repository index).

    Raises:
        Exception: whatever tritonclient raises (the server does not answer).
    """
    found: dict[str, str] = {}
    for s in client.get_inference_statistics().get("model_stats", []):
        found[s["name"]] = "READY"
    for e in client.get_model_repository_index():
        if e.get("state") in PRESENT_STATES:
            found.setdefault(e["name"], e["state"])
    return dict(sorted(found.items()))


def refuse_foreign(urls: Sequence[str], names: Sequence[str], nothing: str) -> None:
    """Refuse, before anything starts or is written, variants every one of which a model of its name, loaded by
    someone else, holds on every server of ``urls`` (``--url``): the toolkit loads none of them (:meth:`Tenancy.claim`),
    so they would measure nothing (trial 28, T28-14: a sweep of one such variant left an empty run folder). A server
    that does not answer here is left to the command's own connection, which says so.

    Args:
        urls: The servers the toolkit did not start, as ``--url`` gives them.
        names: The variants the command would load (with ``--replace-models`` or ``--no-deploy``, none: not called).
        nothing: What was not done, the refusal's last words (``"nothing was started or measured, and no run folder
            was written"``).

    Raises:
        ServerError: naming the server, each variant and its state there, and :meth:`Tenancy.claim`'s advice.
    """
    import tritonclient.http as th

    from clients.runtimes.remote import parse_endpoint

    held: dict[str, dict[str, str]] = {}
    for url in urls:
        http_url = parse_endpoint(url).http_url
        try:
            with contextlib.closing(th.InferenceServerClient(http_url, connection_timeout=5, network_timeout=10)) as c:
                held[http_url] = loaded_models(c)
        except Exception:  # noqa: BLE001 - not answering is said where the command connects
            return
    if not names or any(n not in found for n in names for found in held.values()):
        return
    where = next(iter(held)) if len(held) == 1 else f"every server of --url ({', '.join(held)})"
    states = ", ".join(f"{n} {next(iter(held.values()))[n]}" for n in names)
    raise ServerError(
        f"every variant is already loaded on the server at {where}, by someone else ({states}): the toolkit does not "
        f"replace, reload or unload models it did not load, so it would load and measure none of them ({REPLACE_FLAG} "
        f"allows it); {nothing}",
        hint=f"measure the served models as they are with --no-deploy, ask their owner to unload them, or pass "
        f"{REPLACE_FLAG} to replace them for the measurement (each is loaded again from the server's own repository "
        "afterwards)",
    )


def repository_names(client: Any) -> set[str]:
    """Names in the server's own repository (its index), loaded or not."""
    return {e["name"] for e in client.get_model_repository_index() if e.get("name")}


@dataclasses.dataclass
class Tenancy:
    """The models of one server and who loaded them (module docstring).

    Attributes:
        found: Models loaded when the toolkit first reached the server (name -> state).
        replace: Whether a model of the same name may be replaced (``--replace-models``).
        url: The server's HTTP endpoint, for messages.
        loads: Whether the toolkit loads models there (``False``: ``--no-deploy``, it only
            measures what is served, claims and unloads nothing).
        repository: The local repository whose variant folders the served models are checked against.
        cpu_count: Cores of the server's host (``None``: another host, not known here).
        ours: Models the toolkit loaded and has not unloaded.
        replaced: Models found there that the toolkit replaced (to be loaded again from the
            server's repository by :meth:`restore`).
    """

    found: dict[str, str]
    replace: bool = False
    url: str = ""
    loads: bool = True
    repository: Path | None = None
    cpu_count: int | None = None
    ours: set[str] = dataclasses.field(default_factory=set)
    replaced: set[str] = dataclasses.field(default_factory=set)

    @classmethod
    def of_server(cls, http_url: str, opts: Any, runtime: Any) -> Tenancy:
        """Record the models loaded on the server at ``http_url`` now, for a server started on
        ``opts`` (a ``ServerOptions``: ``replace_models``, ``repository``) by ``runtime``.

        Raises:
            ServerError: the server does not answer the statistics or repository-index request.
        """
        import tritonclient.http as th

        try:
            with contextlib.closing(th.InferenceServerClient(http_url, network_timeout=30)) as c:
                return cls.snapshot(
                    c,
                    replace=opts.replace_models,
                    url=http_url,
                    loads=runtime.unloads(),
                    repository=Path(opts.repository),
                    cpu_count=os.cpu_count() if runtime.on_this_host() else None,
                )
        except Exception as e:  # noqa: BLE001 - one message
            raise ServerError(
                f"the server at {http_url} did not list its loaded models: {type(e).__name__}: {e}",
                hint=f"check the address and that the server is up and answers GET /v2/repository/index; {log_where(http_url)}",
            ) from None

    @classmethod
    def snapshot(cls, client: Any, **kw: Any) -> Tenancy:
        """Record the models loaded on the server behind ``client`` now (``kw``: the other fields).

        Raises:
            Exception: whatever tritonclient raises (the server does not answer).
        """
        found = loaded_models(client)
        if found:
            log.info("models already loaded on the server at %s: %s", kw.get("url", ""), ", ".join(found))
        return cls(found, **kw)

    def load(
        self, client: Any, model: str, request: Callable[[], Delivery | None], unload: Callable[[str], bool], hint: str
    ) -> Loaded:
        """Load ``model`` by ``request()`` (after :meth:`claim`), read back what the server runs
        and check it is the variant (:meth:`problems`).

        Args:
            client: A tritonclient HTTP client of the server.
            model: The variant.
            request: Sends the load request (a runtime's ``load_model``); what it asked to load.
            unload: Unloads a model and waits until it is gone (a mismatching load of ours is
                unloaded before the error).
            hint: What to do when the served model is not the variant (the runtime's words).

        Raises:
            ServerError: a name collision (:meth:`claim`); the server did not load an upload;
                it runs another config than the variant (the differing fields named).
            Exception: whatever ``request`` or tritonclient raise.
        """
        if self.loads:
            self.claim(client, model)
        started = time.perf_counter()
        delivery = request() or Delivery()
        request_s = time.perf_counter() - started
        if not client.is_model_ready(model):  # the model's own readiness, never the server's
            state = loaded_models(client).get(model) or "not loaded"
            raise ServerError(
                f"{model} is not ready on the server at {self.url} after its load request ({state})",
                hint=f"{log_where(self.url)}; `builders validate` checks the variant's folder",
            )
        served = self.read(client, model, delivery)
        kept = upload_problem(model, delivery.token, served.upload_token)
        if kept:
            raise ServerError(
                f"{kept}; nothing was measured or checked on it", hint="upload it again (a corrupt or partial file fails to load)"
            )
        if self.loads:
            self.loaded(model)
        wrong = self.problems(model, served)
        if wrong:
            if self.loads and unload(model):
                self.unloaded(model)
            raise ServerError(
                f"the server at {self.url} runs {model} with other settings than the variant ({'; '.join(wrong)}): a "
                "result under the variant's name would not be the variant's, so nothing was measured or checked on it",
                hint=hint,
            )
        return Loaded(served, request_s)

    def read(self, client: Any, model: str, delivery: Delivery | None = None) -> ServedModel:
        """What the server runs for ``model`` now (:func:`clients.runtimes.served.read_served`).

        Raises:
            Exception: whatever tritonclient raises.
        """
        return read_served(client, model, delivery, self.cpu_count, self.others(client, model))

    def read_at(self, http_url: str, model: str) -> ServedModel:
        """:meth:`read` over a new client of ``http_url``.

        Raises:
            ServerError: the server does not answer, or the model is not loaded.
        """
        import tritonclient.http as th

        try:
            with contextlib.closing(th.InferenceServerClient(http_url, network_timeout=30)) as c:
                return self.read(c, model)
        except Exception as e:  # noqa: BLE001 - one message
            msg = e.message() if hasattr(e, "message") and callable(e.message) else str(e)
            raise ServerError(
                f"could not read what the server at {http_url} runs for {model}: {msg}",
                hint=f"check that the server is still up and the model loaded, then run again; {log_where(http_url)}",
            ) from None

    def leave(self, http_url: str) -> list[str]:
        """:meth:`restore` over a new client of ``http_url``; never raises (a stop must not).

        Returns:
            What differs from the model set the server was found with, in words.
        """
        import tritonclient.http as th

        from clients.runtimes.models import unload_and_wait

        try:
            with contextlib.closing(th.InferenceServerClient(http_url, network_timeout=60)) as c:
                return self.restore(c, lambda m: unload_and_wait(c, m))
        except Exception as e:  # noqa: BLE001 - said, never raised from a stop
            log.warning("server at %s did not answer when the toolkit was done: %s", http_url, e)
            return [f"the server did not answer when the toolkit was done: {e}"]

    def problems(self, model: str, served: ServedModel) -> list[str]:
        """How ``served`` differs from the variant: its local ``config.pbtxt`` (when readable)
        and its name (when it is a variant name), field by field
        (:func:`clients.runtimes.served.variant_differences`)."""
        return variant_differences(self.repository, model, served.settings)

    def others(self, client: Any, model: str) -> list[str]:
        """Models loaded beside ``model`` now (``[]`` when the server does not answer)."""
        with contextlib.suppress(Exception):
            return [m for m in loaded_models(client) if m != model]
        return []

    def claim(self, client: Any, model: str) -> None:
        """Check that ``model`` may be loaded: a name the toolkit loaded itself, or one no model
        has now; a model of that name that someone else loaded is refused unless ``replace``.

        Raises:
            ServerError: a model of that name is loaded there and was not loaded by the toolkit.
        """
        if model in self.ours:
            return
        state = loaded_models(client).get(model)
        if state is None:
            return
        if not self.replace:
            raise ServerError(
                f"a model named {model} is already {state} on the server at {self.url}, loaded by someone else: the "
                "toolkit does not replace, reload or unload models it did not load, so this variant was not loaded "
                f"and nothing was measured or checked on it ({REPLACE_FLAG} allows it)",
                hint=f"measure the served model as it is with --no-deploy, ask its owner to unload it, or pass "
                f"{REPLACE_FLAG} to replace it for the measurement (it is loaded again from the server's own "
                "repository afterwards)",
            )
        log.warning(
            "%s: replacing the model of that name on %s (%s); reloaded from its repository afterwards",
            model,
            self.url,
            REPLACE_FLAG,
        )
        self.replaced.add(model)

    def loaded(self, model: str) -> None:
        """Record that the toolkit loaded ``model``."""
        self.ours.add(model)

    def may_unload(self, model: str) -> bool:
        """Whether the toolkit loaded ``model`` (so may unload it)."""
        return model in self.ours

    def unloaded(self, model: str) -> None:
        """Record that ``model`` is no longer the toolkit's (unloaded, or put back)."""
        self.ours.discard(model)

    def restore(self, client: Any, unload: Any) -> list[str]:
        """Leave the server with the models it was found with: unload what the toolkit loaded
        and did not unload, load again from the server's repository what it replaced; then
        compare the loaded set with :attr:`found`.

        Args:
            client: A tritonclient HTTP client of the server.
            unload: ``unload(model) -> bool``: unloads and waits until gone.

        Returns:
            What could not be put back, in words (empty when the server is as found).
        """
        problems = []
        for m in sorted(self.ours - self.replaced):
            if not unload(m):
                problems.append(f"{m} (loaded by the toolkit) was not unloaded")
            self.ours.discard(m)
        for m in sorted(self.replaced):
            try:
                if m not in repository_names(client):
                    raise ServerError(
                        f"{m} is not in the server's own repository (it had been uploaded)",
                        hint=f"load {m} again the way it was first loaded (its files and config, through the repository API)",
                    )
                client.load_model(m)
            except Exception as e:  # noqa: BLE001 - said, not raised: the run's results stand
                problems.append(f"{m} (found loaded, replaced with {REPLACE_FLAG}) could not be loaded again: {e}")
            self.ours.discard(m)
        self.replaced.clear()
        try:
            now = loaded_models(client)
        except Exception as e:  # noqa: BLE001
            return [*problems, f"the server did not answer after the run: {e}"]
        gone = sorted(set(self.found) - set(now))
        extra = sorted(set(now) - set(self.found))
        if gone:
            problems.append(f"found loaded before the run, not loaded now: {', '.join(gone)}")
        if extra:
            problems.append(f"loaded now, not before the run: {', '.join(extra)} (someone else's, or the toolkit's leftovers)")
        for p in problems:
            log.warning("server at %s: %s", self.url, p)
        return problems
