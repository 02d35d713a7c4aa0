@area-node_lifecycle @realtime
Feature: Eviction in real time
  The same eviction rules, said only through the profile's durations and checked only with
  polling steps, so they also hold against a target on a real clock started with short timeouts
  (see tests/conformance/test_realtime_http.py). "almost as old as" stands just short of
  timeAdded + the default toleration, "older than" one check interval past it; on a real clock
  the runner adds the latency it measured (see docs/DEVELOPING.md, "Timing verdicts").

  Background:
    Given a kube32 control plane
    And these Ready nodes:
      | name   | memory |
      | node-a | 200Ki  |

  @clause-NODE-EVICT-AT-TOLERATION-EXPIRY @clause-NODE-EVICT-RETURNS-TO-PENDING @clause-NODE-EVICT-EVENT
  Rule: a pod with the default toleration leaves when it runs out, marked DisruptionTarget, with an Evicted event

    Scenario: the default toleration runs out
      Given pod "web" is running on node "node-a"
      When node "node-a" stops renewing its lease
      And the lease duration passes
      And the NoExecute delay passes
      And the lifecycle check interval passes
      Then node "node-a" has taint "node.kubernetes.io/unreachable:NoExecute"
      When the NoExecute taint on node "node-a" is almost as old as the default toleration
      Then pod "web" is bound to node "node-a"
      When the NoExecute taint on node "node-a" is older than the default toleration
      # (it may be bound again at once where other nodes are Ready, so only the eviction is judged)
      Then pod "web" is evicted from node "node-a"
      # the condition and the event may follow the eviction by a pass or more
      When the lease renew interval passes
      Then pod "web" has condition "DisruptionTarget" set to "True"
      And pod "web" has an event "Evicted"

  @clause-NODE-EVICT-NO-TOLERATION
  Rule: a pod without a matching toleration goes as soon as the NoExecute taint is there

    Scenario: a toleration for another value
      When I create a pod "odd" with:
        """
        spec:
          nodeName: node-a
          containers: [{name: main, image: kube32/app:1}]
          tolerations:
            - {key: node.kubernetes.io/unreachable, operator: Equal, value: other, effect: NoExecute}
        """
      And pod "odd" has no toleration matching "node.kubernetes.io/unreachable:NoExecute"
      And the kubelet on node "node-a" starts pod "odd"
      And node "node-a" stops renewing its lease
      And the lease duration passes
      And the NoExecute delay passes
      And the lifecycle check interval passes
      Then node "node-a" has taint "node.kubernetes.io/unreachable:NoExecute"
      And pod "odd" is evicted from node "node-a"

  @clause-NODE-EVICT-NONPOSITIVE-SECONDS
  Rule: zero tolerationSeconds: out as soon as the NoExecute taint is there

    Scenario: a toleration of zero seconds
      When I create a pod "zero" with:
        """
        spec:
          nodeName: node-a
          containers: [{name: main, image: kube32/app:1}]
          tolerations:
            - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 0}
        """
      And the kubelet on node "node-a" starts pod "zero"
      And node "node-a" stops renewing its lease
      And the lease duration passes
      And the NoExecute delay passes
      And the lifecycle check interval passes
      Then node "node-a" has taint "node.kubernetes.io/unreachable:NoExecute"
      And pod "zero" is evicted from node "node-a"

  @clause-NODE-TOLERATE-FOREVER
  Rule: no tolerationSeconds: never out

    Scenario: a toleration without seconds outlasts the default toleration
      When I create a pod "forever" with:
        """
        spec:
          nodeName: node-a
          containers: [{name: main, image: kube32/app:1}]
          tolerations:
            - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute}
        """
      And the kubelet on node "node-a" starts pod "forever"
      And node "node-a" stops renewing its lease
      And the lease duration passes
      And the NoExecute delay passes
      And the lifecycle check interval passes
      Then node "node-a" has taint "node.kubernetes.io/unreachable:NoExecute"
      When the NoExecute taint on node "node-a" is older than the default toleration
      And the lifecycle check interval passes
      Then pod "forever" still runs on node "node-a"
