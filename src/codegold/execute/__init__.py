"""Where codegold's work runs: in this process, on its threads, on worker processes, or
on a Ray cluster. Every pool of threads or processes codegold starts lives here.

An :class:`Executor` maps one picklable, module-level function over a list of picklable
jobs and hands the results back to the caller as ``(position, result)`` pairs as they
finish. The caller (the driver) writes every output; the function only returns records.
An :class:`OrderedExecutor` also streams: jobs from a lazy iterable, at most a window of
them in flight, results in submission order. The implementations:

* :class:`LocalExecutor` runs each job here, in order (today's behaviour, and the test
  double for the code that hands jobs to an executor);
* :class:`~codegold.execute.threads.ThreadExecutor` runs jobs on threads of this process
  (``run``'s cases, whose retrievers mostly wait);
* :class:`~codegold.execute.processes.ProcessExecutor` runs jobs in forked worker
  processes that never outlive the caller, its failures worded by the caller (the
  build's chunking workers);
* :class:`~codegold.execute.rayexec.RayExecutor` runs each job as a Ray task, on a local
  Ray (``ray``) or an existing cluster (``ray://HOST:PORT``); Ray is imported only then.

``--executor`` values are parsed by :func:`parse_executor`; :func:`open_executor` turns
one into a running executor (a context manager that shuts down what it started).
"""

from __future__ import annotations

from codegold.execute.base import Executor, LocalExecutor, OrderedExecutor
from codegold.execute.processes import PoolWording, ProcessExecutor, available_cpus
from codegold.execute.spec import EXECUTOR_HELP, ExecutorSpec, open_executor, parse_executor
from codegold.execute.threads import ThreadExecutor

__all__ = ["EXECUTOR_HELP", "Executor", "ExecutorSpec", "LocalExecutor", "OrderedExecutor",
           "PoolWording", "ProcessExecutor", "ThreadExecutor", "available_cpus",
           "open_executor", "parse_executor"]
