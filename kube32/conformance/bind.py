"""The one place features are bound to tests: every scenario under the features directory.

Run it with pytest: ``pytest --pyargs kube32.conformance.bind [--target ...]``. The features come
from ``KUBE32_FEATURES`` or the ``features`` package installed with the toolkit; ``run`` narrows them
to the files its selection needs (``KUBE32_FEATURE_FILES``).
"""

from pytest_bdd import scenarios

from kube32.conformance.suite import bound_paths

scenarios(*bound_paths())
