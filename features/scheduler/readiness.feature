@area-scheduler @needs-exclusive-nodes
Feature: Only schedulable, reporting, Ready nodes take pods
  The first filter keeps a pod off nodes that are cordoned, that never reported a status,
  or whose Ready condition is not True. Each case has its own upstream reason string in the
  FailedScheduling message (judged at reference level: the document names none of them).

  Background:
    Given a kube32 control plane

  @clause-SCHED-FILTER-UNSCHEDULABLE
  Rule: a cordoned node never receives a scheduled pod

    Scenario: the best node is cordoned, so the pod goes to the other one
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio |
        | node-a | 800Ki  | 8             |
        | node-b | 100Ki  | 8             |
      And node "node-a" is cordoned
      When I create a pod "p" requesting:
        | resource | quantity |
        | memory   | 50Ki     |
      # without the filter node-a scores higher (94 against 75)
      Then pod "p" is bound to node "node-b"

    Scenario: a cordoned node alone leaves the pod Pending
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio |
        | node-a | 800Ki  | 8             |
      And node "node-a" is cordoned
      When I create a pod "p" requesting:
        | resource | quantity |
        | memory   | 50Ki     |
      Then pod "p" is not bound
      And a "Warning" event "FailedScheduling" about pod "p" says:
        """
        0/1 nodes are available: 1 node(s) were unschedulable.
        """

  @clause-SCHED-FILTER-STATUS-PRESENT
  Rule: a node that has not reported a status, or no Ready condition, is not a candidate

    Scenario: a node without status next to a Ready node
      Given a node "node-a" that never reported status
      And these Ready nodes:
        | name   | memory | esp32.io/gpio |
        | node-b | 100Ki  | 8             |
      When I create a pod "p" requesting:
        | resource | quantity |
        | memory   | 50Ki     |
      Then pod "p" is bound to node "node-b"

    Scenario: a node without status alone is counted as having unknown conditions
      Given a node "node-a" that never reported status
      When I create a pod "p" requesting:
        | resource | quantity |
        | memory   | 50Ki     |
      Then pod "p" is not bound
      # a scheduler that skipped this check would report "Insufficient memory" (no figures)
      And a "Warning" event "FailedScheduling" about pod "p" says:
        """
        0/1 nodes are available: 1 node(s) had unknown conditions.
        """

    Scenario: a status without a Ready condition counts as unknown conditions too
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio |
        | node-a | 800Ki  | 8             |
      And the kubelet on node "node-a" reports its status without a Ready condition
      When I create a pod "p" requesting:
        | resource | quantity |
        | memory   | 50Ki     |
      Then pod "p" is not bound
      And a "Warning" event "FailedScheduling" about pod "p" says:
        """
        0/1 nodes are available: 1 node(s) had unknown conditions.
        """

  @clause-SCHED-FILTER-READY
  Rule: only nodes whose Ready condition is True are candidates

    Scenario Outline: a node reporting Ready "<status>" loses the pod to a smaller Ready node
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio |
        | node-a | 800Ki  | 8             |
        | node-b | 100Ki  | 8             |
      And node "node-a" reports Ready "<status>"
      When I create a pod "p" requesting:
        | resource | quantity |
        | memory   | 50Ki     |
      # without the filter node-a scores higher (94 against 75)
      Then pod "p" is bound to node "node-b"

      Examples:
        | status  |
        | False   |
        | Unknown |

    Scenario: nodes that are not Ready leave the pod Pending with "not ready"
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio |
        | node-a | 800Ki  | 8             |
        | node-b | 800Ki  | 8             |
      And node "node-a" reports Ready "False"
      And node "node-b" reports Ready "Unknown"
      When I create a pod "p" requesting:
        | resource | quantity |
        | memory   | 50Ki     |
      Then pod "p" is not bound
      And a "Warning" event "FailedScheduling" about pod "p" says:
        """
        0/2 nodes are available: 2 node(s) were not ready.
        """
