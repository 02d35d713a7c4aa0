@area-node_lifecycle @needs-restart
Feature: The simulator's --not-ready-timeout and --eviction-timeout
  The simulator's lifecycle timeouts are configurable. --not-ready-timeout replaces the 15 s
  after which a node whose Lease declares no leaseDurationSeconds turns Unknown, and the further
  15 s until the NoExecute taint; --eviction-timeout replaces the 300 s of the default
  tolerations. Scenarios here restart the control plane with the flags, so they run on targets
  that can do that (the in-process reference); others report them disabled.

  Background:
    Given a kube32 control plane
    And the control plane runs with --not-ready-timeout 6 and --eviction-timeout 20

  @clause-NODE-SIMULATOR-TIMEOUT-FLAGS @interpretation
  Rule: every timed step of the lifecycle follows the two flags

    Scenario: a Lease without a duration lapses at 6 s; pods get 20 s tolerations
      Given a Ready node "node-b" whose lease declares no duration
      And pod "web" is running on node "node-b"
      Then pod "web" has exactly these tolerations:
        | key                            | operator | effect    | tolerationSeconds |
        | node.kubernetes.io/not-ready   | Exists   | NoExecute | 20                |
        | node.kubernetes.io/unreachable | Exists   | NoExecute | 20                |
      When node "node-b" renews its lease for the last time
      And almost 6 seconds pass
      # an ignored flag leaves the 15 s default: still Ready long after this
      Then node "node-b" is Ready
      When the lifecycle check interval passes
      Then node "node-b" has condition "Ready" "Unknown" with reason "NodeStatusUnknown"

    Scenario: NoExecute 6 s after Unknown, eviction 20 s after that
      Given a Ready node "node-b" whose lease declares no duration
      And pod "web" is running on node "node-b"
      When node "node-b" renews its lease for the last time
      And almost 12 seconds pass
      # the default 15 s NoExecute delay would leave none until 21 s
      Then node "node-b" has no taint "node.kubernetes.io/unreachable:NoExecute"
      And node "node-b" has taint "node.kubernetes.io/unreachable:NoSchedule"
      When the lifecycle check interval passes
      Then node "node-b" has taint "node.kubernetes.io/unreachable:NoExecute"
      When the NoExecute taint on node "node-b" is almost 20 seconds old
      Then pod "web" still runs on node "node-b"
      When the NoExecute taint on node "node-b" is just over 20 seconds old
      # the default 300 s toleration would keep it
      Then pod "web" is not bound

    Scenario: a Lease that declares its own duration is not shortened by --not-ready-timeout
      # --not-ready-timeout only stands in for a missing leaseDurationSeconds
      Given these Ready nodes:
        | name   | memory |
        | node-a | 200Ki  |
      When node "node-a" renews its lease for the last time
      And almost the lease duration passes
      Then node "node-a" is Ready
      When the lifecycle check interval passes
      Then node "node-a" has condition "Ready" "Unknown" with reason "NodeStatusUnknown"
