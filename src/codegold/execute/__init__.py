"""Where codegold's batch work runs: in this process, or on a Ray cluster.

An :class:`Executor` maps one picklable, module-level function over a list of picklable
jobs and hands the results back to the caller as they finish. The caller (the driver)
writes every output; the function only returns records. Two implementations:

* :class:`LocalExecutor` runs each job here, in order (today's behaviour, and the test
  double for the code that hands jobs to an executor);
* :class:`~codegold.execute.rayexec.RayExecutor` runs each job as a Ray task, on a local
  Ray (``ray``) or an existing cluster (``ray://HOST:PORT``); Ray is imported only then.

``--executor`` values are parsed by :func:`parse_executor`; :func:`open_executor` turns
one into a running executor (a context manager that shuts down what it started).
"""

from __future__ import annotations

from codegold.execute.base import Executor, LocalExecutor
from codegold.execute.spec import EXECUTOR_HELP, ExecutorSpec, open_executor, parse_executor

__all__ = ["EXECUTOR_HELP", "Executor", "ExecutorSpec", "LocalExecutor", "open_executor",
           "parse_executor"]
