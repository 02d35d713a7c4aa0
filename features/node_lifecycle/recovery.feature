@area-node_lifecycle
Feature: A renewed Lease brings an unreachable node back
  When a timed-out node renews its Lease again, the controller removes both unreachable taints
  (NoSchedule and NoExecute), the node is Ready again and a NodeReady event is recorded. Pods
  that were still bound to the node stay bound and keep running.

  Background:
    Given a kube32 control plane
    And these Ready nodes:
      | name   | memory |
      | node-a | 200Ki  |
    And pod "web" is running on node "node-a"
    When node "node-a" renews its lease for the last time
    And the lease duration passes
    And the NoExecute delay passes
    And the lifecycle check interval passes
    Then node "node-a" has taint "node.kubernetes.io/unreachable:NoExecute"

  @clause-NODE-RECOVERY-CLEARS-TAINTS
  Rule: a renewal removes both unreachable taints, makes the node Ready and records NodeReady

    Scenario: both taints go within one check of the renewal
      # the kubelet that comes back also posts its status, so the node is Ready whether or not the
      # controller writes Ready back itself (that it does is our reading, judged further below)
      When the NoExecute taint on node "node-a" is 60 seconds old
      # a minute of silence takes nothing away: only the renewal does
      Then node "node-a" has taint "node.kubernetes.io/unreachable:NoSchedule"
      And node "node-a" has taint "node.kubernetes.io/unreachable:NoExecute"
      And there is no "NodeReady" event about node "node-a"
      When node "node-a" renews its lease again
      And the kubelet on node "node-a" reports node status
      And the lifecycle check interval passes
      Then node "node-a" has no taint "node.kubernetes.io/unreachable:NoExecute"
      And node "node-a" has no taint "node.kubernetes.io/unreachable:NoSchedule"
      And node "node-a" is Ready
      And the "NodeReady" event about node "node-a" came within the check interval
      When the lease renew interval passes
      Then there is a "Normal" event "NodeReady" about node "node-a"

    Scenario: the recovered node stays Ready while it keeps renewing
      # a controller that recovers the node only for one check would time it out again
      When the NoExecute taint on node "node-a" is 60 seconds old
      And node "node-a" renews its lease again
      And the kubelet on node "node-a" reports node status
      And 60 seconds pass
      Then node "node-a" stays Ready
      And node "node-a" has no taint "node.kubernetes.io/unreachable:NoSchedule"

    @interpretation
    Scenario: the controller writes Ready back with the kubelet's reason; the event reads as upstream's
      When the NoExecute taint on node "node-a" is 60 seconds old
      And node "node-a" renews its lease again
      And the lifecycle check interval passes
      Then node "node-a" has condition "Ready" "True" with reason "KubeletReady"
      And a "Normal" event "NodeReady" about node "node-a" says:
        """
        Node node-a status is now: NodeReady
        """
      And the "NodeReady" event about node "node-a" comes from "node-controller"

    @interpretation
    Scenario: recovery also happens after evictions have started
      When I create a pod "gone" with:
        """
        spec:
          nodeName: node-a
          containers: [{name: main, image: kube32/app:1}]
          tolerations:
            - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 0}
        """
      And the lifecycle check interval passes
      Then pod "gone" is not bound
      When node "node-a" renews its lease again
      And the lifecycle check interval passes
      Then node "node-a" has no taint "node.kubernetes.io/unreachable:NoExecute"
      And node "node-a" is Ready

  @clause-NODE-RECOVERY-PODS-STAY
  Rule: pods still bound when the node recovers stay bound and keep running

    Scenario: a pod with the default toleration outlives its eviction time after recovery
      When the NoExecute taint on node "node-a" is 10 seconds old
      And node "node-a" renews its lease again
      # the taint is gone now; eviction would have been due when the default toleration ran out
      And the NoExecute taint on node "node-a" is older than the default toleration
      Then pod "web" still runs on node "node-a"

    Scenario: a renewal keeps the pods still tolerated, not those whose toleration ran out before it
      # the renewal comes 30 s after the taint: after the 20 s toleration of "brief" ran out, well
      # before the default one of "web". A controller that waits for the node to come back before
      # it evicts anybody keeps "brief"; one that evicts everybody on the node takes "web" too
      When I create a pod "brief" with:
        """
        spec:
          nodeName: node-a
          containers: [{name: main, image: kube32/app:1}]
          tolerations:
            - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 20}
        """
      And the NoExecute taint on node "node-a" is just over 20 seconds old
      Then pod "brief" is not bound
      When the NoExecute taint on node "node-a" is 30 seconds old
      And node "node-a" renews its lease again
      And the NoExecute taint on node "node-a" is older than the default toleration
      Then pod "web" still runs on node "node-a"
      # the renewal undoes no eviction that already happened
      And pod "brief" has status reason "Evicted"
