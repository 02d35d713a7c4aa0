@area-node_lifecycle @needs-restart
Feature: Lease timing across a control-plane restart
  After the control plane restarts, a node that was Ready is given a whole lease duration,
  counted from the restart, before it can time out. NoExecute taints are persisted with their
  timeAdded, so tolerations keep counting from it and nobody is evicted early, late or twice.

  Background:
    Given a kube32 control plane
    And these Ready nodes:
      | name   | memory |
      | node-a | 200Ki  |

  @clause-NODE-RESTART-GRACE
  Rule: after a restart a Ready node gets its full lease duration before it times out

    Scenario: about to time out at the restart, still Ready almost a lease duration after it
      When node "node-a" renews its lease for the last time
      And almost the lease duration passes
      And the control plane restarts
      # without the grace the node would time out within a check interval of the restart
      And almost the lease duration passes
      Then node "node-a" is Ready
      When the lifecycle check interval passes
      Then node "node-a" has condition "Ready" "Unknown" with reason "NodeStatusUnknown"

    @interpretation
    Scenario: a node that had already timed out gets no grace
      # a controller that starts every node afresh would call it Ready again
      When node "node-a" renews its lease for the last time
      And the lease duration passes
      And the lifecycle check interval passes
      Then node "node-a" has condition "Ready" "Unknown" with reason "NodeStatusUnknown"
      When the control plane restarts
      And 2 check intervals pass
      Then node "node-a" has condition "Ready" "Unknown" with reason "NodeStatusUnknown"
      And node "node-a" has taint "node.kubernetes.io/unreachable:NoSchedule"

  @clause-NODE-RESTART-KEEPS-TIMEADDED
  Rule: after a restart NoExecute tolerations keep counting from the persisted timeAdded

    Scenario: a restart while the default toleration runs: eviction still when it runs out
      Given pod "web" is running on node "node-a"
      When node "node-a" renews its lease for the last time
      And the lease duration passes
      And the NoExecute delay passes
      And the lifecycle check interval passes
      And the NoExecute taint on node "node-a" is 10 seconds old
      And the control plane restarts
      And 2 check intervals pass
      Then the NoExecute taint on node "node-a" still has the timeAdded it had before
      When the NoExecute taint on node "node-a" is almost as old as the default toleration
      Then pod "web" still runs on node "node-a"
      When the NoExecute taint on node "node-a" is older than the default toleration
      # a controller that restarted the count would wait 10 s longer
      Then pod "web" is not bound
      # evicted, not deleted (its status may follow a pass later)
      When the lifecycle check interval passes
      Then pod "web" has status reason "Evicted"
