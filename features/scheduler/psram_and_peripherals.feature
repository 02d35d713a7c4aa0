@area-scheduler @needs-exclusive-nodes
Feature: PSRAM and peripheral filters
  PSRAM, asked for as esp32.io/psram or esp.io/psram, must fit the node's PSRAM. Each
  peripheral count (gpio, i2c, uart, adc, rmt-tx, rmt-rx) must fit the node's count, and a
  named bus such as esp32.io/i2c-bus-0 takes one unit of its bus count.

  Background:
    Given a kube32 control plane

  @clause-SCHED-FILTER-PSRAM
  Rule: PSRAM under either name must fit the node's PSRAM

    Scenario Outline: a node reporting <node name> and a pod asking <pod name>: equal fits
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio | <node name> |
        | node-a | 200Ki  | 8             | 2Mi         |
      When I create a pod "p" requesting:
        | resource   | quantity |
        | <pod name> | 2Mi      |
      # a scheduler that knows only one of the names sees 0 PSRAM on the node
      Then pod "p" is bound to node "node-a"

      Examples:
        | node name      | pod name       |
        | esp32.io/psram | esp32.io/psram |
        | esp32.io/psram | esp.io/psram   |
        | esp.io/psram   | esp32.io/psram |
        | esp.io/psram   | esp.io/psram   |

    Scenario Outline: a node reporting <node name> and a pod asking <pod name>: one byte more does not fit
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio | <node name> |
        | node-a | 200Ki  | 8             | 2Mi         |
      When I create a pod "p" requesting:
        | resource   | quantity |
        | <pod name> | 2097153  |
      # a scheduler that ignores the pod's name for PSRAM binds it
      Then pod "p" is not bound
      And a "Warning" event "FailedScheduling" about pod "p" says:
        """
        0/1 nodes are available: 1 Insufficient <pod name>.
        """

      Examples:
        | node name      | pod name       |
        | esp32.io/psram | esp32.io/psram |
        | esp32.io/psram | esp.io/psram   |
        | esp.io/psram   | esp32.io/psram |
        | esp.io/psram   | esp.io/psram   |

    @interpretation
    Scenario: amounts under both names add up to one PSRAM need
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio | esp32.io/psram |
        | node-a | 200Ki  | 8             | 2Mi            |
      When I create a pod "p" requesting:
        | resource       | quantity |
        | esp32.io/psram | 1Mi      |
        | esp.io/psram   | 1049089  |
      # each name alone fits; together they are one byte over
      Then pod "p" is not bound
      And a "Warning" event "FailedScheduling" about pod "p" says:
        """
        0/1 nodes are available: 1 Insufficient esp32.io/psram.
        """

    Scenario: a node that reports no PSRAM has none
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio |
        | node-a | 200Ki  | 8             |
      When I create a pod "p" requesting:
        | resource       | quantity |
        | esp32.io/psram | 1        |
      Then pod "p" is not bound
      And a "Warning" event "FailedScheduling" about pod "p" says:
        """
        0/1 nodes are available: 1 Insufficient esp32.io/psram.
        """

  @clause-SCHED-FILTER-PERIPHERALS
  Rule: every peripheral count must fit the node's count of it

    # The node has a different count of every peripheral, so comparing against the wrong
    # resource's figure gives a different answer in some row.
    Background:
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio | esp32.io/i2c | esp32.io/uart | esp32.io/adc | esp32.io/rmt-tx | esp32.io/rmt-rx |
        | node-a | 200Ki  | 6             | 2            | 3             | 4            | 5               | 1               |

    Scenario Outline: asking for all <count> of <resource> fits
      When I create a pod "p" requesting:
        | resource   | quantity |
        | <resource> | <count>  |
      Then pod "p" is bound to node "node-a"

      Examples:
        | resource        | count |
        | esp32.io/gpio   | 6     |
        | esp32.io/i2c    | 2     |
        | esp32.io/uart   | 3     |
        | esp32.io/adc    | 4     |
        | esp32.io/rmt-tx | 5     |
        | esp32.io/rmt-rx | 1     |

    Scenario Outline: asking for <count> of <resource>, one more than the node has, does not fit
      When I create a pod "p" requesting:
        | resource   | quantity |
        | <resource> | <count>  |
      Then pod "p" is not bound
      And a "Warning" event "FailedScheduling" about pod "p" says:
        """
        0/1 nodes are available: 1 Insufficient <resource>.
        """

      Examples:
        | resource        | count |
        | esp32.io/gpio   | 7     |
        | esp32.io/i2c    | 3     |
        | esp32.io/uart   | 4     |
        | esp32.io/adc    | 5     |
        | esp32.io/rmt-tx | 6     |
        | esp32.io/rmt-rx | 2     |

    Scenario: only the peripheral the node is short of is reported
      # the node has enough I2C: rules out reporting every peripheral the pod asks for
      When I create a pod "p" requesting:
        | resource      | quantity |
        | esp32.io/gpio | 7        |
        | esp32.io/i2c  | 2        |
      Then pod "p" is not bound
      And a "Warning" event "FailedScheduling" about pod "p" says:
        """
        0/1 nodes are available: 1 Insufficient esp32.io/gpio.
        """

  @clause-SCHED-NAMED-BUS-CONSUMES-ONE
  Rule: each named bus takes one unit of its bus count

    Scenario: a named I2C bus fits a node with one I2C controller
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio | esp32.io/i2c |
        | node-a | 200Ki  | 8             | 1            |
      When I create a pod "p" requesting:
        | resource           | quantity |
        | esp32.io/i2c-bus-0 | 1        |
      # a scheduler that compares the named bus with the node's (absent) figure for it refuses
      Then pod "p" is bound to node "node-a"

    Scenario: a named I2C bus plus one plain I2C unit needs two
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio | esp32.io/i2c |
        | node-a | 200Ki  | 8             | 1            |
      When I create a pod "p" requesting:
        | resource           | quantity |
        | esp32.io/i2c-bus-0 | 1        |
        | esp32.io/i2c       | 1        |
      # ignoring the named bus would count one unit and bind
      Then pod "p" is not bound
      And a "Warning" event "FailedScheduling" about pod "p" says:
        """
        0/1 nodes are available: 1 Insufficient esp32.io/i2c.
        """

    Scenario: a named UART takes the node's only UART from the next pod
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio | esp32.io/uart |
        | node-a | 200Ki  | 8             | 1             |
      When I create a pod "p" requesting:
        | resource        | quantity |
        | esp32.io/uart-1 | 1        |
      And I create a pod "q" requesting:
        | resource        | quantity |
        | esp32.io/uart-2 | 1        |
      Then pod "p" is bound to node "node-a"
      And pod "q" is not bound
      And a "Warning" event "FailedScheduling" about pod "q" says:
        """
        0/1 nodes are available: 1 Insufficient esp32.io/uart.
        """

    @interpretation
    Scenario: a named bus counts one unit whatever amount is written
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio | esp32.io/i2c |
        | node-a | 200Ki  | 8             | 1            |
      When I create a pod "p" requesting:
        | resource           | quantity |
        | esp32.io/i2c-bus-0 | 2        |
      # counting the written amount would need two I2C controllers
      Then pod "p" is bound to node "node-a"

    Scenario: two named buses need two units
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio | esp32.io/i2c |
        | node-a | 200Ki  | 8             | 1            |
        | node-b | 200Ki  | 8             | 2            |
      When I create a pod "p" requesting:
        | resource           | quantity |
        | esp32.io/i2c-bus-0 | 1        |
        | esp32.io/i2c-bus-1 | 1        |
      # one unit per pod (not per bus) would pick node-a, the first of two equal scores
      Then pod "p" is bound to node "node-b"
