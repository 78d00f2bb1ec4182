"""``graphhop serve``: an HTTP API and a web page that draws each answer's evidence graph.

``service`` holds the loaded indexes and pipelines, ``limits`` the request bounds, ``app`` the
FastAPI application (``create_app``); ``static/`` the page and its vendored graph library
(cytoscape + cytoscape-dagre, MIT, from the npm registry).
"""

from graphhop.serve.app import create_app
from graphhop.serve.limits import Limits
from graphhop.serve.service import IndexSpec, ServeService, parse_index_spec

__all__ = ["create_app", "Limits", "IndexSpec", "ServeService", "parse_index_spec"]
