@area-daemonset
Feature: DaemonSet placement
  A DaemonSet runs one pod on every node whose labels match its template's nodeSelector. Each pod
  is pinned to its node with a kubernetes.io/hostname node selector, labelled with the template's
  controller-revision-hash, and owned by the DaemonSet. Nodes that join get a pod; nodes that are
  deleted or stop matching lose theirs; an unreachable node keeps its pod. Deleting the DaemonSet
  deletes its pods.

  On a target shared with other nodes the runner fences each DaemonSet to the scenario's nodes (a
  scenario label on those nodes, required by the template's nodeSelector); the selector checks
  below then expect that extra term as well.

  Background:
    Given a kube32 control plane

  @clause-DS-ONE-POD-PER-NODE
  Rule: every matching node runs exactly one pod of the DaemonSet

    Scenario: only the nodes matching the nodeSelector get a pod, one each
      # Ruled out: ignoring the nodeSelector (a pod on esp-b too); a pod per DaemonSet instead of per node.
      Given these Ready nodes:
        | name  | memory | labels   |
        | esp-a | 200Ki  | board=s3 |
        | esp-b | 200Ki  | board=c3 |
        | esp-c | 200Ki  | board=s3 |
      When the DaemonSet "d" is created with node selector "board=s3"
      And the workload interval passes
      Then the DaemonSet "d" has pods on exactly nodes "esp-a, esp-c"
      When 5 more seconds pass
      # Ruled out: a controller that adds a pod on every pass.
      Then the DaemonSet "d" has pods on exactly nodes "esp-a, esp-c"

    @needs-exclusive-nodes
    Scenario: without a nodeSelector every node gets a pod
      Given these Ready nodes:
        | name  | memory | labels   |
        | esp-a | 200Ki  | board=s3 |
        | esp-b | 200Ki  | board=c3 |
      When the DaemonSet "d" is created
      And the workload interval passes
      Then the DaemonSet "d" has pods on exactly nodes "esp-a, esp-b"

    Scenario: a matching node that joins gets a pod, a non-matching one does not
      Given these Ready nodes:
        | name  | memory | labels   |
        | esp-a | 200Ki  | board=s3 |
      And the DaemonSet "d" is created with node selector "board=s3"
      And the DaemonSet "d" pods are running and ready
      When node "esp-d" joins with labels "board=s3"
      And node "esp-e" joins with labels "board=c3"
      And the workload interval passes
      Then the DaemonSet "d" has pods on exactly nodes "esp-a, esp-d"
      And the DaemonSet "d" keeps the same pod on node "esp-a"

    @interpretation
    Scenario: a matching node that is not Ready still gets a pod, which waits unbound
      # Our reading: eligibility is by labels only; the scheduler binds the pod once it can.
      Given these Ready nodes:
        | name  | memory | labels   |
        | esp-a | 200Ki  | board=s3 |
        | esp-b | 200Ki  | board=s3 |
      And node "esp-b" reports Ready "False"
      When the DaemonSet "d" is created with node selector "board=s3"
      And the workload interval passes
      Then the DaemonSet "d" has a pod on node "esp-a"
      And the DaemonSet "d" has an unbound pod for node "esp-b"

    @interpretation
    Scenario: a pod that fails is replaced on its node
      # Our reading (as upstream): a finished pod no longer counts as the node's pod.
      Given these Ready nodes:
        | name  | memory |
        | esp-a | 200Ki  |
      And the DaemonSet "d" is created
      And the DaemonSet "d" pods are running and ready
      When the DaemonSet "d" pod on node "esp-a" fails
      And 3 seconds pass
      Then the DaemonSet "d" pod on node "esp-a" is replaced

  @clause-DS-HOSTNAME-SELECTOR
  Rule: each pod is pinned with kubernetes.io/hostname=<node name> next to the template's selector

    Scenario: the pod's node selector is the template's plus the hostname of its node
      # Ruled out: pinning with spec.nodeName at create (no hostname key); replacing the template's selector.
      Given these Ready nodes:
        | name  | memory | labels   |
        | esp-a | 200Ki  | board=s3 |
        | esp-c | 200Ki  | board=s3 |
      When the DaemonSet "d" is created with node selector "board=s3"
      And the workload interval passes
      Then the DaemonSet "d" has a pod on node "esp-a"
      And the DaemonSet "d" pod on node "esp-a" has node selector "board=s3,kubernetes.io/hostname=esp-a"
      And the DaemonSet "d" pod on node "esp-c" has node selector "board=s3,kubernetes.io/hostname=esp-c"

  @clause-DS-REVISION-HASH-LABEL
  Rule: pods carry a controller-revision-hash label that follows the template

    Scenario: all pods share one hash, and pods of a changed template carry another
      # the label is named by the document, its value is free: equal for one template, another
      # for a changed one. Ruled out: a hash that ignores the template.
      Given these Ready nodes:
        | name  | memory |
        | esp-a | 200Ki  |
        | esp-b | 200Ki  |
      And the DaemonSet "d" is created with update strategy "RollingUpdate"
      And the DaemonSet "d" pods are running and ready
      Then the DaemonSet "d" pods carry one controller-revision-hash
      When the DaemonSet "d" template changes to image "kube32/app:2"
      And the DaemonSet "d" rollout is followed for at most 60 seconds
      Then the DaemonSet "d" rollout completed
      And the DaemonSet "d" pod on node "esp-a" runs the new template
      And the DaemonSet "d" pods carry one controller-revision-hash

  @clause-DS-DELETE-ON-NODE-GONE
  Rule: the pod of a node that is deleted goes too

    Scenario: deleting a node deletes its pod and leaves the others alone
      Given these Ready nodes:
        | name  | memory |
        | esp-a | 200Ki  |
        | esp-b | 200Ki  |
      And the DaemonSet "d" is created
      And the DaemonSet "d" pods are running and ready
      When node "esp-b" is deleted
      And the workload interval passes
      Then the DaemonSet "d" has no pod on node "esp-b"
      And the DaemonSet "d" keeps the same pod on node "esp-a"

  @clause-DS-DELETE-ON-NODE-MISMATCH
  Rule: the pod of a node that stops matching the nodeSelector goes

    Scenario: relabelling a node away from the selector deletes its pod only
      # Ruled out: matching only at creation; deleting every pod and recreating the rest.
      Given these Ready nodes:
        | name  | memory | labels   |
        | esp-a | 200Ki  | board=s3 |
        | esp-c | 200Ki  | board=s3 |
      And the DaemonSet "d" is created with node selector "board=s3"
      And the DaemonSet "d" pods are running and ready
      When node "esp-a" gets label "board=c3"
      And the workload interval passes
      Then the DaemonSet "d" has no pod on node "esp-a"
      And the DaemonSet "d" keeps the same pod on node "esp-c"

  @clause-DS-STAY-ON-UNREACHABLE @slow
  Rule: an unreachable node keeps its DaemonSet pod

    Scenario: the pod outlives the default eviction time on a silent node
      # 340 s: past NotReady (15 s), NoExecute (30 s) and the 300 s default toleration.
      Given these Ready nodes:
        | name  | memory |
        | esp-a | 200Ki  |
        | esp-b | 200Ki  |
      And the DaemonSet "d" is created
      And the DaemonSet "d" pods are running and ready
      When node "esp-a" stops renewing its lease
      And 340 seconds pass
      Then node "esp-a" has taint "node.kubernetes.io/unreachable:NoExecute"
      And the DaemonSet "d" keeps the same pod on node "esp-a"
      And the DaemonSet "d" keeps the same pod on node "esp-b"

  @clause-NODE-DAEMONSET-TOLERATIONS
  Rule: DaemonSet pods tolerate not-ready and unreachable without a time limit

    Scenario: both NoExecute tolerations are there, without tolerationSeconds
      Given these Ready nodes:
        | name  | memory |
        | esp-a | 200Ki  |
      When the DaemonSet "d" is created
      And the workload interval passes
      Then the DaemonSet "d" pod on node "esp-a" tolerates "node.kubernetes.io/not-ready:NoExecute" without a time limit
      And the DaemonSet "d" pod on node "esp-a" tolerates "node.kubernetes.io/unreachable:NoExecute" without a time limit

  @clause-DS-GC-ON-DELETE
  Rule: deleting the DaemonSet deletes its pods

    Scenario: the pods follow their DaemonSet
      Given these Ready nodes:
        | name  | memory |
        | esp-a | 200Ki  |
        | esp-b | 200Ki  |
      And the DaemonSet "d" is created
      And the DaemonSet "d" pods are running and ready
      When the DaemonSet "d" is deleted
      And the workload interval passes
      Then the DaemonSet "d" pods are all gone or terminating

    Scenario: deleting one DaemonSet leaves another DaemonSet's pods alone
      # Ruled out: deleting the pods of every DaemonSet (or every owned pod) when one DaemonSet goes.
      Given these Ready nodes:
        | name  | memory |
        | esp-a | 200Ki  |
      And the DaemonSet "d" is created
      And the DaemonSet "e" is created
      And the DaemonSet "d" pods are running and ready
      And the DaemonSet "e" pods are running and ready
      When the DaemonSet "d" is deleted
      And the workload interval passes
      Then the DaemonSet "d" pods are all gone or terminating
      And the DaemonSet "e" still has every pod it had
