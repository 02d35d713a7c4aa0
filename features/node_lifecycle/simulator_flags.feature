@area-node_lifecycle
Feature: The simulator's --not-ready-timeout and --eviction-timeout
  The simulator's lifecycle timeouts are configurable. --not-ready-timeout replaces the 15 s
  after which a node whose Lease declares no leaseDurationSeconds turns Unknown; --eviction-timeout
  replaces the 300 s a pod with the default tolerations stays on an unreachable node after the
  NoExecute taint. A target started with other values is judged by them when the runner is told
  (--profile-set not_ready_timeout=… / default_toleration_seconds=…); the in-process reference and
  `--target process` are restarted with the flags instead. That --not-ready-timeout also replaces
  the further 15 s before the NoExecute taint, and that the default tolerations then carry the
  --eviction-timeout as tolerationSeconds, are our readings (judged at reference level).

  Background:
    Given a kube32 control plane

  @clause-NODE-SIMULATOR-TIMEOUT-FLAGS
  Rule: the configured timeouts replace the documented defaults

    Scenario: a Lease without a duration lapses at the configured not-ready timeout
      Given the control plane runs with a not-ready timeout other than the default
      And a Ready node "node-b" whose lease declares no duration
      When node "node-b" renews its lease for the last time
      And almost the not-ready timeout passes
      # a target still on 15 s is Ready long after a shorter timeout, Unknown long before a longer one
      Then node "node-b" is Ready
      When the lifecycle check interval passes
      Then node "node-b" has condition "Ready" "Unknown" with reason "NodeStatusUnknown"

    Scenario: a pod with the default tolerations is evicted at the configured eviction timeout
      Given the control plane runs with an eviction timeout other than the default
      And these Ready nodes:
        | name   | memory |
        | node-a | 200Ki  |
      And pod "web" is running on node "node-a"
      When node "node-a" renews its lease for the last time
      And the lease duration passes
      And the NoExecute delay passes
      And the lifecycle check interval passes
      Then node "node-a" has taint "node.kubernetes.io/unreachable:NoExecute"
      When the NoExecute taint on node "node-a" is almost as old as the default toleration
      # a target still on 300 s keeps the pod long after a shorter timeout
      Then pod "web" still runs on node "node-a"
      When the NoExecute taint on node "node-a" is older than the default toleration
      Then pod "web" is not bound

  @clause-NODE-SIMULATOR-TIMEOUT-FLAGS @interpretation @needs-restart
  Rule: --not-ready-timeout also sets the NoExecute delay; --eviction-timeout the default tolerationSeconds

    Scenario: a Lease without a duration lapses at 6 s; pods get 20 s tolerations
      Given the control plane runs with --not-ready-timeout 6 and --eviction-timeout 20
      And a Ready node "node-b" whose lease declares no duration
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
      Given the control plane runs with --not-ready-timeout 6 and --eviction-timeout 20
      And a Ready node "node-b" whose lease declares no duration
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
      Given the control plane runs with --not-ready-timeout 6 and --eviction-timeout 20
      # --not-ready-timeout only stands in for a missing leaseDurationSeconds
      And these Ready nodes:
        | name   | memory |
        | node-a | 200Ki  |
      When node "node-a" renews its lease for the last time
      And almost the lease duration passes
      Then node "node-a" is Ready
      When the lifecycle check interval passes
      Then node "node-a" has condition "Ready" "Unknown" with reason "NodeStatusUnknown"
