"""Fake kubelets the runner plays on targets whose nodes are not real boards."""

from kube32.conformance.kubelets.fake import FakeKubelet as FakeKubelet
