"""Server runtimes: how ``tritonserver`` is launched (``--runtime``), one module each behind
the :class:`~clients.runtimes.base.Runtime` interface.

- ``bundled`` (:mod:`clients.runtimes.bundled`): the nvidia-pytriton wheel's server, CPU,
  python backend only.
- ``local`` (:mod:`clients.runtimes.local`): a tritonserver on this machine.
- ``container`` (:mod:`clients.runtimes.container`): NVIDIA's image under ``docker run``.
- ``auto`` (:mod:`clients.runtimes.choose`): the first available of local, container, bundled.

:class:`clients.server.TritonServer` runs any of them.
"""
