@area-node_lifecycle
Feature: Pods leave an unreachable node when their NoExecute toleration runs out
  Once a node carries node.kubernetes.io/unreachable:NoExecute, each pod on it is judged by
  its tolerations of that taint: no matching toleration, or tolerationSeconds of 0 or less,
  means eviction at once; a toleration without tolerationSeconds means the pod stays for ever;
  otherwise the pod is evicted when tolerationSeconds have passed since the taint's timeAdded
  (330 s without renewal with the default 300 s toleration). Evicting a pod does not delete
  it: spec.nodeName is cleared, the pod is Pending with reason Evicted and a DisruptionTarget
  condition, an Evicted event is recorded, and the scheduler binds it again. Terminating pods
  are removed instead; Succeeded, Failed and DaemonSet pods stay where they are.

  Timing, within the bounds the document gives: a pod must not be evicted before timeAdded + N
  and must be by one check interval later. "almost N seconds old" stands just short of
  timeAdded + N, "just over N seconds old" at timeAdded + N + one check interval. timeAdded is
  taken as written (whole seconds); nothing is assumed about when the controller's checks fall.

  Background:
    Given a kube32 control plane
    And these Ready nodes:
      | name   | memory |
      | node-a | 200Ki  |

  @clause-NODE-EVICT-AT-TOLERATION-EXPIRY
  Rule: a pod is evicted when its tolerationSeconds have passed since the taint's timeAdded

    Scenario: the default toleration (300 s): still running just before it runs out, evicted just after
      Given pod "web" is running on node "node-a"
      When node "node-a" renews its lease for the last time
      And the lease duration passes
      And the NoExecute delay passes
      And the lifecycle check interval passes
      Then node "node-a" has taint "node.kubernetes.io/unreachable:NoExecute"
      When the NoExecute taint on node "node-a" is almost as old as the default toleration
      Then pod "web" still runs on node "node-a"
      When the NoExecute taint on node "node-a" is older than the default toleration
      Then pod "web" is not bound

    Scenario: a 60 s toleration of the unreachable taint
      # a controller that applies the default 300 s regardless would keep the pod
      When I create a pod "web" with:
        """
        spec:
          nodeName: node-a
          containers: [{name: main, image: kube32/app:1}]
          tolerations:
            - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 60}
        """
      And the kubelet on node "node-a" starts pod "web"
      And node "node-a" renews its lease for the last time
      And the lease duration passes
      And the NoExecute delay passes
      And the lifecycle check interval passes
      And the NoExecute taint on node "node-a" is almost 60 seconds old
      Then pod "web" still runs on node "node-a"
      When the NoExecute taint on node "node-a" is just over 60 seconds old
      Then pod "web" is not bound

    @interpretation
    Scenario: of several matching tolerations the smallest tolerationSeconds decides
      # a controller that lets the unlimited toleration win would keep the pod for ever;
      # one that takes the largest would wait 300 s
      When I create a pod "web" with:
        """
        spec:
          nodeName: node-a
          containers: [{name: main, image: kube32/app:1}]
          tolerations:
            - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute}
            - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 300}
            - {operator: Exists, effect: NoExecute, tolerationSeconds: 45}
        """
      And the kubelet on node "node-a" starts pod "web"
      And node "node-a" renews its lease for the last time
      And the lease duration passes
      And the NoExecute delay passes
      And the lifecycle check interval passes
      And the NoExecute taint on node "node-a" is almost 45 seconds old
      Then pod "web" still runs on node "node-a"
      When the NoExecute taint on node "node-a" is just over 45 seconds old
      Then pod "web" is not bound

  @clause-NODE-EVICT-NO-TOLERATION
  Rule: a pod without a matching toleration is evicted as soon as the NoExecute taint is there

    Scenario: a toleration for another value does not match the value-less taint
      # upstream admission counts this toleration as covering the taint (key and effect match), so
      # the pod gets no default unreachable toleration; it still does not match the taint (a target
      # whose admission also compares the value adds the default, and cannot run this scenario)
      Given pod "web" is running on node "node-a"
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
      And node "node-a" renews its lease for the last time
      And the lease duration passes
      And almost the NoExecute delay passes
      # just before the NoExecute taint: NoSchedule alone evicts nobody
      Then pod "odd" still runs on node "node-a"
      When the lifecycle check interval passes
      Then pod "odd" is not bound
      And pod "web" still runs on node "node-a"

    @interpretation
    Scenario: a not-ready NoExecute taint added by hand evicts by the same toleration rules
      # our reading: both taints the default tolerations name are acted on. Rules out acting on
      # the unreachable taint only ("zero" would stay) and evicting whatever the pod tolerates
      # ("forever" would go)
      When I create a pod "zero" with:
        """
        spec:
          nodeName: node-a
          containers: [{name: main, image: kube32/app:1}]
          tolerations:
            - {key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 0}
        """
      And I create a pod "forever" with:
        """
        spec:
          nodeName: node-a
          containers: [{name: main, image: kube32/app:1}]
          tolerations:
            - {key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute}
        """
      And the kubelet on node "node-a" starts pod "zero"
      And the kubelet on node "node-a" starts pod "forever"
      And node "node-a" gets taint "node.kubernetes.io/not-ready:NoExecute"
      And the lifecycle check interval passes
      Then pod "zero" has condition "DisruptionTarget" set to "True"
      And pod "forever" still runs on node "node-a"

  @clause-NODE-EVICT-NONPOSITIVE-SECONDS
  Rule: tolerationSeconds of zero or less gives no grace at all

    Scenario Outline: tolerationSeconds <seconds> evicts when the NoExecute taint appears
      When I create a pod "web" with:
        """
        spec:
          nodeName: node-a
          containers: [{name: main, image: kube32/app:1}]
          tolerations:
            - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: <seconds>}
        """
      And the kubelet on node "node-a" starts pod "web"
      And node "node-a" renews its lease for the last time
      And the lease duration passes
      And almost the NoExecute delay passes
      Then pod "web" still runs on node "node-a"
      When the lifecycle check interval passes
      Then pod "web" is not bound

      Examples:
        | seconds | why                                                          |
        | 0       | a controller that treats 0 as "unset" would keep the pod     |
        | -5      | a controller that waits timeAdded - 5 s still evicts; one that ignores negatives keeps it |

    Scenario: tolerationSeconds 1, just past the edge, still gives its second
      # a controller that gives no grace below some small number of seconds, or that rounds the
      # toleration down to whole minutes, evicts this pod as soon as the taint is there
      When I create a pod "web" with:
        """
        spec:
          nodeName: node-a
          containers: [{name: main, image: kube32/app:1}]
          tolerations:
            - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 1}
        """
      And the kubelet on node "node-a" starts pod "web"
      And node "node-a" renews its lease for the last time
      And the lease duration passes
      And the NoExecute taint on node "node-a" appears
      And the NoExecute taint on node "node-a" is almost 1 seconds old
      Then pod "web" still runs on node "node-a"
      When the NoExecute taint on node "node-a" is just over 1 seconds old
      Then pod "web" is not bound

  @clause-NODE-TOLERATE-FOREVER
  Rule: a matching toleration without tolerationSeconds lets the pod stay for ever

    Scenario: an unlimited toleration outlasts the default eviction time twice over
      # a controller that fills in the default 300 s would evict at 300 s
      When I create a pod "web" with:
        """
        spec:
          nodeName: node-a
          containers: [{name: main, image: kube32/app:1}]
          tolerations:
            - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute}
        """
      And the kubelet on node "node-a" starts pod "web"
      And node "node-a" renews its lease for the last time
      And the lease duration passes
      And the NoExecute delay passes
      And the lifecycle check interval passes
      And the NoExecute taint on node "node-a" is 600 seconds old
      Then pod "web" still runs on node "node-a"

  @clause-NODE-EVICT-COUNTS-FROM-TIMEADDED
  Rule: the tolerated time counts from the taint's timeAdded, not from when the pod arrived

    Scenario: a pod placed on the node 100 s after the taint with 120 s of toleration goes 20 s later
      When node "node-a" renews its lease for the last time
      And the lease duration passes
      And the NoExecute delay passes
      And the lifecycle check interval passes
      And the NoExecute taint on node "node-a" is 100 seconds old
      And I create a pod "late" with:
        """
        spec:
          nodeName: node-a
          containers: [{name: main, image: kube32/app:1}]
          tolerations:
            - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 120}
        """
      # the silent node never starts it: the pod stays Pending, bound to node-a
      And the NoExecute taint on node "node-a" is almost 120 seconds old
      Then pod "late" is bound to node "node-a"
      When the NoExecute taint on node "node-a" is just over 120 seconds old
      # counting from the pod's arrival would keep it until the taint is 220 s old
      Then pod "late" is not bound

  @clause-NODE-EVICT-RETURNS-TO-PENDING
  Rule: an evicted pod is kept, unbound and Pending with reason Evicted and a DisruptionTarget condition

    Scenario: the evicted pod's spec and status
      When I create a pod "web" with:
        """
        spec:
          nodeName: node-a
          containers: [{name: main, image: kube32/app:1}]
          tolerations:
            - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 0}
        """
      And the kubelet on node "node-a" starts pod "web"
      And node "node-a" renews its lease for the last time
      And the lease duration passes
      And the NoExecute delay passes
      # our reading: its status changes in the same pass as its spec
      Then pod "web" is marked evicted whenever it is seen unbound
      When the lifecycle check interval passes
      # only node-a exists and it is unreachable: nothing can rebind the pod
      Then pod "web" is not bound
      And pod "web" is marked evicted whenever it is seen unbound
      # a status written one pass after the eviction is as good: judged a check later
      When the lifecycle check interval passes
      Then pod "web" is Pending
      And pod "web" has status reason "Evicted"
      And pod "web" has condition "DisruptionTarget" set to "True"

    @interpretation
    Scenario: the DisruptionTarget condition reads as upstream's taint eviction, addresses are gone
      When I create a pod "web" with:
        """
        spec:
          nodeName: node-a
          containers: [{name: main, image: kube32/app:1}]
          tolerations:
            - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 0}
        """
      And the kubelet on node "node-a" starts pod "web"
      And node "node-a" renews its lease for the last time
      And the lease duration passes
      And the NoExecute delay passes
      And the lifecycle check interval passes
      Then pod "web" has condition "DisruptionTarget" "True" with reason "DeletionByTaintManager"
      And pod "web" has no IP address

  @clause-NODE-EVICT-EVENT
  Rule: every eviction is recorded as an Evicted event on the pod

    Scenario: an Evicted event about the evicted pod, none about the one that stays
      Given pod "stays" is running on node "node-a"
      When I create a pod "web" with:
        """
        spec:
          nodeName: node-a
          containers: [{name: main, image: kube32/app:1}]
          tolerations:
            - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 0}
        """
      And the kubelet on node "node-a" starts pod "web"
      And node "node-a" renews its lease for the last time
      And the lease duration passes
      And the NoExecute delay passes
      And the lifecycle check interval passes
      Then the "Evicted" event about pod "web" came within the check interval
      # the document gives the event no deadline of its own: judged once some time has passed
      When 10 seconds pass
      Then pod "web" has an event "Evicted"
      And there is no "Evicted" event about pod "stays"

    @interpretation
    Scenario: the Evicted event is a Warning naming the node and the taint
      When I create a pod "web" with:
        """
        spec:
          nodeName: node-a
          containers: [{name: main, image: kube32/app:1}]
          tolerations:
            - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 0}
        """
      And the kubelet on node "node-a" starts pod "web"
      And node "node-a" renews its lease for the last time
      And the lease duration passes
      And the NoExecute delay passes
      And the lifecycle check interval passes
      Then a "Warning" event "Evicted" about pod "web" says:
        """
        Evicted from node node-a: taint node.kubernetes.io/unreachable:NoExecute is not tolerated
        """

  @clause-NODE-EVICT-REBIND
  Rule: the scheduler binds an evicted pod again like any unbound pod

    Scenario: the evicted pod moves to the node that is still Ready
      Given these Ready nodes:
        | name   | memory |
        | node-b | 200Ki  |
      When I create a pod "web" with:
        """
        spec:
          nodeName: node-a
          containers: [{name: main, image: kube32/app:1}]
          tolerations:
            - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 0}
        """
      And the kubelet on node "node-a" starts pod "web"
      And node "node-a" renews its lease for the last time
      And the lease duration passes
      And almost the NoExecute delay passes
      Then pod "web" is bound to node "node-a"
      When the lifecycle check interval passes
      And the reconcile interval passes
      Then pod "web" is bound to node "node-b"

  @clause-NODE-TERMINATING-REMOVED
  Rule: a terminating pod whose toleration runs out is removed from the store

    Scenario: a pod being deleted on the silent node disappears at its toleration's end
      When I create a pod "web" with:
        """
        spec:
          nodeName: node-a
          containers: [{name: main, image: kube32/app:1}]
          tolerations:
            - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 20}
        """
      And the kubelet on node "node-a" starts pod "web"
      And node "node-a" renews its lease for the last time
      And the lease duration passes
      And the NoExecute delay passes
      And the lifecycle check interval passes
      # the silent kubelet never confirms the deletion
      And I delete pod "web"
      And the NoExecute taint on node "node-a" is almost 20 seconds old
      Then pod "web" is terminating
      When the NoExecute taint on node "node-a" is just over 20 seconds old
      # an evicting (not removing) controller would leave a Pending pod behind
      Then pod "web" is gone

  @clause-NODE-LEAVES-FINISHED-PODS
  Rule: Succeeded and Failed pods stay on the unreachable node

    Scenario Outline: a <phase> pod stays where a running pod with the same toleration is evicted
      When I create a pod "done" with:
        """
        spec:
          nodeName: node-a
          containers: [{name: main, image: kube32/app:1}]
          tolerations:
            - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 0}
        """
      And I create a pod "live" with:
        """
        spec:
          nodeName: node-a
          containers: [{name: main, image: kube32/app:1}]
          tolerations:
            - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 0}
        """
      And the kubelet on node "node-a" starts pod "done"
      And the kubelet on node "node-a" starts pod "live"
      And pod "done" <finishes>
      And node "node-a" renews its lease for the last time
      And the lease duration passes
      And the NoExecute delay passes
      And the lifecycle check interval passes
      # the zero-second toleration gives no grace: the running pod goes at once
      Then pod "live" is not bound
      When the NoExecute taint on node "node-a" is 30 seconds old
      # a controller that evicts finished pods like any other would unbind this one too
      Then pod "done" still has phase "<phase>" on node "node-a"

      Examples:
        | phase     | finishes |
        | Succeeded | succeeds |
        | Failed    | fails    |
