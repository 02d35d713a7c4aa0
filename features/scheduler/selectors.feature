@area-scheduler @needs-exclusive-nodes
Feature: nodeSelector
  A pod with a nodeSelector only goes to nodes that carry every selected label with exactly
  the selected value.

  Background:
    Given a kube32 control plane

  @clause-SCHED-FILTER-NODESELECTOR
  Rule: every selector label must be on the node with the same value

    Scenario: only the node with all labels gets the pod, though it scores lowest
      Given these Ready nodes:
        | name      | memory | esp32.io/gpio | labels          |
        | node-all  | 100Ki  | 8             | board=s3,zone=a |
        | node-some | 800Ki  | 8             | board=s3        |
        | node-diff | 800Ki  | 8             | board=s3,zone=b |
        | node-none | 800Ki  | 8             |                 |
      When I create a pod "p" with:
        """
        spec:
          nodeSelector:
            board: s3
            zone: a
          containers:
            - name: main
              image: kube32/app:1
              resources:
                requests:
                  memory: 50Ki
        """
      # ignoring the selector, matching any one label, or matching keys without values
      # all pick node-diff (the alphabetically first of the equal best)
      Then pod "p" is bound to node "node-all"

    Scenario: no node with all labels leaves the pod Pending
      Given these Ready nodes:
        | name      | memory | esp32.io/gpio | labels          |
        | node-some | 800Ki  | 8             | board=s3        |
        | node-diff | 800Ki  | 8             | board=s3,zone=b |
      When I create a pod "p" with:
        """
        spec:
          nodeSelector:
            board: s3
            zone: a
          containers:
            - name: main
              image: kube32/app:1
        """
      Then pod "p" is not bound
      And a "Warning" event "FailedScheduling" about pod "p" says:
        """
        0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector.
        """
