"""The kube32 conformance runner: a pytest plugin, a step library, target drivers, fake kubelets,
reports and the ``kube32-conformance`` CLI. Talks to targets only over HTTP (and serial for rigs)."""

__version__ = "0.1.0"
