@area-node_lifecycle
Feature: A node whose Lease lapses becomes Ready Unknown, then unreachable for NoExecute
  Every kubelet renews a Lease in kube-node-lease. The node lifecycle controller checks the
  renewals every check interval (1 s on hardware, 500 ms on the simulator). When a Lease has
  not been renewed for its own leaseDurationSeconds, the node's Ready condition turns Unknown,
  the node is tainted node.kubernetes.io/unreachable:NoSchedule and a NodeNotReady event is
  recorded. A further 15 s later the node also gets node.kubernetes.io/unreachable:NoExecute,
  stamped with timeAdded.

  Timing in these scenarios, within the bounds the document gives: nothing may happen before
  the threshold T (renewTime + the duration) and it must have happened one check interval after
  it. "almost <duration> passes" stands just short of T, and the lifecycle check interval that
  follows it ends at T + one check interval. Nothing is assumed about when the controller's
  checks fall; it may measure from the renewTime the board wrote or from the check that saw it.

  Background:
    Given a kube32 control plane
    And these Ready nodes:
      | name   | memory |
      | node-a | 200Ki  |

  @clause-NODE-NOTREADY-AT-LEASE-DURATION @clause-NODE-CHECK-INTERVAL
  Rule: the node becomes Ready Unknown when its Lease has gone unrenewed for the Lease's duration

    Scenario: a 15 s Lease lapses at 15 s, not a check earlier and not a check later
      When node "node-a" renews its lease for the last time
      And almost the lease duration passes
      # one check early would already say Unknown here
      Then node "node-a" is Ready
      When the lifecycle check interval passes
      # one check late would still say Ready here
      Then node "node-a" has condition "Ready" "Unknown" with reason "NodeStatusUnknown"

    Scenario Outline: the threshold is the duration the Lease itself declares (<seconds> s)
      Given a Ready node "node-b" whose lease declares <seconds> seconds
      When node "node-b" renews its lease for the last time
      And almost <seconds> seconds pass
      Then node "node-b" is Ready
      When the lifecycle check interval passes
      Then node "node-b" has condition "Ready" "Unknown" with reason "NodeStatusUnknown"

      Examples:
        | seconds | why                                                                 |
        | 4       | a controller that always waits the default 15 s still says Ready     |
        | 25      | a controller that always waits the default 15 s already says Unknown |

    Scenario: a node that keeps renewing stays Ready
      # rules out a controller that counts from the node's first renewal, or never sees renewals
      When 60 seconds pass
      Then node "node-a" stays Ready
      And node "node-a" has no taint "node.kubernetes.io/unreachable:NoSchedule"

  @clause-NODE-CHECK-INTERVAL
  Rule: the controller checks the renewals every check interval, whatever its phase

    Scenario: three leases lapsing two thirds of a check interval apart each time out within a check
      # a controller checking every other interval lets at least one of the three go late
      Given a Ready node "node-b" whose lease declares 15 seconds
      And a Ready node "node-c" whose lease declares 15 seconds
      When nodes "node-a, node-b, node-c" renew their leases for the last time, two thirds of a check interval apart
      Then each of them turns Ready Unknown within one check interval of its own threshold, not before

  @clause-NODE-NOTREADY-AT-LEASE-DURATION @interpretation
  Rule: the Unknown condition carries upstream's message and the time of the change

    Scenario: message and lastTransitionTime of the Unknown Ready condition
      When node "node-a" renews its lease for the last time
      And the lease duration passes
      And the lifecycle check interval passes
      Then node "node-a" has a Ready condition "Unknown" saying "Kubelet stopped posting node status." since the last check interval

  @clause-NODE-THRESHOLD-DEFAULT
  Rule: a Lease that declares no duration lapses after the not-ready timeout (15 s, --not-ready-timeout)

    Scenario: no leaseDurationSeconds: the not-ready timeout applies
      Given a Ready node "node-b" whose lease declares no duration
      When node "node-b" renews its lease for the last time
      And almost the not-ready timeout passes
      Then node "node-b" is Ready
      When the lifecycle check interval passes
      Then node "node-b" has condition "Ready" "Unknown" with reason "NodeStatusUnknown"

  @clause-NODE-NOTREADY-NOSCHEDULE-TAINT
  Rule: with the Unknown condition comes the unreachable NoSchedule taint

    Scenario: the NoSchedule taint appears at the threshold, not before
      When node "node-a" renews its lease for the last time
      And almost the lease duration passes
      Then node "node-a" has no taint "node.kubernetes.io/unreachable:NoSchedule"
      When the lifecycle check interval passes
      Then node "node-a" has taint "node.kubernetes.io/unreachable:NoSchedule"
      # NoExecute belongs to the next step of the timeline, 15 s later
      And node "node-a" has no taint "node.kubernetes.io/unreachable:NoExecute"

  @clause-NODE-NOTREADY-EVENT
  Rule: a node going from Ready to Unknown produces a NodeNotReady event

    Scenario: no NodeNotReady event before the threshold, one after it
      When node "node-a" renews its lease for the last time
      And almost the lease duration passes
      # an event for a node that has not timed out yet is a false alarm
      Then there is no "NodeNotReady" event about node "node-a"
      When the lifecycle check interval passes
      # our reading: it is recorded with the change itself (the document gives it no deadline)
      Then the "NodeNotReady" event about node "node-a" came within the check interval
      When the NoExecute delay passes
      # a controller that never records it has none, however long it had
      Then there is a "Normal" event "NodeNotReady" about node "node-a"

    @interpretation
    Scenario: the NodeNotReady event reads as upstream's and comes from node-controller
      When node "node-a" renews its lease for the last time
      And the lease duration passes
      And the lifecycle check interval passes
      Then a "Normal" event "NodeNotReady" about node "node-a" says:
        """
        Node node-a status is now: NodeNotReady
        """
      And the "NodeNotReady" event about node "node-a" comes from "node-controller"
      When 60 seconds pass
      # one event per transition, not one per check
      Then node "node-a" has exactly one "NodeNotReady" event counted once

  @clause-NODE-NOEXECUTE-AFTER-DELAY @clause-NODE-CHECK-INTERVAL
  Rule: 15 s after the node turned Unknown it also gets the unreachable NoExecute taint, with timeAdded

    Scenario: NoExecute at 30 s without renewal, not a check earlier or later
      When node "node-a" renews its lease for the last time
      And the lease duration passes
      And almost the NoExecute delay passes
      Then node "node-a" has taint "node.kubernetes.io/unreachable:NoSchedule"
      And node "node-a" has no taint "node.kubernetes.io/unreachable:NoExecute"
      When the lifecycle check interval passes
      Then node "node-a" has taint "node.kubernetes.io/unreachable:NoExecute"
      And the NoExecute taint on node "node-a" was added within the last check interval
      And the NoExecute taint on node "node-a" was added 30 seconds after its last renewal

    Scenario: the NoExecute delay counts from the Lease's own timeout (4 s + 15 s)
      # a controller that adds NoExecute at a fixed 30 s would still have none at 19 s
      Given a Ready node "node-b" whose lease declares 4 seconds
      When node "node-b" renews its lease for the last time
      And 4 seconds pass
      And almost the NoExecute delay passes
      Then node "node-b" has no taint "node.kubernetes.io/unreachable:NoExecute"
      When the lifecycle check interval passes
      Then node "node-b" has taint "node.kubernetes.io/unreachable:NoExecute"
