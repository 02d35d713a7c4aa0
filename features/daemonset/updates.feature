@area-daemonset
Feature: DaemonSet template updates
  Under RollingUpdate a template change replaces pods node by node: at most maxUnavailable nodes
  (default 1; a percentage of the matching nodes, rounded up) are without a ready pod at a time,
  out-of-date pods that are not ready go first, and a node's new pod is created only after its old
  pod has left the node. Under OnDelete nothing is replaced until the user deletes a pod; the pod
  that comes back uses the new template. The document names both strategies but not the default:
  the scenarios that judge it say RollingUpdate; that a DaemonSet without updateStrategy rolls as
  RollingUpdate (upstream's default) is our reading.

  Background:
    Given a kube32 control plane

  @clause-DS-ROLLING-NODE-BY-NODE
  Rule: a template change replaces every node's pod, one node at a time by default

    Scenario: three nodes move to the new template one after another
      # Ruled out: replacing all pods at once; leaving some nodes on the old template.
      Given these Ready nodes:
        | name  | memory |
        | esp-a | 200Ki  |
        | esp-b | 200Ki  |
        | esp-c | 200Ki  |
      And the DaemonSet "d" is created with update strategy "RollingUpdate"
      And the DaemonSet "d" pods are running and ready
      When the DaemonSet "d" template changes to image "kube32/app:2"
      And the DaemonSet "d" rollout is followed for at most 60 seconds
      Then the DaemonSet "d" rollout completed
      And the DaemonSet "d" rollout never had more than 1 node without a ready pod
      And the DaemonSet "d" pod on node "esp-a" runs the new template
      And the DaemonSet "d" pod on node "esp-b" runs the new template
      And the DaemonSet "d" pod on node "esp-c" runs the new template

    @interpretation
    Scenario: a DaemonSet without an update strategy rolls as under RollingUpdate
      # Our reading (upstream's default): rules out OnDelete as the default (nothing would move).
      Given these Ready nodes:
        | name  | memory |
        | esp-a | 200Ki  |
        | esp-b | 200Ki  |
      And the DaemonSet "d" is created
      And the DaemonSet "d" pods are running and ready
      When the DaemonSet "d" template changes to image "kube32/app:2"
      And the DaemonSet "d" rollout is followed for at most 60 seconds
      Then the DaemonSet "d" rollout completed
      And the DaemonSet "d" rollout never had more than 1 node without a ready pod

    @interpretation
    Scenario: nodes are taken in the order of their names
      # Nodes register as esp-c, esp-a, esp-b: ruled out: creation order, pod order.
      Given these Ready nodes:
        | name  | memory |
        | esp-c | 200Ki  |
        | esp-a | 200Ki  |
        | esp-b | 200Ki  |
      And the DaemonSet "d" is created with update strategy "RollingUpdate"
      And the DaemonSet "d" pods are running and ready
      When the DaemonSet "d" template changes to image "kube32/app:2"
      And the DaemonSet "d" rollout is followed for at most 60 seconds
      Then the DaemonSet "d" rollout replaced nodes in order "esp-a, esp-b, esp-c"

  @clause-DS-ROLLING-MAX-UNAVAILABLE
  Rule: at most maxUnavailable nodes are without a ready pod during an update

    Scenario Outline: maxUnavailable <value> on five nodes allows <max> at a time
      Given these Ready nodes:
        | name  | memory |
        | esp-a | 200Ki  |
        | esp-b | 200Ki  |
        | esp-c | 200Ki  |
        | esp-d | 200Ki  |
        | esp-e | 200Ki  |
      And the DaemonSet "d" is created with maxUnavailable "<value>"
      And the DaemonSet "d" pods are running and ready
      When the DaemonSet "d" template changes to image "kube32/app:2"
      And the DaemonSet "d" rollout is followed for at most 90 seconds
      Then the DaemonSet "d" rollout completed
      And the DaemonSet "d" rollout never had more than <max> nodes without a ready pod
      And the DaemonSet "d" rollout had <max> nodes without a ready pod at once

      Examples: the default and plain numbers
        # default: ruled out a Deployment-style 25 % (2 of 5 rounded up) and "all at once".
        | value   | max |
        | default | 1   |
        | 2       | 2   |

      @interpretation
      Examples: percentages of the matching nodes round up
        # 30 % of 5 = 1.5 -> 2 (rounding down gives 1); 50 % = 2.5 -> 3; 20 % = 1 exactly (no extra).
        | value | max |
        | 30%   | 2   |
        | 50%   | 3   |
        | 20%   | 1   |

  @clause-DS-ROLLING-NOT-READY-FIRST
  Rule: out-of-date pods that are not ready are replaced before ready ones

    Scenario: the not-ready pod on the last node by name goes first
      # Ruled out: name order regardless of readiness (esp-a first). The order of the ready ones
      # after it (by name) is our reading.
      Given these Ready nodes:
        | name  | memory |
        | esp-a | 200Ki  |
        | esp-b | 200Ki  |
        | esp-c | 200Ki  |
      And the DaemonSet "d" is created with update strategy "RollingUpdate"
      And the DaemonSet "d" pods are running and ready
      And the DaemonSet "d" pod on node "esp-c" becomes not ready
      When the DaemonSet "d" template changes to image "kube32/app:2"
      And the DaemonSet "d" rollout is followed for at most 60 seconds
      Then the DaemonSet "d" rollout completed
      And the DaemonSet "d" rollout replaced node "esp-c" first, then nodes in order "esp-a, esp-b"

    @interpretation
    Scenario: not-ready pods are replaced even beyond maxUnavailable
      # Our reading (as upstream): replacing a pod that is already not ready costs no availability.
      # Ruled out: one at a time regardless ("esp-b, esp-c, esp-a").
      Given these Ready nodes:
        | name  | memory |
        | esp-a | 200Ki  |
        | esp-b | 200Ki  |
        | esp-c | 200Ki  |
      And the DaemonSet "d" is created with update strategy "RollingUpdate"
      And the DaemonSet "d" pods are running and ready
      And the DaemonSet "d" pod on node "esp-b" becomes not ready
      And the DaemonSet "d" pod on node "esp-c" becomes not ready
      When the DaemonSet "d" template changes to image "kube32/app:2"
      And the DaemonSet "d" rollout is followed for at most 60 seconds
      Then the DaemonSet "d" rollout completed
      And the DaemonSet "d" rollout replaced nodes in order "esp-b+esp-c, esp-a"

  @clause-DS-ROLLING-WAIT-TERMINATING
  Rule: a node's new pod is created only after its old pod has left the node

    Scenario: the replacement waits for the kubelet to let the old pod go
      Given these Ready nodes:
        | name  | memory |
        | esp-a | 200Ki  |
      And the DaemonSet "d" is created with update strategy "RollingUpdate"
      And the DaemonSet "d" pods are running and ready
      And the DaemonSet "d" pod on node "esp-a" will be slow to terminate
      When the DaemonSet "d" template changes to image "kube32/app:2"
      And the workload interval passes
      Then the DaemonSet "d" pod on node "esp-a" is terminating
      When 10 more seconds pass
      # Ruled out: creating the replacement as soon as the old pod is marked for deletion.
      Then the DaemonSet "d" has only its terminating pod on node "esp-a"
      When the DaemonSet "d" pod on node "esp-a" finishes terminating
      And the workload interval passes
      Then the DaemonSet "d" pod on node "esp-a" runs the new template

    Scenario: during a rollout no node ever holds a new pod next to a terminating one
      Given these Ready nodes:
        | name  | memory |
        | esp-a | 200Ki  |
        | esp-b | 200Ki  |
        | esp-c | 200Ki  |
      And the DaemonSet "d" is created with update strategy "RollingUpdate"
      And the DaemonSet "d" pods are running and ready
      When the DaemonSet "d" template changes to image "kube32/app:2"
      And the DaemonSet "d" rollout is followed for at most 60 seconds
      Then the DaemonSet "d" rollout completed
      And the DaemonSet "d" rollout never started a pod next to a terminating one

  @clause-DS-ONDELETE
  Rule: under OnDelete only a pod the user deletes comes back with the new template

    Scenario: template change, then one pod deleted by hand
      # Ruled out: rolling anyway; recreating the deleted pod from the old template.
      Given these Ready nodes:
        | name  | memory |
        | esp-a | 200Ki  |
        | esp-b | 200Ki  |
      And the DaemonSet "d" is created with update strategy "OnDelete"
      And the DaemonSet "d" pods are running and ready
      When the DaemonSet "d" template changes to image "kube32/app:2"
      And 10 seconds pass
      Then the DaemonSet "d" keeps the same pod on node "esp-a"
      And the DaemonSet "d" keeps the same pod on node "esp-b"
      When the DaemonSet "d" pod on node "esp-a" is deleted
      And 3 seconds pass
      Then the DaemonSet "d" pod on node "esp-a" runs the new template
      And the DaemonSet "d" keeps the same pod on node "esp-b"
