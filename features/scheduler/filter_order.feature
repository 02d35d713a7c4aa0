@area-scheduler @needs-exclusive-nodes
Feature: Filter order
  Filters run in the documented order (readiness, node name, node selector, memory, PSRAM,
  peripherals) and a node is counted in the FailedScheduling message only under the first
  filter it fails.

  Background:
    Given a kube32 control plane

  @clause-SCHED-FILTER-ORDER
  Rule: a node that fails several filters reports only the first one

    Scenario: readiness comes before the selector and the resources
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio |
        | node-a | 8Ki    | 0             |
      And node "node-a" reports Ready "False"
      When I create a pod "p" with:
        """
        spec:
          nodeSelector:
            board: s3
          containers:
            - name: main
              image: kube32/app:1
              resources:
                requests:
                  memory: 64Ki
                  esp32.io/gpio: "2"
        """
      Then pod "p" is not bound
      And a "Warning" event "FailedScheduling" about pod "p" says:
        """
        0/1 nodes are available: 1 node(s) were not ready.
        """

    Scenario: the selector comes before memory
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio | labels   |
        | node-a | 8Ki    | 8             | board=c3 |
      When I create a pod "p" with:
        """
        spec:
          nodeSelector:
            board: s3
          containers:
            - name: main
              image: kube32/app:1
              resources:
                requests:
                  memory: 64Ki
        """
      Then pod "p" is not bound
      And a "Warning" event "FailedScheduling" about pod "p" says:
        """
        0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector.
        """

    Scenario: memory comes before PSRAM
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio | esp32.io/psram |
        | node-a | 8Ki    | 8             | 1Mi            |
      When I create a pod "p" requesting:
        | resource       | quantity |
        | memory         | 64Ki     |
        | esp32.io/psram | 2Mi      |
      Then pod "p" is not bound
      And a "Warning" event "FailedScheduling" about pod "p" says:
        """
        0/1 nodes are available: 1 Insufficient memory.
        """

    Scenario: PSRAM comes before the peripherals
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio | esp32.io/psram |
        | node-a | 200Ki  | 1             | 1Mi            |
      When I create a pod "p" requesting:
        | resource       | quantity |
        | esp32.io/psram | 2Mi      |
        | esp32.io/gpio  | 2        |
      Then pod "p" is not bound
      And a "Warning" event "FailedScheduling" about pod "p" says:
        """
        0/1 nodes are available: 1 Insufficient esp32.io/psram.
        """

    @interpretation
    Scenario: every node under its first failing filter, every short peripheral under its own reason
      Given these Ready nodes:
        | name   | memory | esp32.io/psram | esp32.io/gpio | esp32.io/i2c | labels   |
        | node-a | 8Ki    | 0              | 0             | 0            | board=c3 |
        | node-b | 8Ki    | 0              | 0             | 0            | board=c3 |
        | node-d | 8Ki    | 0              | 0             | 0            | board=c3 |
        | node-e | 8Ki    | 0              | 0             | 0            | board=s3 |
        | node-f | 200Ki  | 512Ki          | 0             | 0            | board=s3 |
        | node-g | 200Ki  | 2Mi            | 1             | 0            | board=s3 |
      And a node "node-c" that never reported status
      And node "node-a" is cordoned
      And node "node-a" reports Ready "False"
      And node "node-b" reports Ready "False"
      When I create a pod "p" with:
        """
        spec:
          nodeSelector:
            board: s3
          containers:
            - name: main
              image: kube32/app:1
              resources:
                requests:
                  memory: 64Ki
                  esp32.io/psram: 1Mi
                  esp32.io/gpio: "4"
                  esp32.io/i2c: "1"
        """
      Then pod "p" is not bound
      # node-a: cordoned (first check of filter 1); node-b: not ready; node-c: no status;
      # node-d: selector; node-e: memory; node-f: PSRAM; node-g: gpio and i2c (both short)
      And a "Warning" event "FailedScheduling" about pod "p" says:
        """
        0/7 nodes are available: 1 Insufficient esp32.io/gpio, 1 Insufficient esp32.io/i2c, 1 Insufficient esp32.io/psram, 1 Insufficient memory, 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had unknown conditions, 1 node(s) were not ready, 1 node(s) were unschedulable.
        """
