@area-scheduler @needs-exclusive-nodes
Feature: What the scheduler subtracts from a node's report
  A kube32 kubelet reports free figures that already leave out the pods it runs. The
  scheduler therefore subtracts only bound pods the report cannot include yet: Pending pods,
  pods with a container waiting to restart, and pods written after the node's last status
  write. Finished pods are never subtracted. Any Node write counts as the "last write".

  Background:
    Given a kube32 control plane

  @clause-SCHED-ACCOUNT-RUNNING-NOT-SUBTRACTED
  Rule: a running pod already in the kubelet's report is not subtracted again

    Scenario: the report's figure is all the scheduler takes off
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio |
        | node-a | 100Ki  | 8             |
      # the kubelet reports 70Ki once pod "a" runs
      And pod "a" is running on node "node-a" requesting:
        | resource | quantity |
        | memory   | 30Ki     |
      When I create a pod "p" requesting:
        | resource | quantity |
        | memory   | 70Ki     |
      # subtracting pod "a" again would leave 40Ki
      Then pod "p" is bound to node "node-a"

  @clause-SCHED-ACCOUNT-PENDING-SUBTRACTED
  Rule: a bound pod that is still Pending is subtracted

    Scenario: a second pod does not land where the first, not yet started, took the room
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio |
        | node-a | 100Ki  | 8             |
        | node-b | 70Ki   | 8             |
      When I create a pod "a" requesting:
        | resource | quantity |
        | memory   | 60Ki     |
      And I create a pod "b" requesting:
        | resource | quantity |
        | memory   | 60Ki     |
      Then pod "a" is bound to node "node-a"
      # without the subtraction node-a still shows 100Ki and outscores node-b again
      And pod "b" is bound to node "node-b"

    Scenario: with one node the second pod waits
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio |
        | node-a | 100Ki  | 8             |
      When I create a pod "a" requesting:
        | resource | quantity |
        | memory   | 60Ki     |
      And I create a pod "b" requesting:
        | resource | quantity |
        | memory   | 60Ki     |
      Then pod "a" is bound to node "node-a"
      And pod "b" is not bound
      And a "Warning" event "FailedScheduling" about pod "b" says:
        """
        0/1 nodes are available: 1 Insufficient memory.
        """

    Scenario: a Pending pod still counts after the kubelet's next report
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio |
        | node-a | 100Ki  | 8             |
      When I create a pod "a" requesting:
        | resource | quantity |
        | memory   | 60Ki     |
      And the reconcile interval passes
      # the report still shows 100Ki: the board has not started pod "a"
      And the kubelet on node "node-a" reports node status
      And I create a pod "b" requesting:
        | resource | quantity |
        | memory   | 60Ki     |
      Then pod "a" is bound to node "node-a"
      # subtracting only pods written after the last report would bind pod "b" too
      And pod "b" is not bound

    Scenario Outline: a Pending pod's <resource> is taken off the node's figure
      # one row per resource the document counts: a scheduler that subtracts only the memory of
      # Pending pods binds pod "b" too
      Given these Ready nodes:
        | name   | memory | esp32.io/psram | esp32.io/gpio | esp32.io/i2c | esp32.io/uart | esp32.io/adc | esp32.io/rmt-tx | esp32.io/rmt-rx |
        | node-a | 200Ki  | 2Mi            | 4             | 1            | 1             | 1            | 1               | 1               |
      When I create a pod "a" requesting:
        | resource   | quantity   |
        | <resource> | <all of it> |
      And I create a pod "b" requesting:
        | resource   | quantity |
        | <resource> | <more>   |
      Then pod "a" is bound to node "node-a"
      And pod "b" is not bound

      Examples:
        | resource           | all of it | more |
        | esp32.io/psram     | 2Mi       | 1    |
        | esp.io/psram       | 2Mi       | 1    |
        | esp32.io/gpio      | 4         | 1    |
        | esp32.io/i2c       | 1         | 1    |
        | esp32.io/i2c-bus-0 | 1         | 1    |
        | esp32.io/uart      | 1         | 1    |
        | esp32.io/adc       | 1         | 1    |
        | esp32.io/rmt-tx    | 1         | 1    |
        | esp32.io/rmt-rx    | 1         | 1    |

  @clause-SCHED-ACCOUNT-WAITING-RESTART-SUBTRACTED
  Rule: a pod with a container waiting to restart is subtracted

    Scenario: a crash-looping pod keeps its room though the kubelet reports it free
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio |
        | node-a | 100Ki  | 8             |
        | node-b | 70Ki   | 8             |
      And pod "a" is running on node "node-a" requesting:
        | resource | quantity |
        | memory   | 60Ki     |
      # the kubelet releases the pod's memory and reports 100Ki again
      When the container of pod "a" restarts
      And I create a pod "p" requesting:
        | resource | quantity |
        | memory   | 60Ki     |
      # not subtracting pod "a" would see 100Ki on node-a and pick it
      Then pod "p" is bound to node "node-b"

  @clause-SCHED-ACCOUNT-MODIFIED-AFTER-STATUS
  Rule: a pod written after the node's last status write is subtracted until the next one

    Scenario: a running pod written after the report counts again until the kubelet reports
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio |
        | node-a | 100Ki  | 8             |
      # the kubelet reports 40Ki once pod "a" runs
      And pod "a" is running on node "node-a" requesting:
        | resource | quantity |
        | memory   | 60Ki     |
      # a pod write after the node's last status write
      When pod "a" becomes not ready
      And I create a pod "p" requesting:
        | resource | quantity |
        | memory   | 30Ki     |
      # never subtracting running pods would bind at once (40Ki left)
      Then pod "p" is not bound
      When the reconcile interval passes
      # no status write since: pod "a" still counts
      Then pod "p" is not bound
      When the kubelet on node "node-a" reports node status
      And the reconcile interval passes
      # always subtracting running pods would never bind
      Then pod "p" is bound to node "node-a"

  @clause-SCHED-ACCOUNT-TERMINAL-IGNORED
  @interpretation
  Rule: finished pods are never subtracted

    Scenario Outline: a pod that <ends> and is written afterwards holds nothing
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio |
        | node-a | 100Ki  | 8             |
      And pod "a" is running on node "node-a" requesting:
        | resource | quantity |
        | memory   | 80Ki     |
      When pod "a" <ends>
      # a pod write after the node's last status write
      And I label pod "a" with "example.com/archived=yes"
      And I create a pod "p" requesting:
        | resource | quantity |
        | memory   | 90Ki     |
      # subtracting pod "a" because it was written last would leave 20Ki
      Then pod "p" is bound to node "node-a"

      Examples:
        | ends     |
        | succeeds |
        | fails    |

  @clause-LIMIT-NODE-WRITE-RESETS-ACCOUNTING
  Rule: any Node write ends the subtraction of pods written before it

    Scenario Outline: a <write> on the node lets a pod in that the board has no room for
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio |
        | node-a | 100Ki  | 8             |
      When I create a pod "a" on node "node-a" requesting:
        | resource | quantity |
        | memory   | 60Ki     |
      # the pod starts; the kubelet has not reported since, so its figure is still 100Ki
      And pod "a" becomes ready
      And I create a pod "b" requesting:
        | resource | quantity |
        | memory   | 60Ki     |
      Then pod "b" is not bound
      When <node write>
      And the reconcile interval passes
      # the documented over-commit: pod "a" is no longer subtracted
      Then pod "b" is bound to node "node-a"
      # the kubelet's next report closes the gap: 40Ki left, pod "b" (Pending) takes 60Ki
      When the kubelet on node "node-a" reports node status
      And I create a pod "c" requesting:
        | resource | quantity |
        | memory   | 8Ki      |
      Then pod "c" is not bound

      Examples:
        | write       | node write                                                   |
        | label write | node "node-a" gets label "example.com/rack=2"                |
        | taint write | node "node-a" gets taint "example.com/maintenance:NoSchedule" |
