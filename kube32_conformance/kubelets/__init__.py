"""Fake kubelets the runner plays on targets whose nodes are not real boards."""

from kube32_conformance.kubelets.fake import FakeKubelet as FakeKubelet
