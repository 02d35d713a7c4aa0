@area-kubelet @needs-real-kubelet
Feature: The kubelet's capability firewall refuses claims the board cannot serve
  The scheduler ignores hardware.kube32.io/* resources and esp32.io/gpio-<N> pin claims; the
  board's kubelet validates them when it admits the pod. A refused pod is bound (the scheduler
  did not look) and never runs; that it ends in phase Failed with a reason and a message naming
  the claim is our (upstream's) reading, judged at reference level. The node is played by the rig board whose node_name is "node-a".

  Background:
    Given a kube32 control plane
    And these Ready nodes:
      | name   |
      | node-a |

  @clause-KUBELET-FIREWALL-HARDWARE
  Rule: a hardware.kube32.io/ claim the board does not have is refused at admission

    Scenario: a pod asking for hardware no board has is refused, not run
      When I create a pod "cam" on node "node-a" requesting:
        | resource                                  | quantity |
        | hardware.kube32.io/conformance-no-such-hw | 1        |
      Then pod "cam" is bound to node "node-a"
      # a kubelet that admits whatever the scheduler let through would run it
      And the kubelet of node "node-a" refuses pod "cam" naming "hardware.kube32.io/conformance-no-such-hw"

  @clause-KUBELET-FIREWALL-GPIO-PIN
  Rule: a pin claim the board cannot serve is refused at admission; a free valid pin runs

    Scenario: a claim for a pin the board does not have is refused
      When I create a pod "p99" on node "node-a" requesting:
        | resource        | quantity |
        | esp32.io/gpio-99 | 1        |
      Then pod "p99" is bound to node "node-a"
      # GPIO 99 exists on no ESP32: a kubelet that does not check pin claims would run the pod
      And the kubelet of node "node-a" refuses pod "p99" naming "esp32.io/gpio-99"

    Scenario: a claim for a free valid pin runs
      # GPIO 4 is a general-purpose pin on the ESP32, S2, S3 and C3: a firewall refusing every
      # pin claim fails here
      When I create a pod "p4" on node "node-a" requesting:
        | resource        | quantity |
        | esp32.io/gpio-4 | 1        |
      Then the kubelet of node "node-a" runs pod "p4"
