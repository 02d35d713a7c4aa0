@area-node_lifecycle @realtime
Feature: Node lifecycle in real time: a node goes silent, comes back, the control plane restarts
  The node lifecycle features elsewhere place time at the boundaries with a manual clock. These
  scenarios say time only through the profile's durations and check only with polling steps, so
  they hold on a manual clock and in real time alike — in particular on a rig whose boards play
  node-a and node-b: there "stops renewing its lease" holds the board in reset (EN low, the port
  kept open) and "renews its lease again" releases it, and the board's own kubelet runs the pods.

  Background:
    Given a kube32 control plane
    And these Ready nodes:
      | name   | memory |
      | node-a | 200Ki  |
      | node-b | 200Ki  |

  @clause-NODE-NOTREADY-AT-LEASE-DURATION @clause-NODE-NOTREADY-NOSCHEDULE-TAINT @clause-NODE-NOTREADY-EVENT
  @clause-NODE-NOEXECUTE-AFTER-DELAY @clause-NODE-EVICT-AT-TOLERATION-EXPIRY @clause-NODE-EVICT-REBIND
  Rule: a silent node turns Unknown, is tainted unreachable, and its pod moves to a Ready node

    Scenario: node-a goes silent; its pod ends up on node-b
      Given pod "p" is running on node "node-a"
      When node "node-a" stops renewing its lease
      And the lease duration passes
      And the lifecycle check interval passes
      Then node "node-a" has condition "Ready" "Unknown" with reason "NodeStatusUnknown"
      And node "node-a" has taint "node.kubernetes.io/unreachable:NoSchedule"
      When the NoExecute delay passes
      And the lifecycle check interval passes
      Then node "node-a" has taint "node.kubernetes.io/unreachable:NoExecute"
      # the event has no deadline of its own: looked for once the NoExecute delay has passed too
      And there is a "Normal" event "NodeNotReady" about node "node-a"
      # the default toleration (300 s on hardware) runs out: the pod is evicted and bound again
      When the default toleration passes
      And the reconcile interval passes
      Then pod "p" is bound to node "node-b"

  @clause-NODE-RECOVERY-CLEARS-TAINTS
  Rule: a renewal after the silence clears both unreachable taints and records NodeReady

    Scenario: node-a comes back after its NoExecute taint
      When node "node-a" stops renewing its lease
      And the lease duration passes
      And the NoExecute delay passes
      And the lifecycle check interval passes
      Then node "node-a" has taint "node.kubernetes.io/unreachable:NoExecute"
      When node "node-a" renews its lease again
      And the lifecycle check interval passes
      # (Ready comes back with the kubelet's own status report: whether the controller writes it
      # first is our reading, judged in node_lifecycle/recovery.feature)
      Then node "node-a" has no taint "node.kubernetes.io/unreachable:NoSchedule"
      And node "node-a" has no taint "node.kubernetes.io/unreachable:NoExecute"
      # the event has no deadline of its own: looked for a renew interval later
      When the lease renew interval passes
      Then there is a "Normal" event "NodeReady" about node "node-a"

  @clause-NODE-RESTART-GRACE @needs-restart
  Rule: a control-plane restart does not time out nodes that keep renewing

    Scenario: after a restart node-a stays Ready while the silent node-b still times out
      When the control plane restarts
      Then node "node-a" stays Ready
      When node "node-b" stops renewing its lease
      And the lease duration passes
      And the lifecycle check interval passes
      Then node "node-b" has condition "Ready" "Unknown" with reason "NodeStatusUnknown"
      And node "node-a" stays Ready
