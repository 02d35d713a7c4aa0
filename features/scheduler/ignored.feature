@area-scheduler @needs-exclusive-nodes
Feature: What the scheduler ignores
  hardware.kube32.io/* requests and esp32.io/gpio-<N> pin claims are left to the kubelet's
  capability firewall; taints, affinity and topology spread constraints play no part in
  placing a pod.

  Background:
    Given a kube32 control plane

  @clause-SCHED-IGNORE-HARDWARE-RESOURCES
  Rule: hardware.kube32.io requests do not affect placement

    Scenario: a camera request binds to a node that lists no camera
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio |
        | node-a | 200Ki  | 8             |
      When I create a pod "p" requesting:
        | resource                   | quantity |
        | hardware.kube32.io/camera  | 1        |
        | hardware.kube32.io/display | 2        |
      # comparing them with the node's (absent) figures would leave it Pending
      Then pod "p" is bound to node "node-a"

    Scenario: a camera request does not change which node is best
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio | hardware.kube32.io/camera |
        | node-a | 100Ki  | 8             | 1                         |
        | node-b | 200Ki  | 8             |                           |
      When I create a pod "p" requesting:
        | resource                  | quantity |
        | memory                    | 50Ki     |
        | hardware.kube32.io/camera | 1        |
      # filtering on the camera would pick node-a, the only node listing one
      Then pod "p" is bound to node "node-b"

    Scenario: large hardware amounts bind to a node with little free memory
      # rules out adding hardware.kube32.io amounts to any counted resource (100Ki of camera would
      # not fit 20Ki of memory)
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio | esp32.io/psram |
        | node-a | 20Ki   | 8             | 20Ki           |
      When I create a pod "p" requesting:
        | resource                  | quantity |
        | memory                    | 1Ki      |
        | hardware.kube32.io/camera | 100Ki    |
        | hardware.kube32.io/flash  | 2Mi      |
      Then pod "p" is bound to node "node-a"

  @clause-SCHED-IGNORE-GPIO-PIN-CLAIMS
  Rule: pin claims are not counted against the GPIO count

    Scenario: two pin claims and one GPIO fit a node with one GPIO
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio |
        | node-a | 200Ki  | 1             |
      When I create a pod "p" requesting:
        | resource        | quantity |
        | esp32.io/gpio-4 | 1        |
        | esp32.io/gpio-5 | 1        |
        | esp32.io/gpio   | 1        |
      # counting the pins as GPIO (or as resources the node must list) would leave it Pending
      Then pod "p" is bound to node "node-a"

  @clause-SCHED-IGNORE-TAINTS
  Rule: taints do not keep pods off a node

    Scenario Outline: a node with an untolerated <effect> taint receives the pod
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio |
        | node-a | 400Ki  | 8             |
        | node-b | 100Ki  | 8             |
      And node "node-a" gets taint "example.com/dedicated=infra:<effect>"
      When I create a pod "p" requesting:
        | resource | quantity |
        | memory   | 50Ki     |
      # honouring the taint would send it to node-b
      Then pod "p" is bound to node "node-a"

      Examples:
        | effect     |
        | NoSchedule |
        | NoExecute  |

  @clause-SCHED-IGNORE-AFFINITY
  Rule: affinity rules are accepted and ignored

    Scenario: a required node affinity that matches no node does not stop the pod
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio | labels  |
        | node-a | 400Ki  | 8             | zone=a  |
        | node-b | 100Ki  | 8             | zone=b  |
      When I create a pod "p" with:
        """
        spec:
          affinity:
            nodeAffinity:
              requiredDuringSchedulingIgnoredDuringExecution:
                nodeSelectorTerms:
                  - matchExpressions:
                      - key: zone
                        operator: In
                        values: [nowhere]
            podAntiAffinity:
              requiredDuringSchedulingIgnoredDuringExecution:
                - labelSelector:
                    matchLabels:
                      app: p
                  topologyKey: kubernetes.io/hostname
          containers:
            - name: main
              image: kube32/app:1
              resources:
                requests:
                  memory: 50Ki
        """
      # honouring the node affinity would leave it Pending
      Then pod "p" is bound to node "node-a"

  @clause-SCHED-IGNORE-TOPOLOGY
  Rule: topology spread constraints are accepted and ignored

    Scenario: pods that ask to be spread all go to the best node
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio | labels |
        | node-a | 800Ki  | 8             | zone=a |
        | node-b | 100Ki  | 8             | zone=b |
      When I create a pod "p" with:
        """
        metadata:
          labels:
            app: spread
        spec:
          topologySpreadConstraints:
            - maxSkew: 1
              topologyKey: zone
              whenUnsatisfiable: DoNotSchedule
              labelSelector:
                matchLabels:
                  app: spread
          containers:
            - name: main
              image: kube32/app:1
              resources:
                requests:
                  memory: 50Ki
        """
      And I create a pod "q" with:
        """
        metadata:
          labels:
            app: spread
        spec:
          topologySpreadConstraints:
            - maxSkew: 1
              topologyKey: zone
              whenUnsatisfiable: DoNotSchedule
              labelSelector:
                matchLabels:
                  app: spread
            - maxSkew: 1
              topologyKey: example.com/no-such-label
              whenUnsatisfiable: DoNotSchedule
              labelSelector:
                matchLabels:
                  app: spread
          containers:
            - name: main
              image: kube32/app:1
              resources:
                requests:
                  memory: 50Ki
        """
      Then pod "p" is bound to node "node-a"
      # spreading would put the second pod in zone b (node-a still scores 87.5 against 75)
      And pod "q" is bound to node "node-a"
