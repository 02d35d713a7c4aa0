"""The kube32 reference control plane: a Kubernetes-shaped REST API with four control loops.

``create_app(config)`` builds the Flask application; ``kube32-conformance serve`` runs it under
the asyncio HTTP server (serving/) with its control loops. Imports ``spec``; knows nothing of the runner or the rig.
"""

from kube32.reference.app import create_app as create_app
from kube32.reference.config import Config as Config
