"""What goes wrong between the engine and a Dask cluster, in one place that both the package
(which must not import Dask) and the remote pool (which does) import."""

from __future__ import annotations

from webcrawler.errors import ServiceError


class NoAgentHosts(ServiceError):
    """The agent scheduler could not be reached, or no agent host joined it in time."""
