@area-scheduler @needs-exclusive-nodes
Feature: Pods no node can take
  When every node is filtered out the pod stays Pending and unbound, its PodScheduled
  condition is False with reason Unschedulable, and a Warning FailedScheduling event from
  the default scheduler carries kube-scheduler's message: "0/<all nodes> nodes are available: "
  then "<count> <reason>" entries sorted as plain strings, joined by ", ", and a final period.

  Background:
    Given a kube32 control plane

  @clause-SCHED-UNSCHEDULABLE-CONDITION
  Rule: the pod stays Pending with PodScheduled False, reason Unschedulable and the event's message

    Scenario: a pod too big for every node
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio |
        | node-a | 100Ki  | 8             |
        | node-b | 50Ki   | 8             |
      When I create a pod "p" requesting:
        | resource | quantity |
        | memory   | 200Ki    |
      Then pod "p" is not bound
      And pod "p" is Pending
      And pod "p" has condition "PodScheduled" "False" with reason "Unschedulable"
      And the PodScheduled condition of pod "p" says:
        """
        0/2 nodes are available: 2 Insufficient memory.
        """

    @interpretation
    Scenario: the condition turns True once the pod is bound
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio |
        | node-a | 100Ki  | 8             |
      When I create a pod "p" requesting:
        | resource | quantity |
        | memory   | 200Ki    |
      Then pod "p" has condition "PodScheduled" "False" with reason "Unschedulable"
      When node "node-a" reports allocatable:
        | resource | quantity |
        | memory   | 300Ki    |
      And the reconcile interval passes
      Then pod "p" is bound to node "node-a"
      And the PodScheduled condition of pod "p" is True

  @clause-SCHED-FAILED-SCHEDULING-EVENT
  Rule: each failed placement is a Warning FailedScheduling event on the pod

    Scenario: the event is about the pod and comes from the default scheduler
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio |
        | node-a | 100Ki  | 8             |
      When I create a pod "p" requesting:
        | resource | quantity |
        | memory   | 200Ki    |
      Then there is a "Warning" event "FailedScheduling" about pod "p"
      And the FailedScheduling event about pod "p" names the pod and comes from "default-scheduler"

    @interpretation
    Scenario: failed retries with the same message add to one event
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio |
        | node-a | 100Ki  | 8             |
      When I create a pod "p" requesting:
        | resource | quantity |
        | memory   | 200Ki    |
      And the reconcile interval passes
      And the reconcile interval passes
      Then pod "p" has one FailedScheduling event counted at least 3 times

  @clause-SCHED-FAILED-SCHEDULING-MESSAGE
  Rule: the message counts every node and sorts its entries byte-wise

    Scenario: entries sort as strings, not by count or by reason
      Given these Ready nodes:
        | name    | memory | esp32.io/gpio |
        | node-01 | 8Ki    | 8             |
        | node-02 | 8Ki    | 8             |
        | node-03 | 8Ki    | 8             |
        | node-04 | 8Ki    | 8             |
        | node-05 | 8Ki    | 8             |
        | node-06 | 8Ki    | 8             |
        | node-07 | 8Ki    | 8             |
        | node-08 | 8Ki    | 8             |
        | node-09 | 8Ki    | 8             |
        | node-10 | 8Ki    | 8             |
        | node-11 | 800Ki  | 8             |
        | node-12 | 800Ki  | 8             |
        | node-13 | 800Ki  | 8             |
      And node "node-11" is cordoned
      And node "node-12" is cordoned
      And node "node-13" reports Ready "False"
      When I create a pod "p" requesting:
        | resource | quantity |
        | memory   | 64Ki     |
      # ascending counts give 1, 2, 10; descending counts 10, 2, 1; sorting by reason puts
      # "Insufficient memory" first: only byte order gives "1 …", "10 …", "2 …"
      Then a "Warning" event "FailedScheduling" about pod "p" says:
        """
        0/13 nodes are available: 1 node(s) were not ready, 10 Insufficient memory, 2 node(s) were unschedulable.
        """

    Scenario: a node short of two peripherals counts under both, in string order
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio | esp32.io/adc |
        | node-a | 200Ki  | 1             | 0            |
      When I create a pod "p" requesting:
        | resource      | quantity |
        | esp32.io/gpio | 2        |
        | esp32.io/adc  | 1        |
      # the document's resource order would put gpio before adc
      Then a "Warning" event "FailedScheduling" about pod "p" says:
        """
        0/1 nodes are available: 1 Insufficient esp32.io/adc, 1 Insufficient esp32.io/gpio.
        """

    @interpretation
    Scenario: with no nodes at all the message is upstream's
      When I create a pod "p" requesting:
        | resource | quantity |
        | memory   | 64Ki     |
      Then pod "p" is not bound
      And a "Warning" event "FailedScheduling" about pod "p" says:
        """
        no nodes available to schedule pods
        """
      And pod "p" has condition "PodScheduled" "False" with reason "Unschedulable"
