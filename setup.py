"""Packages of the one import name ``kube32``, mapped from the top-level folders (metadata: pyproject.toml)."""

from setuptools import find_packages, setup

FOLDERS = {                     # import name -> folder in the checkout
    "kube32": "kube32",         # the runner: kube32/conformance
    "kube32.spec": "spec",
    "kube32.features": "features",
    "kube32.reference": "reference",
    "kube32.harness": "hardware_harness",
}

packages = []
for name, folder in FOLDERS.items():
    packages.append(name)
    packages += [f"{name}.{sub}" for sub in find_packages(folder) if f"{name}.{sub}" not in FOLDERS]

setup(packages=packages, package_dir=FOLDERS)
