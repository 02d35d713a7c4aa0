@area-node_lifecycle
Feature: Default NoExecute tolerations, and the pods eviction leaves alone
  Every new pod tolerates node.kubernetes.io/not-ready:NoExecute and
  node.kubernetes.io/unreachable:NoExecute (operator Exists, tolerationSeconds 300, or the
  simulator's --eviction-timeout) unless it already tolerates that taint — decided per taint.
  Pods the Deployment and Job controllers create get them too. DaemonSet pods get both without
  tolerationSeconds and are never evicted for these taints.

  In the tables "default" stands for the target's default toleration (300 s unless the
  simulator runs with --eviction-timeout).

  Background:
    Given a kube32 control plane
    And these Ready nodes:
      | name   | memory |
      | node-a | 200Ki  |

  @clause-NODE-DEFAULT-TOLERATIONS
  Rule: a new pod gets the not-ready and unreachable NoExecute tolerations, in that order

    Scenario: a pod created without tolerations
      When I create a pod "web" requesting:
        | resource | quantity |
        | memory   | 16Ki     |
      Then pod "web" has exactly these tolerations:
        | key                            | operator | effect    | tolerationSeconds |
        | node.kubernetes.io/not-ready   | Exists   | NoExecute | default           |
        | node.kubernetes.io/unreachable | Exists   | NoExecute | default           |

    Scenario: the defaults come after the pod's own tolerations, which stay as written
      When I create a pod "web" with:
        """
        spec:
          containers: [{name: main, image: kube32/app:1}]
          tolerations:
            - {key: board, operator: Equal, value: s3, effect: NoSchedule}
        """
      Then pod "web" has exactly these tolerations:
        | key                            | operator | effect     | tolerationSeconds |
        | board                          | Equal    | NoSchedule |                   |
        | node.kubernetes.io/not-ready   | Exists   | NoExecute  | default           |
        | node.kubernetes.io/unreachable | Exists   | NoExecute  | default           |

  @clause-NODE-DEFAULT-TOLERATIONS-ONLY-MISSING
  Rule: a default toleration is added only for a taint the pod does not already tolerate

    Scenario: a pod that tolerates unreachable for 10 s keeps that and gets only not-ready
      # adding both blindly would give three tolerations; overwriting would lose the 10 s
      When I create a pod "web" with:
        """
        spec:
          containers: [{name: main, image: kube32/app:1}]
          tolerations:
            - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 10}
        """
      Then pod "web" has exactly these tolerations:
        | key                            | operator | effect    | tolerationSeconds |
        | node.kubernetes.io/unreachable | Exists   | NoExecute | 10                |
        | node.kubernetes.io/not-ready   | Exists   | NoExecute | default           |

    Scenario: a NoSchedule toleration of the unreachable taint does not cover NoExecute
      When I create a pod "web" with:
        """
        spec:
          containers: [{name: main, image: kube32/app:1}]
          tolerations:
            - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoSchedule}
        """
      Then pod "web" has exactly these tolerations:
        | key                            | operator | effect     | tolerationSeconds |
        | node.kubernetes.io/unreachable | Exists   | NoSchedule |                   |
        | node.kubernetes.io/not-ready   | Exists   | NoExecute  | default           |
        | node.kubernetes.io/unreachable | Exists   | NoExecute  | default           |

    @interpretation
    Scenario: a toleration with an empty key covers both taints; one with no effect covers its key
      When I create a pod "all" with:
        """
        spec:
          containers: [{name: main, image: kube32/app:1}]
          tolerations:
            - {operator: Exists}
        """
      And I create a pod "keyed" with:
        """
        spec:
          containers: [{name: main, image: kube32/app:1}]
          tolerations:
            - {key: node.kubernetes.io/not-ready, operator: Exists}
        """
      Then pod "all" has exactly these tolerations:
        | key | operator | effect | tolerationSeconds |
        |     | Exists   |        |                   |
      And pod "keyed" has exactly these tolerations:
        | key                            | operator | effect    | tolerationSeconds |
        | node.kubernetes.io/not-ready   | Exists   |           |                   |
        | node.kubernetes.io/unreachable | Exists   | NoExecute | default           |

    @interpretation
    Scenario: any operator counts: an Equal toleration of the unreachable taint covers it
      When I create a pod "web" with:
        """
        spec:
          containers: [{name: main, image: kube32/app:1}]
          tolerations:
            - {key: node.kubernetes.io/unreachable, operator: Equal, value: other, effect: NoExecute}
        """
      Then pod "web" has exactly these tolerations:
        | key                            | operator | effect    | tolerationSeconds |
        | node.kubernetes.io/unreachable | Equal    | NoExecute |                   |
        | node.kubernetes.io/not-ready   | Exists   | NoExecute | default           |

  @clause-NODE-DEFAULT-TOLERATIONS-CONTROLLERS
  Rule: pods made by the Deployment controller carry the default tolerations too

    Scenario: a Deployment pod tolerates both taints for the default time
      When the Deployment "web" is created with 1 replica
      And the deployment interval passes
      Then the Deployment "web" pods have these tolerations:
        | key                            | operator | effect    | tolerationSeconds |
        | node.kubernetes.io/not-ready   | Exists   | NoExecute | default           |
        | node.kubernetes.io/unreachable | Exists   | NoExecute | default           |

  @clause-NODE-LEAVES-DAEMONSET-PODS
  Rule: DaemonSet pods are never evicted, whatever their tolerations say

    Scenario: a DaemonSet pod tolerating the unreachable taint for 0 s stays on the node
      # a controller that treats DaemonSet pods like any other would evict this one at once
      Given a DaemonSet "agent" whose pods tolerate "node.kubernetes.io/unreachable:NoExecute" for 0 seconds
      And the DaemonSet "agent" pods are running and ready
      And pod "web" is running on node "node-a"
      When I create a pod "plain" with:
        """
        spec:
          nodeName: node-a
          containers: [{name: main, image: kube32/app:1}]
          tolerations:
            - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 0}
        """
      And the kubelet on node "node-a" starts pod "plain"
      And node "node-a" renews its lease for the last time
      And the lease duration passes
      And the NoExecute delay passes
      And the lifecycle check interval passes
      Then node "node-a" has taint "node.kubernetes.io/unreachable:NoExecute"
      # the same toleration on a pod no DaemonSet owns: evicted at once
      And pod "plain" is not bound
      When the NoExecute taint on node "node-a" is 10 seconds old
      Then the DaemonSet "agent" keeps the same pod on node "node-a"
      And pod "web" still runs on node "node-a"

  @clause-NODE-DAEMONSET-TOLERATIONS
  Rule: DaemonSet pods tolerate both taints without a time limit and outlast the default eviction

    Scenario: a DaemonSet pod is still on the silent node after the default toleration has run out
      Given the DaemonSet "agent" is created
      And the DaemonSet "agent" pods are running and ready
      And pod "web" is running on node "node-a"
      When node "node-a" renews its lease for the last time
      And the lease duration passes
      And the NoExecute delay passes
      And the lifecycle check interval passes
      And the NoExecute taint on node "node-a" is older than the default toleration
      # the ordinary pod shows the default toleration has run out
      Then pod "web" is not bound
      And the DaemonSet "agent" keeps the same pod on node "node-a"
      And the DaemonSet "agent" pod on node "node-a" tolerates "node.kubernetes.io/unreachable:NoExecute" without a time limit
