"""The one place features are bound to tests: every scenario under the features directory.

Run it with pytest: ``pytest --pyargs kube32_conformance.bind [--target ...]``. The features come
from ``KUBE32_FEATURES`` or the ``features`` package installed with the toolkit.
"""

from pytest_bdd import scenarios

from kube32_conformance.suite import features_dir

scenarios(str(features_dir()))
