@area-kubelet @needs-real-kubelet
Feature: The figures a board reports already include the pods it runs
  The kubelet measures free heap, free PSRAM and unclaimed pins, so once a pod runs, the node's
  reported memory, PSRAM and esp32.io/gpio figures are lower by what the pod takes. The node is
  played by the rig board whose node_name is "node-a"; resource columns of node tables are ignored
  for boards (a board reports what it measures), so these scenarios only compare the board's own
  figures before and after.

  Background:
    Given a kube32 control plane
    And these Ready nodes:
      | name   |
      | node-a |

  @clause-KUBELET-REPORTS-INCLUDE-RUNNING-PODS
  Rule: after a pod starts, the next status report counts it

    Scenario: a pod claiming 2 pins, PSRAM and memory lowers every reported figure
      Given the kubelet of node "node-a" has reported its free figures
      When I create a pod "p" on node "node-a" requesting:
        | resource       | quantity |
        | memory         | 24Ki     |
        | esp32.io/psram | 64Ki     |
        | esp32.io/gpio  | 2        |
      Then the kubelet of node "node-a" runs pod "p"
      # a kubelet that reports capacity, or forgets the pods it runs, reports the same figures
      And the kubelet of node "node-a" reports, compared with before:
        | resource       | change |
        | esp32.io/gpio  | 2 less |
        | memory         | less   |
        | esp32.io/psram | less   |
