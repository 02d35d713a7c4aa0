"""Kubelet clauses (@needs-real-kubelet) have no faults here: this harness runs scenarios against the
in-process reference, whose nodes are the runner's fake kubelets, so those scenarios are disabled.

Their sensitivity is proven on a virtual rig instead, by patching the virtual node firmware:
``tests/harness/test_rig_sensitivity.py`` (kubelet-renews-20-percent-late,
kubelet-declares-default-duration, kubelet-forgets-running-pods, kubelet-admits-any-hardware,
kubelet-admits-impossible-pin, kubelet-refuses-every-pin).
"""
